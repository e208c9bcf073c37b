"""`run --executor ray`: a batch's attempts run in Ray actors, on a local Ray instance or a Ray cluster.

Each actor is one worker of the batch in the sense of agents/runs/claims.py: it opens its own Neo4j driver,
encoder, retriever and LLM clients (nothing of the driver process's connections is ever sent to it), claims an
attempt before working on it, writes the attempt's events itself, and releases the claim. The Neo4j log stays
the only source of truth: an actor returns to this process only what it counts (progress, timings, endpoint
failures). The driver process keeps the steps before the attempts (memory builds, state summaries, RunStarted)
and after them (RunFinished), hands each actor one attempt at a time, and waits with `ray.wait` in short slices
so that Ctrl-C is seen at once: the actors stop sending requests, attempts in flight get the grace period,
then the actors are killed and the claims of abandoned attempts released (their events are one transaction, so
nothing of them was written), leaving a batch that the same command resumes.

Ray is an optional extra (requirements-ray.lock, scripts/setup_ray_env.sh); it is imported only when the executor
is built. Starting, joining and the carried settings are graph/ray_runtime.py's (shared with `ingest --executor
ray`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from agents.llm.accounting import UsageLedger
from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from agents.ray_actor_settings import ActorSettings
from agents.runs.attempt_worker import AttemptResult, AttemptSetup, AttemptWorker
from agents.runs.claims import Claims
from agents.runs.runner import BatchInterrupted
from graph.ray_runtime import (
    RayExecutorError,
    RayNotInstalled,
    RayPool,
    import_ray,
    last_line,
    start_local_ray,
)
from graph.settings import Neo4jSettings

# Re-exported: the CLI, the tests and the worker benchmark import them from here.
__all__ = ["RayExecutor", "RayExecutorError", "RayNotInstalled", "import_ray", "start_local_ray"]


@dataclass(frozen=True)
class ActorConfig:
    """Everything an attempt actor needs, as this process resolved it (picklable)."""

    settings: ActorSettings
    prompts: PromptSet
    ttl_s: float


class AttemptActor:
    """One Ray actor: a worker of the batch with its own Neo4j driver, encoder, retriever, LLM clients and
    claims (worker id `<driver's worker id>/ray<k>`). Runs one attempt at a time; `interrupt` reaches it
    while an attempt runs (the actor has a second thread for it)."""

    def __init__(self, config: ActorConfig, setup: AttemptSetup, worker_id: str) -> None:
        from agents.memory.rankers import sdk_rankers

        self._stack = ExitStack()
        store, retriever, self.roles = config.settings.open(self._stack)
        self.claims = Claims(store, worker=worker_id, ttl_s=config.ttl_s)
        self._stack.enter_context(self.claims)
        self._stack.enter_context(sdk_rankers(store, {r.method.memory_system for r in setup.plan.runs}))
        self.worker = AttemptWorker(store, retriever, self.roles, config.prompts, setup, claims=self.claims)

    def ready(self) -> str:
        return self.claims.worker

    def work(self, run_id: str, item_id: str) -> AttemptResult:
        return self.worker.work(run_id, item_id)

    def interrupt(self) -> None:
        """Ctrl-C in the driver: send no new request (a request not yet sent raises LLMInterruptedError)."""
        self.roles.interrupt()

    def usage(self) -> dict[str, dict[str, Any]]:
        return self.worker.usage()

    def close(self) -> None:
        self._stack.close()


@dataclass
class _Actor:
    handle: Any
    worker: str


@dataclass(frozen=True)
class _Flight:
    """An attempt handed to an actor and not returned yet."""

    actor: _Actor
    run_id: str
    item_id: str
    attempt_id: str


class RayExecutor(RayPool):
    """Runs a batch's attempts in `workers` Ray actors (see the module docstring). Use it as a context manager:
    on exit it leaves Ray (shutting the local instance down when it started one). Ray is started or joined on
    first use: a Ray already initialised in this process is used as it is; else `address` (a cluster: the
    project's code is shipped with the job, each node needs the project's Python environment) or, without
    one, a local instance with `workers` logical CPUs."""

    POLL_S = 0.25  # ray.wait slices: Ctrl-C is seen within this

    def __init__(
        self,
        *,
        workers: int,
        claims: Claims,
        roles: LLMRoles,
        prompts: PromptSet,
        neo4j: Neo4jSettings | None = None,
        address: str | None = None,
    ) -> None:
        super().__init__(workers, address)
        self.claims = claims
        self.config = ActorConfig(ActorSettings.from_driver(roles, neo4j), prompts, claims.ttl_s)
        self._config_ref: Any = None
        self._setup_ref: Any = None
        self._actors: list[_Actor] = []
        self._setup: AttemptSetup | None = None
        self.replaced = 0  # actors that died and were replaced in this batch
        self.started = 0  # actors started, over every batch

    # --- Ray and the actors ----------------------------------------------------------------------------------

    def _start_actor(self, setup_ref: Any, number: int) -> _Actor:
        worker = f"{self.claims.worker}/ray{number}"
        # An equal CPU share (the actors wait on the endpoint most of the time, like threads); one attempt at a
        # time (this process hands out one), plus `interrupt`.
        remote = self.actor_class(AttemptActor, max_concurrency=2)
        self.started += 1
        return _Actor(remote.remote(self._config_ref, setup_ref, worker), worker)

    def _ensure_actors(self, setup: AttemptSetup) -> None:
        if self._setup is setup and self._actors:
            return
        self._kill_actors()
        self._ensure_ray()
        ray = self._ray
        self._config_ref = ray.put(self.config)
        self._setup_ref = ray.put(setup)
        self._setup = setup
        self.replaced = 0
        self._actors = [self._start_actor(self._setup_ref, n) for n in range(1, self.workers + 1)]
        waiting = {a.handle.ready.remote(): a for a in self._actors}
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=len(waiting), timeout=self.POLL_S)
            for ref in ready:
                actor = waiting.pop(ref)
                try:
                    ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise RayExecutorError(f"Ray worker {actor.worker} could not start: {last_line(exc)}") from exc

    def _actor_handles(self) -> list[Any]:
        return [actor.handle for actor in self._actors]

    def _forget_actors(self) -> None:
        self._actors = []
        self._setup = None

    def _replace(self, dead: _Actor, error: BaseException) -> _Actor:
        """A new actor for one that died (its node went away, it ran out of memory); RayExecutorError when
        as many have died as there are workers."""
        self.replaced += 1
        if self.replaced > self.workers:
            raise RayExecutorError(
                f"Ray workers keep dying ({self.replaced} of {self.workers}); the last: {last_line(error)}"
            ) from error
        self._actors.remove(dead)
        fresh = self._start_actor(self._setup_ref, self.workers + self.replaced)
        self._actors.append(fresh)
        return fresh

    # --- the executor protocol of agents/runs/runner.py ------------------------------------------------------

    def run_attempts(
        self,
        setup: AttemptSetup,
        tasks: Sequence[tuple[str, str]],
        record: Callable[[AttemptResult], None],
        *,
        on_interrupt: Callable[[], None],
        grace_s: float,
    ) -> None:
        """Run every (run id, item id) on the actors, one at a time per actor, calling `record` here with each
        result. An error raised by an attempt stops the batch as in the thread pool (queued attempts are
        dropped); an actor that dies is replaced and its attempt handed to another (its claim released first).
        On Ctrl-C: BatchInterrupted once the attempts in flight have finished or `grace_s` has passed."""
        if not tasks:  # nothing to do: Ray is not even started
            return
        ray = self._ray
        runs = {run.run_id: run for run in setup.plan.runs}
        queue = deque(tasks)
        in_flight: dict[Any, _Flight] = {}
        try:
            self._ensure_actors(setup)
            idle = list(self._actors)
            while queue or in_flight:
                while queue and idle:
                    actor = idle.pop()
                    run_id, item_id = queue.popleft()
                    flight = _Flight(actor, run_id, item_id, runs[run_id].attempt_id(item_id))
                    in_flight[actor.handle.work.remote(run_id, item_id)] = flight
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=self.POLL_S)
                for ref in ready:
                    flight = in_flight.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayActorError as exc:
                        self._release(flight)
                        idle.append(self._replace(flight.actor, exc))
                        queue.appendleft((flight.run_id, flight.item_id))
                        continue
                    except ray.exceptions.RayTaskError as exc:  # the attempt's own error, as the thread pool has it
                        cause = getattr(exc, "cause", None)
                        raise (cause if isinstance(cause, Exception) else exc) from None
                    idle.append(flight.actor)
                    record(result)
        except KeyboardInterrupt:
            try:
                on_interrupt()
                abandoned = self._stop_in_flight(in_flight, record, grace_s)
            finally:
                self._kill_actors()
            raise BatchInterrupted(abandoned) from None
        except BaseException:
            self._kill_actors()
            raise

    def finish_batch(self) -> dict[str, dict[str, Any]]:
        """Stop the actors; returns the LLM usage they spent, per run id (an actor that died took its usage
        with it)."""
        if not self._actors:
            return {}
        ray = self._ray
        spent: dict[str, UsageLedger] = {}
        for actor in self._actors:
            try:
                usage = ray.get(actor.handle.usage.remote())
                ray.get(actor.handle.close.remote())
            except ray.exceptions.RayActorError:  # it died after its last attempt
                continue
            for run_id, counters in usage.items():
                spent.setdefault(run_id, UsageLedger()).merge(UsageLedger.from_dict(counters))
        self._kill_actors()
        return {run_id: ledger.as_dict() for run_id, ledger in spent.items()}

    def _stop_in_flight(
        self, in_flight: dict[Any, _Flight], record: Callable[[AttemptResult], None], grace_s: float
    ) -> int:
        """Ctrl-C: every actor stops sending requests; attempts in flight get `grace_s` seconds to finish (their
        results are recorded); the claims of the others are released once their actors are killed. Returns how
        many were abandoned."""
        ray = self._ray
        for actor in self._actors:
            actor.handle.interrupt.remote()
        deadline = time.monotonic() + grace_s
        while in_flight and time.monotonic() < deadline:
            ready, _ = ray.wait(list(in_flight), num_returns=len(in_flight), timeout=self.POLL_S)
            for ref in ready:
                in_flight.pop(ref)
                try:
                    record(ray.get(ref))
                except ray.exceptions.RayError:
                    continue  # died or failed while stopping: nothing of it was written
        abandoned = list(in_flight.values())
        self._kill_actors()
        for flight in abandoned:
            self._release(flight)
        return len(abandoned)

    def _release(self, flight: _Flight) -> None:
        """Release the claim a dead or killed actor left on its attempt (so nobody waits for the expiry)."""
        self.claims.release_for(flight.actor.worker, flight.run_id, flight.item_id, flight.attempt_id)
