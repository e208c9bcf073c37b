"""Mem0 (`mem0ai` 2.0.20, the version of the paper's App. B.1; non-graph) wired to the project: its LLM is the
project's `memory` client, its embedder the project's encoder, and its vector store the evidence graph (see
`vector_store`; which of Mem0's search signals score: `search_signals`).

Importing this package turns the SDK's telemetry off and points its home directory into the project's data
directory before the SDK is imported (the SDK reads both at import time).
"""

from __future__ import annotations

import os

from graph.paths import data_dir

os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", str(data_dir() / "mem0"))
