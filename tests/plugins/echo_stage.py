"""A synthesis stage from outside the package (issue 23, item 3): one module, one registration line. Named in
COLABENCH_PLUGINS it is a `synth echo` subcommand, runs between stage III and the augmentation, its events carry
`stage: "echo"` and the synthesis report counts it. It asks no model: each run closes one unit, rejected."""

from __future__ import annotations

from collections.abc import Callable

from agents.synthesis.context import SynthContext
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import close_unit
from agents.synthesis.runner import StageReport

STAGE = "echo"
REASON = "the echo stage rejects what it hears"


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    report = StageReport(STAGE, planned=1)
    close_unit(ctx, stage=STAGE, role="linker", subject="echo-1", outcome="rejected", reasons=[REASON])
    report.count("rejected")
    return report


register_stage(SynthesisStage(STAGE, 45, run, "Echo: a plug-in stage.", roles=("linker",), gold_reasons=False))
