"""Starting (or resuming) a synthesis and running its stages in order (the registered stages: registry.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from agents.synthesis.config import SynthesisConfig
from agents.synthesis.context import SynthContext
from agents.synthesis.errors import SynthesisError
from agents.synthesis.registry import synthesis_stages
from agents.synthesis.runner import finish_stage
from graph.events import SynthesisStarted


def synthesis_prompt_hashes(ctx: SynthContext) -> dict[str, str]:
    """The synthesis prompts' hashes for SynthesisStarted; the several-support-document prompts only for a
    synthesis that builds two or more per item (with one, the record is what it was before they existed)."""
    from agents.prompts.synthesis.support_docs import SUPPORT_DOCS_PROMPTS

    skip = SUPPORT_DOCS_PROMPTS if ctx.config.support_docs == 1 else frozenset()
    records = ctx.prompts.records().items()
    return {name: rec["sha256"] for name, rec in records if name.startswith("synth_") and name not in skip}


def start(ctx: SynthContext) -> None:
    """Record the synthesis settings; resuming with other settings is refused, naming what differs."""
    rows = ctx.query("synthesis_run", synthesis_id=ctx.synthesis_id)
    wanted = ctx.config.record()
    if rows:
        recorded = json.loads(rows[0]["config"] or "{}")
        # a setting added after the synthesis started counts as recorded with its default value
        defaults = SynthesisConfig(dataset=ctx.config.dataset).record()
        recorded = {**{k: v for k, v in defaults.items() if k not in recorded}, **recorded}
        differs = sorted(k for k in set(recorded) | set(wanted) if recorded.get(k) != wanted.get(k))
        if differs:
            shown = "; ".join(f"{k}: recorded {recorded.get(k)!r}, now {wanted.get(k)!r}" for k in differs)
            raise SynthesisError(
                f"synthesis of dataset {ctx.config.dataset!r} was started with other settings ({shown}); "
                "rerun with the recorded settings to resume, or choose another --dataset name"
            )
    synthesis = ctx.roles.settings["synthesis"]
    ctx.append(
        [
            (
                "pipeline",
                SynthesisStarted(
                    synthesis_id=ctx.synthesis_id,
                    dataset=ctx.config.dataset,
                    seed=ctx.config.seed,
                    config=wanted,
                    models={
                        "synthesis": synthesis.public_record(),
                        **({"web": ctx.web.public_record()} if ctx.web is not None and ctx.web.enabled else {}),
                    },
                    prompt_hashes=synthesis_prompt_hashes(ctx),
                ),
            )
        ]
    )


def run_stages(
    ctx: SynthContext, stages: Sequence[str], progress: Callable[[str, int, int], None] | None = None
) -> list[dict[str, Any]]:
    """Run `stages` (in pipeline order, agents/synthesis/registry.py); each appends its figures; returns them."""
    registered = synthesis_stages()
    names = [s.name for s in registered]
    unknown = [s for s in stages if s not in names]
    if unknown:
        raise SynthesisError(f"unknown synthesis stage(s) {unknown}; stages are {', '.join(names)}")
    start(ctx)
    results = []
    for stage in registered:
        if stage.name in stages:
            report = stage.run(ctx, progress)
            results.append(finish_stage(ctx, report))
    return results
