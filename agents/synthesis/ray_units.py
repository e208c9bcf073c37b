"""`synth ... --executor ray`: a stage's units run in Ray actors, on a local Ray instance or a Ray cluster.

Each actor opens its own Neo4j driver, encoder, retriever and LLM clients and builds a SynthContext of its own
(the driver's settings, synthesis settings and prompts); it runs a unit (`UnitWork`: a module-level stage
function and plain data), appends the unit's events itself, and hands back the unit's outcome and the LLM
usage it counted, which the driver adds to its own ledgers for the stage's `SynthesisStageFinished`. The Neo4j
log stays the only source of truth, so the units are the thread pool's and resume the same way: a unit is
closed by its last event, and a rerun skips closed units. An actor that dies fails the stage with
RayExecutorError naming it once the running units end; nothing of its unit's last transaction was written, and
the same command resumes. Ctrl-C stops handing out units, kills the actors and leaves the same resumable state.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from agents.ray_actor_settings import ActorSettings
from agents.synthesis.config import SynthesisConfig
from agents.synthesis.context import SynthContext
from agents.synthesis.runner import Progress, UnitWork
from graph.ray_runtime import RayExecutorError, RayPool, last_line
from graph.settings import Neo4jSettings

U = TypeVar("U")
T = TypeVar("T")


@dataclass(frozen=True)
class SynthActorConfig:
    """What an actor needs to build its SynthContext, as the driver resolved it (picklable)."""

    settings: ActorSettings
    prompts: PromptSet
    config: SynthesisConfig
    web: Any = None  # WebSettings when the web stage is configured


class SynthActor:
    """One Ray actor: a SynthContext of its own; runs one unit at a time."""

    def __init__(self, cfg: SynthActorConfig) -> None:
        self._stack = ExitStack()
        store, retriever, roles = cfg.settings.open(self._stack)
        self.ctx = SynthContext(
            store=store, retriever=retriever, roles=roles, prompts=cfg.prompts, config=cfg.config, web=cfg.web
        )

    def ready(self) -> bool:
        return True

    def work(self, work: UnitWork[Any, Any], unit: Any) -> tuple[Any, dict[str, dict[str, Any]]]:
        """The unit's outcome and the LLM usage counted for it."""
        try:
            return work(self.ctx, unit), self.ctx.take_usage()
        except BaseException:
            self.ctx.take_usage()  # a failed unit's usage is not reported (as a dead thread's is not)
            raise

    def close(self) -> None:
        self._stack.close()


class RayUnits(RayPool):
    """A pool of `workers` SynthActors (see the module docstring); `run` is what `run_units` calls when a
    SynthContext's `remote` is set. Use it as a context manager: on exit the actors stop and a local Ray
    instance this pool started is shut down."""

    POLL_S = 0.25  # ray.wait slices: Ctrl-C is seen within this

    def __init__(
        self,
        *,
        workers: int,
        roles: LLMRoles,
        prompts: PromptSet,
        config: SynthesisConfig,
        neo4j: Neo4jSettings | None = None,
        address: str | None = None,
        web: Any = None,
    ) -> None:
        super().__init__(workers, address)
        self.config = SynthActorConfig(ActorSettings.from_driver(roles, neo4j), prompts, config, web)
        self.units_per_actor: list[int] = []  # units each actor ran (for the summary and tests)

    def _ensure_actors(self) -> None:
        if self._actors:
            return
        self._ensure_ray()
        self.start_actors(SynthActor, (self._ray.put(self.config),), probe="ready", what="synthesis")
        self.units_per_actor = [0] * self.workers

    def run(
        self, units: Sequence[U], work: UnitWork[U, T], ctx: SynthContext, phase: str, progress: Progress | None
    ) -> Iterator[T]:
        """Outcomes of `work` on each unit as the actors finish them (one unit per actor at a time); the actors'
        usage is added to `ctx`. The first failure stops new units and is raised once the running ones end."""
        if not units:
            return
        self._ensure_actors()
        ray = self._ray
        work_ref = ray.put(work)
        queue = list(enumerate(units))
        queue.reverse()
        idle = list(range(len(self._actors)))
        flights: dict[Any, int] = {}  # object ref -> actor index
        failure: BaseException | None = None
        done = 0
        try:
            while flights or (queue and failure is None):
                while idle and queue and failure is None:
                    k = idle.pop()
                    _, unit = queue.pop()
                    flights[self._actors[k].work.remote(work_ref, unit)] = k
                ready, _ = ray.wait(list(flights), num_returns=1, timeout=self.POLL_S)
                for ref in ready:
                    k = flights.pop(ref)
                    idle.append(k)
                    try:
                        outcome, usage = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        if failure is None:
                            failure = _failure(exc, k)
                        continue
                    ctx.merge_usage(usage)
                    self.units_per_actor[k] += 1
                    done += 1
                    yield outcome
                    if progress:
                        progress(phase, done, len(units))
        except BaseException:
            self._kill_actors()  # Ctrl-C or a consumer's error: units in flight are abandoned (a rerun resumes)
            raise
        if failure is not None:
            raise failure


def _failure(exc: BaseException, actor: int) -> BaseException:
    """What a unit's failure in an actor becomes here: the unit's own error when Ray carried it (a synthesis
    error, an endpoint error), else RayExecutorError naming the actor."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, Exception):
        return cause
    return RayExecutorError(f"Ray synthesis worker {actor + 1} failed: {last_line(exc)}")
