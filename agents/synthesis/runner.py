"""Running a stage's units (seed documents, profile slots, topics, items) with bounded concurrency and
progress, and recording the stage's figures (SynthesisStageFinished)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agents.synthesis.context import SynthContext
from graph.events import SynthesisStageFinished, now_iso

U = TypeVar("U")
Progress = Callable[[str, int, int], None]


@dataclass
class StageReport:
    stage: str
    planned: int = 0
    skipped: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    extra: dict[str, Any] = field(default_factory=dict)

    def count(self, outcome: str, n: int = 1) -> None:
        self.outcomes[outcome] += n

    def counts(self) -> dict[str, Any]:
        return {
            "planned": self.planned,
            "skipped_done": self.skipped,
            **dict(sorted(self.outcomes.items())),
            **self.extra,
        }


def run_units(
    units: Sequence[U], work: Callable[[U], str], ctx: SynthContext, phase: str, progress: Progress | None
) -> Iterator[str]:
    """Outcomes of `work` on each unit, `ctx.concurrency` at a time. The first exception stops new units and is
    raised once the running ones end (their events are already appended; a rerun resumes after them)."""
    total = len(units)
    if progress:
        progress(phase, 0, total)
    if ctx.concurrency <= 1:
        for done, unit in enumerate(units, start=1):
            yield work(unit)
            if progress:
                progress(phase, done, total)
        return
    with ThreadPoolExecutor(max_workers=ctx.concurrency, thread_name_prefix="synth") as pool:
        pending: set[Future[str]] = set()
        queue: Iterable[U] = iter(units)
        done = 0
        for unit in queue:
            pending.add(pool.submit(work, unit))
            if len(pending) >= ctx.concurrency:
                finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for future in finished:
                    done += 1
                    yield future.result()
                    if progress:
                        progress(phase, done, total)
        for future in pending:
            done += 1
            yield future.result()
            if progress:
                progress(phase, done, total)


def finish_stage(ctx: SynthContext, report: StageReport) -> dict[str, Any]:
    """Append the stage's figures; returns them (counts and usage)."""
    usage = ctx.usage(report.stage)
    counts = report.counts()
    ctx.append(
        [
            (
                "pipeline",
                SynthesisStageFinished(
                    stage_run_id=f"{ctx.synthesis_id}:{report.stage}:{now_iso()}",
                    synthesis_id=ctx.synthesis_id,
                    stage=report.stage,  # type: ignore[arg-type]
                    counts=counts,
                    usage=usage,
                ),
            )
        ]
    )
    return {"stage": report.stage, "counts": counts, "usage": usage}
