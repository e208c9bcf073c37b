"""The exact command that resumes a batch: the invocation as typed, with `--fresh` (which would start yet
another batch) replaced by `--resume BATCH`."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence


def resume_command(batch_id: str, argv: Sequence[str] | None = None) -> str:
    """`./colabench <the same arguments>` without `--fresh` or an earlier `--resume`, plus `--resume batch_id`
    when the batch was started with `--fresh` (a plain rerun of a batch that resumes by default stays as is)."""
    args = list(sys.argv[1:] if argv is None else argv)
    kept: list[str] = []
    fresh = False
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg == "--fresh":
            fresh = True
            continue
        if arg == "--resume":
            skip_next = True
            fresh = True  # the batch is named: name it again
            continue
        if arg.startswith("--resume="):
            fresh = True
            continue
        kept.append(arg)
    if fresh:
        kept += ["--resume", batch_id]
    return shlex.join(["./colabench", *kept])
