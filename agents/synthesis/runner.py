"""Running a stage's units (seed documents, profile slots, topics, items) with bounded concurrency and
progress, in this process's threads or in Ray actors (`synth ... --executor ray`, agents/synthesis/ray_units.py),
and recording the stage's figures (SynthesisStageFinished)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from agents.synthesis.context import SynthContext
from graph.events import SynthesisStageFinished, now_iso

U = TypeVar("U")
T = TypeVar("T")
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class UnitWork(Generic[U, T]):
    """A stage's work on one unit: `fn(ctx, unit, *args)`, with `fn` a module-level function and `args` plain
    data, so that a Ray actor can run it with a context of its own (units must be plain data too)."""

    fn: Callable[..., T]
    args: tuple[Any, ...] = ()

    def __call__(self, ctx: SynthContext, unit: U) -> T:
        return self.fn(ctx, unit, *self.args)


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
    units: Sequence[U], work: UnitWork[U, T], ctx: SynthContext, phase: str, progress: Progress | None
) -> Iterator[T]:
    """Outcomes of `work` on each unit, `ctx.concurrency` at a time (in Ray actors when `ctx.remote` is set, in
    the order they finish). The first exception stops new units and is raised once the running ones end (their
    events are already appended; a rerun resumes after them)."""
    total = len(units)
    if progress:
        progress(phase, 0, total)
    if ctx.remote is not None:
        yield from ctx.remote.run(units, work, ctx, phase, progress)
        return
    if ctx.concurrency <= 1:
        for done, unit in enumerate(units, start=1):
            yield work(ctx, unit)
            if progress:
                progress(phase, done, total)
        return
    with ThreadPoolExecutor(max_workers=ctx.concurrency, thread_name_prefix="synth") as pool:
        pending: set[Future[T]] = set()
        queue: Iterable[U] = iter(units)
        done = 0
        for unit in queue:
            pending.add(pool.submit(work, ctx, unit))
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
                    stage=report.stage,
                    counts=counts,
                    usage=usage,
                ),
            )
        ]
    )
    return {"stage": report.stage, "counts": counts, "usage": usage}
