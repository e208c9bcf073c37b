"""Executing a planned batch: memory and state preparation, then every (method, item) attempt with bounded
concurrency, each answered and judged, everything written as events.

Resumable: an attempt whose AttemptFinished says `answered` is never answered again, and a judgment whose id
exists is never asked again; attempts that ended in `error` (the endpoint failed after every retry) are answered
again. All events of one answer (AttemptStarted, tool calls, answer, AttemptFinished) are appended in one
transaction, so a process killed mid-attempt leaves no trace of it and the attempt simply runs again.
One attempt's work is in agents/runs/attempt.py; the graph reads in agents/runs/state.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agents.answerer import AgentTask, AnsweringAgent
from agents.judging.reference import MaterialSource
from agents.llm.accounting import UsageLedger
from agents.llm.roles import LLMRoles
from agents.memory.prepare import prepare_memory
from agents.memory.registry import get_memory_system
from agents.memory.state_summary import summarize_profile
from agents.prompts.registry import PromptSet
from agents.runs.attempt import attempt_complete, process_attempt
from agents.runs.plan import BatchPlan, PlannedRun, run_seeds
from agents.runs.record import library_versions
from agents.runs.state import item_contexts, memory_build_costs, profile_states, run_progress
from agents.tools.execution import SearchBackend
from graph.events import NewEvent, RunFinished, RunStarted
from graph.store import EventStore


class BatchProgress(Protocol):
    """Where the runner reports progress (the CLI shows rich bars; tests pass nothing)."""

    def stage(self, text: str) -> None: ...

    def run_started(self, run_id: str, label: str, total: int, done: int) -> None: ...

    def item_done(self, run_id: str) -> None: ...


class _Silent:
    def stage(self, text: str) -> None:
        return

    def run_started(self, run_id: str, label: str, total: int, done: int) -> None:
        return

    def item_done(self, run_id: str) -> None:
        return


@dataclass
class RunSummary:
    run_id: str
    method: str
    status: str
    counts: dict[str, int]


@dataclass
class BatchReport:
    batch_id: str
    runs: list[RunSummary]
    usage: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    timings: dict[str, list[dict[str, float]]] = field(default_factory=dict)


def execute_batch(
    store: EventStore,
    retriever: SearchBackend,
    plan: BatchPlan,
    roles: LLMRoles,
    prompts: PromptSet,
    *,
    concurrency: int = 4,
    progress: BatchProgress | None = None,
) -> BatchReport:
    """Run (or resume) every run of the batch; returns per-run status and counts, and LLM usage."""
    progress = progress or _Silent()
    judges = plan.options.judges
    notes: list[str] = []
    profiles = sorted(set(plan.profiles.values()))

    systems = sorted({r.method.memory_system for r in plan.runs if r.method.memory_system})
    for system in systems:
        progress.stage(f"memory ({system}) for {len(profiles)} profile(s)")
        linked = any(r.method.needs_memory_links for r in plan.runs if r.method.memory_system == system)
        llm = roles.client("memory") if get_memory_system(system).needs_llm else None
        for profile_id in profiles:
            prepare_memory(system, store, retriever, profile_id, llm=llm, links=linked)
    memory_costs = {system: memory_build_costs(store, system, profiles) for system in systems}

    summaries: dict[str, str] = {}
    if any(r.method.needs_states for r in plan.runs):
        progress.stage(f"state summaries S(H) for {len(profiles)} profile(s)")
        state_llm = roles.client("state")
        for profile_id in profiles:
            summary = summarize_profile(store, state_llm, prompts, profile_id)
            summaries[profile_id] = summary.summary_id
            if summary.n_states == 0:
                notes.append(f"the state summary of profile {profile_id} is empty (the model listed no states)")

    contexts = item_contexts(store, plan.item_ids)
    cut = [c.item_id for c in contexts.values() if c.before_turn_id is not None]
    if cut:
        notes.append(
            f"{len(cut)} item(s) have history after the request: memory searches stop at the request, but the "
            "state summary covers the whole history"
        )
    states = {p: profile_states(store, p) for p in profiles} if summaries else {}

    agents: dict[str, AnsweringAgent] = {}
    ledgers = {run.run_id: UsageLedger() for run in plan.runs}
    done_before: dict[str, dict[str, dict[str, Any]]] = {}
    head = store.head()
    versions = library_versions(store.driver, store.database)
    for run in plan.runs:
        answerer = roles.client("answerer", ledgers[run.run_id])
        for role in run.roles:
            roles.client(role, ledgers[run.run_id])  # fail early, naming the missing setting
        agents[run.run_id] = AnsweringAgent(run.method, answerer, retriever, prompts, plan.options.budget)
        progress_state = run_progress(store, run.run_id)
        if not progress_state["exists"]:
            store.append(
                [
                    NewEvent(
                        RunStarted(
                            run_id=run.run_id,
                            method=run.method.name,
                            dataset=plan.dataset,
                            batch_id=plan.batch_id,
                            item_ids=plan.item_ids,
                            config={
                                "method": run.method.model_dump(mode="json"),
                                "budget": plan.options.budget.model_dump(),
                                "judges": list(judges),
                                "batch": plan.config,
                                "state_summaries": summaries if run.method.needs_states else {},
                                "memory_system": run.method.memory_system,
                                "memory_build": memory_costs.get(run.method.memory_system or "", {}),
                                "notes": notes,
                            },
                            models=roles.public_records(list(run.roles)),
                            prompt_hashes=prompts.records(run.prompt_names),
                            seeds=run_seeds(roles, run.roles),
                            versions=versions,
                            dataset_fingerprint=head.hash,
                            dataset_head_seq=head.seq,
                        ),
                        actor="runner",
                    )
                ]
            )
        done_before[run.run_id] = {a["item_id"]: a for a in progress_state["attempts"]}

    pending: dict[str, set[str]] = {}
    for run in plan.runs:
        pending[run.run_id] = {
            item_id
            for item_id in plan.item_ids
            if not attempt_complete(done_before[run.run_id].get(item_id), run, item_id, judges, roles, prompts)
        }
        done = len(plan.item_ids) - len(pending[run.run_id])
        progress.run_started(run.run_id, run.method.label, len(plan.item_ids), done)
    tasks = [(run, item_id) for item_id in plan.item_ids for run in plan.runs if item_id in pending[run.run_id]]

    materials = MaterialSource(store.driver, store.database)
    timings: dict[str, list[dict[str, float]]] = {r.run_id: [] for r in plan.runs}
    timings_lock = threading.Lock()

    def work(run: PlannedRun, item_id: str) -> None:
        ctx = contexts[item_id]
        task = AgentTask(
            item_id=item_id,
            profile_id=ctx.profile_id,
            question=ctx.question,
            asked_at=ctx.asked_at,
            before_turn_id=ctx.before_turn_id,
            states=tuple(states.get(ctx.profile_id, ())) if run.method.state_in_prompt else (),
        )
        previous = done_before[run.run_id].get(item_id) or {}
        measured = process_attempt(
            store,
            run,
            agents[run.run_id],
            task,
            previous,
            judges,
            roles.client("judge", ledgers[run.run_id]) if judges else None,
            roles,
            prompts,
            materials,
        )
        with timings_lock:
            timings[run.run_id].append(measured)
        progress.item_done(run.run_id)

    _run_pool(tasks, work, concurrency)

    summaries_out = [
        _finish_run(
            store, run, plan, judges, roles, prompts, usage=ledgers[run.run_id], did_work=bool(pending[run.run_id])
        )
        for run in plan.runs
    ]
    return BatchReport(
        batch_id=plan.batch_id, runs=summaries_out, usage=roles.total_usage(), notes=notes, timings=timings
    )


def _run_pool(tasks: list[tuple[PlannedRun, str]], work: Callable[[PlannedRun, str], None], concurrency: int) -> None:
    """Run the attempts, at most `concurrency` at a time. On the first unexpected error, or Ctrl-C, queued
    attempts are dropped and the ones in flight finish (each writes its events atomically) before it raises."""
    if concurrency <= 1:
        for run, item_id in tasks:
            work(run, item_id)
        return
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="attempt")
    try:
        futures: list[Future[None]] = [pool.submit(work, run, item_id) for run, item_id in tasks]
        finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for future in finished:
            error = future.exception()
            if error is not None:
                raise error
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _finish_run(
    store: EventStore,
    run: PlannedRun,
    plan: BatchPlan,
    judges: tuple[str, ...],
    roles: LLMRoles,
    prompts: PromptSet,
    *,
    usage: UsageLedger,
    did_work: bool,
) -> RunSummary:
    state = run_progress(store, run.run_id)
    attempts = {a["item_id"]: a for a in state["attempts"]}
    counts = {
        "items": len(plan.item_ids),
        "answered": sum(1 for a in attempts.values() if a["status"] == "answered"),
        "errors": sum(1 for a in attempts.values() if a["status"] == "error"),
        "not_started": sum(1 for i in plan.item_ids if i not in attempts),
        "pass": sum(1 for a in attempts.values() if a["verdict"] == "pass"),
        "fail": sum(1 for a in attempts.values() if a["verdict"] == "fail"),
        "needs_adjudication": sum(1 for a in attempts.values() if a["verdict"] == "needs_adjudication"),
    }
    counts["complete"] = sum(
        1 for i in plan.item_ids if attempt_complete(attempts.get(i), run, i, judges, roles, prompts)
    )
    status: Literal["finished", "incomplete"] = "finished" if counts["complete"] == len(plan.item_ids) else "incomplete"
    if did_work or state["status"] != status:
        # Usage accumulates over invocations (a resumed run adds what this invocation spent).
        total = UsageLedger.from_dict(state["usage"])
        total.merge(usage)
        store.append(
            [
                NewEvent(
                    RunFinished(run_id=run.run_id, status=status, counts=counts, usage=total.as_dict()),
                    actor="runner",
                )
            ]
        )
    return RunSummary(run_id=run.run_id, method=run.method.name, status=status, counts=counts)
