"""Where the project's files live: repository root, cypher folder, data and cache directories."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CYPHER_DIR = REPO_ROOT / "cypher"


def data_dir() -> Path:
    """Project data directory (local Neo4j store, logs, run artefacts); COLABENCH_DATA_DIR overrides."""
    return Path(os.environ.get("COLABENCH_DATA_DIR", str(REPO_ROOT / ".data"))).resolve()


def cache_dir() -> Path:
    """Machine-wide cache shared by all checkouts (embedding cache, built launcher); COLABENCH_HOME overrides."""
    return Path(os.environ.get("COLABENCH_HOME", str(Path.home() / ".cache" / "colabench"))).resolve()
