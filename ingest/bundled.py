"""The bundles shipped in samples/, by the names `ingest`, `check`, `run --dataset` and `eval` accept for them.

`sample`: the hand-written sample (3 profiles, 28 items; `make run`'s default). `synth-sample`: the synthesized
sample (10 profiles, the paper's proportions), made by `colabench synth` from recorded replies of a scripted
author (scripts/synth_sample/); both are samples for plumbing and analyses, not benchmark results."""

from __future__ import annotations

from pathlib import Path

from graph.paths import REPO_ROOT

SAMPLES_DIR = REPO_ROOT / "samples"
BUNDLED = {"sample": "colabench-sample", "synth-sample": "colabench-synth-sample"}


def bundled_path(name: str) -> Path | None:
    """The folder of a bundled sample named `name`, or None when no bundled sample has that name."""
    folder = BUNDLED.get(name)
    return SAMPLES_DIR / folder if folder is not None else None
