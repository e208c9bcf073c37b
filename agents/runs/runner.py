"""Executing a planned batch: memory and state preparation, then every (method, item) attempt with bounded
concurrency, each answered and judged, everything written as events.

Resumable: an attempt whose AttemptFinished says `answered` is never answered again, and a judgment whose id
exists is never asked again; attempts whose last try failed (AttemptFailed: the endpoint failed after every retry)
are answered again. Each attempt has at most one AttemptFinished and each run at most one RunFinished (a pass that
leaves work undone ends with RunLeftIncomplete). All events of one answer (AttemptStarted, tool calls, answer,
AttemptFinished) are appended in one transaction, so a process killed mid-attempt leaves no trace of it and the
attempt simply runs again; in-process they are appended by a background writer while the next attempt runs
(agents/runs/event_writer.py), so a killed process also loses the finished attempts still queued, run again too.
One attempt's work is in agents/runs/attempt.py, a worker's share of the attempts in agents/runs/attempt_worker.py
(this process's threads, or Ray actors: agents/runs/ray_executor.py); the graph reads in agents/runs/state.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from neo4j import ManagedTransaction

from agents.llm.accounting import UsageLedger
from agents.llm.errors import LLMError, LLMInterruptedError
from agents.llm.prices import price_record
from agents.llm.roles import LLMRoles
from agents.memory.errors import MemorySystemError, retryable_cause
from agents.memory.prepare import build_profiles
from agents.memory.rankers import sdk_rankers
from agents.memory.registry import get_memory_system
from agents.memory.state_summary import summarize_profile
from agents.prompts.registry import PromptSet
from agents.runs.attempt import AttemptOutcome, attempt_complete
from agents.runs.attempt_worker import (
    AttemptResult,
    AttemptSetup,
    AttemptWorker,
    FailedPrerequisite,
    needs_prerequisite,
    refused_before,
)
from agents.runs.claims import Claims
from agents.runs.failure_ids import failure_id, next_try_number
from agents.runs.plan import BatchPlan, PlannedRun, run_seeds
from agents.runs.record import library_versions
from agents.runs.state import memory_build_costs, run_progress
from agents.runs.tokenizer import answerer_tokenizer
from agents.tools.execution import SearchBackend
from graph.cypher_files import load_cypher
from graph.errors import UsageError
from graph.events import EndpointFailed, NewEvent, RunFinished, RunLeftIncomplete, RunStarted
from graph.store import AppendGuard, EventStore
from query.recipes import keyword_channel_record

__all__ = ["BatchInterrupted", "BatchReport", "FailedPrerequisite", "RunSummary", "execute_batch"]


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
    # this invocation's LLM usage of the run (UsageLedger.as_dict(); the run record sums every invocation's)
    usage: dict[str, Any] = field(default_factory=dict)


@dataclass
class BatchReport:
    batch_id: str
    runs: list[RunSummary]
    usage: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    timings: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    # Endpoint failures of this invocation: per role, and each (role, stage, retryable, error text).
    errors_by_role: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Why the batch stopped before its work was done (a spending limit: "budget reached: ..."); None otherwise.
    stopped: str | None = None

    @property
    def failed(self) -> bool:
        """Some attempt of the batch is in error, or an endpoint failed in this invocation."""
        return bool(self.errors_by_role) or any(r.counts.get("errors", 0) for r in self.runs)

    @property
    def rerun_helps(self) -> bool:
        """Running the same command again can change something: no failure of this invocation was a refusal
        (HTTP 400/401/403/404 repeat identically; fix the request or settings, then use --retry-failed)."""
        return all(f["retryable"] for f in self.failures)


class AttemptExecutor(Protocol):
    """Somewhere other than this process's threads where attempts run (the Ray executor), each of its workers
    claiming its attempts; `record` is called here, in this process, with every attempt's result."""

    def run_attempts(
        self,
        setup: AttemptSetup,
        tasks: Sequence[tuple[str, str]],
        record: Callable[[AttemptResult], None],
        *,
        on_interrupt: Callable[[], None],
        grace_s: float,
    ) -> None: ...

    def finish_batch(self) -> dict[str, dict[str, Any]]:
        """Stop the executor's workers of this batch; returns the LLM usage they spent, per run id
        (UsageLedger.as_dict())."""
        ...


class BatchInterrupted(Exception):
    """Ctrl-C stopped the batch: no new request was sent; `abandoned` attempts were still waiting for the
    endpoint after the grace period (nothing of them is written: each attempt's events are one transaction)."""

    def __init__(self, abandoned: int) -> None:
        super().__init__(f"interrupted ({abandoned} attempt(s) abandoned in flight)")
        self.abandoned = abandoned


def execute_batch(
    store: EventStore,
    retriever: SearchBackend,
    plan: BatchPlan,
    roles: LLMRoles,
    prompts: PromptSet,
    *,
    concurrency: int = 4,
    progress: BatchProgress | None = None,
    retry_failed: bool = False,
    grace_s: float = 5.0,
    claims: Claims | None = None,
    executor: AttemptExecutor | None = None,
) -> BatchReport:
    """Run (or resume) every run of the batch; returns per-run status and counts, and LLM usage.

    With `claims` this process is one of several workers on the batch (agents/runs/claims.py): each attempt is
    claimed before it starts and skipped while another worker holds it; the worker then waits for the attempts
    others hold (taking over those whose claim expires) before it ends the runs. With `executor` (the Ray
    executor) the attempts run there, each of its workers claiming them; `claims` is then this process's, used to
    read what other workers hold.

    A state summary or memory build that fails for a profile fails only the attempts that need it (with the
    reason); attempts whose endpoint refused the request are tried again only with `retry_failed`. On Ctrl-C
    no new request is sent, attempts in flight get `grace_s` seconds, and BatchInterrupted is raised."""
    if executor is not None and claims is None:
        raise UsageError("an attempt executor needs claims: its workers claim each attempt before working on it")
    progress = progress or _Silent()
    judges = plan.options.judges
    notes: list[str] = []
    profiles = sorted(set(plan.profiles.values()))
    failed: dict[tuple[str, str], FailedPrerequisite] = {}
    # Prerequisites are built only for profiles with an attempt still to answer: one that is done, or that the
    # endpoint refused (skipped without retry_failed), or answered and waiting on judges needs none of them.
    to_answer = _attempts_to_answer(store, plan, roles, prompts, retry_failed)

    def needing(consumers: list[PlannedRun], what: str) -> list[str]:
        wanted = sorted({plan.profiles[i] for r in consumers for i in to_answer[r.run_id]})
        if len(wanted) < len(profiles):
            notes.append(
                f"{what}: {len(profiles) - len(wanted)} of {len(profiles)} profile(s) not built this time (every "
                "attempt needing them is done, refused earlier, or only waits on judges)"
            )
        return wanted

    systems = sorted({r.method.memory_system for r in plan.runs if r.method.memory_system})
    for system in systems:
        users = [r for r in plan.runs if r.method.memory_system == system]
        memory_profiles = needing(users, f"memory ({system})")
        if not memory_profiles:
            continue
        progress.stage(f"memory ({system}) for {len(memory_profiles)} profile(s)")
        linked = any(r.method.needs_memory_links for r in plan.runs if r.method.memory_system == system)
        llm = roles.client("memory") if get_memory_system(system).needs_llm else None
        stage = f"memory:{system}"

        def memory_failed(profile_id: str, exc: Exception, stage: str = stage) -> None:
            if _stopped_by(exc):  # a spending limit stopped the build: not a failure, the rerun continues it
                return
            failed[(profile_id, stage)] = FailedPrerequisite(
                profile_id, stage, "memory", str(exc)[:2000], retryable_cause(exc)
            )

        recoverable = (LLMError, MemorySystemError)
        try:
            build_profiles(
                system, store, retriever, memory_profiles, llm=llm, links=linked, on_error=memory_failed,
                recoverable=recoverable, ledger=roles.ledger,
            )
        except recoverable as exc:  # the system could not be opened: every profile's memory is missing
            for profile_id in memory_profiles:
                memory_failed(profile_id, exc)
    memory_costs = {system: memory_build_costs(store, system, profiles) for system in systems}
    memory_deviations = {system: get_memory_system(system).deviations() for system in systems}

    summaries: dict[str, str] = {}
    state_users = [r for r in plan.runs if r.method.needs_states]
    state_profiles = needing(state_users, "state summaries") if state_users else []
    if state_profiles:
        progress.stage(f"state summaries S(H) for {len(state_profiles)} profile(s)")
        state_llm = roles.client("state")
        for profile_id in state_profiles:
            try:
                summary = summarize_profile(store, state_llm, prompts, profile_id)
            except LLMInterruptedError:
                break  # a spending limit: no summary is written for it, the rerun makes it
            except LLMError as exc:
                failed[(profile_id, "state_summary")] = FailedPrerequisite(
                    profile_id, "state_summary", "state", str(exc)[:2000], exc.retryable
                )
                continue
            summaries[profile_id] = summary.summary_id
            if summary.n_states == 0:
                notes.append(f"the state summary of profile {profile_id} is empty (the model listed no states)")

    if roles.budget_reason is not None:
        # A spending limit was reached while preparing: no run is started or ended (nothing more is written)
        # and the rerun builds what is missing, then answers.
        return BatchReport(
            batch_id=plan.batch_id,
            runs=[_unfinished(store, run, plan, roles, prompts) for run in plan.runs],
            usage=roles.total_usage(),
            notes=notes,
            stopped=roles.budget_reason,
        )
    # Read's and A-MEM's token limits count in the answering model's tokens: probe its tokenizer once per run.
    tokenizer = answerer_tokenizer(roles)
    if tokenizer.note() is not None:
        notes.append(str(tokenizer.note()))
        progress.stage(str(tokenizer.note()))
    setup = AttemptSetup(
        plan=plan,
        failed=tuple(failed.values()),
        summarized=bool(summaries),
        retry_failed=retry_failed,
        tokenizer=tokenizer,
    )
    done_before: dict[str, dict[str, dict[str, Any]]] = {}  # filled below, before any attempt runs
    worker = AttemptWorker(store, retriever, roles, prompts, setup, claims=claims, done_before=done_before)
    cut = [c.item_id for c in worker.contexts.values() if c.before_turn_id is not None]
    if cut:
        notes.append(
            f"{len(cut)} item(s) have history after the request: memory searches and the state list stop at the "
            "request (states drawn from later turns are left out)"
        )
    panel_models = worker.panel_models
    panels = worker.panels
    head = store.head()
    versions = library_versions(store.driver, store.database)
    for run in plan.runs:
        progress_state = run_progress(store, run.run_id)
        if not progress_state["exists"]:
            store.append(
                guard=None if claims is None else _run_absent(run.run_id),
                events=[
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
                                **({"judge_models": list(plan.options.judge_models)} if panel_models else {}),
                                "batch": plan.config,
                                "state_summaries": summaries if run.method.needs_states else {},
                                "memory_system": run.method.memory_system,
                                "memory_build": memory_costs.get(run.method.memory_system or "", {}),
                                "memory_deviations": memory_deviations.get(run.method.memory_system or "", []),
                                "notes": notes,
                                "llm_cache_namespace": roles.cache_namespace,
                                # each role's context per slot when the run started (None: the server did not say)
                                "context_tokens": {
                                    role: roles.client(role).context_tokens
                                    for role in run.roles
                                    if roles.configured(role)
                                },
                                "tokenizer": tokenizer.record(),
                                # each search recipe's keyword channel: analyzer, stop words, stemming
                                "keyword_channel": keyword_channel_record(run.method.recipes()),
                                # USD per 1M tokens of the run's models, as [llm.prices] said when it started
                                "prices": price_record(
                                    roles.prices,
                                    [str(roles.settings[r].model) for r in run.roles if roles.configured(r)]
                                    + list(plan.options.judge_models[1:]),
                                ),
                            },
                            models={
                                **roles.public_records(list(run.roles)),
                                # the judge panel's other models, one entry each (`judge@<model>`)
                                **{f"judge@{c.model}": c.settings.public_record() for c in panels[run.run_id]},
                            },
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
        run_failures = [
            NewEvent(
                EndpointFailed(
                    failure_id=failure_id(  # content-derived: a resumed batch never records the same try twice
                        run.run_id, f.role, f.stage, profile_id=f.profile_id,
                        try_number=next_try_number(store, run.run_id, f.role, f.stage, profile_id=f.profile_id),
                    ),
                    run_id=run.run_id,
                    profile_id=f.profile_id,
                    role=f.role,
                    stage=f.stage,
                    error=f.error,
                    retryable=f.retryable,
                ),
                actor="runner",
            )
            for f in failed.values()
            if needs_prerequisite(run, f) and f.profile_id in {plan.profiles[i] for i in plan.item_ids}
        ]
        if run_failures:
            store.append(run_failures)
        done_before[run.run_id] = {a["item_id"]: a for a in progress_state["attempts"]}

    pending: dict[str, set[str]] = {}
    for run in plan.runs:
        pending[run.run_id] = {
            item_id
            for item_id in plan.item_ids
            if not attempt_complete(
                done_before[run.run_id].get(item_id), run, item_id, judges, roles, prompts, panel_models
            )
            and (retry_failed or not refused_before(done_before[run.run_id].get(item_id)))
        }
        refused = sum(
            1
            for i in plan.item_ids
            if refused_before(done_before[run.run_id].get(i))
            and not attempt_complete(done_before[run.run_id].get(i), run, i, judges, roles, prompts, panel_models)
        )
        if refused and not retry_failed:
            notes.append(
                f"{run.method.name}: {refused} attempt(s) the endpoint refused earlier were not tried again "
                "(use --retry-failed once the cause is fixed)"
            )
        done = len(plan.item_ids) - len(pending[run.run_id])
        progress.run_started(run.run_id, run.method.label, len(plan.item_ids), done)
    tasks = [(run, item_id) for item_id in plan.item_ids for run in plan.runs if item_id in pending[run.run_id]]

    timings: dict[str, list[dict[str, float]]] = {r.run_id: [] for r in plan.runs}
    outcomes: dict[str, list[AttemptOutcome]] = {r.run_id: [] for r in plan.runs}
    results_lock = threading.Lock()
    held_elsewhere: list[tuple[PlannedRun, str]] = []  # worker mode: attempts another worker held when tried
    tried: set[str] = set()  # worker mode: attempts claimed here (each is worked on once per invocation)

    def record(result: AttemptResult) -> None:
        run = worker.runs[result.run_id]
        with results_lock:
            if result.held:
                held_elsewhere.append((run, result.item_id))
                return
            if result.claimed:
                tried.add(run.attempt_id(result.item_id))
            if result.outcome is not None:
                timings[run.run_id].append(result.outcome.measured)
                outcomes[run.run_id].append(result.outcome)
            notes.extend(result.notes)
        if result.done:
            progress.item_done(run.run_id)

    def dispatch(batch: list[tuple[PlannedRun, str]]) -> None:
        if executor is None:
            with worker.writing():  # events appended behind the attempts, all written when it ends
                _run_pool(
                    batch, lambda run, item_id: record(worker.work(run.run_id, item_id)), concurrency,
                    on_interrupt=roles.interrupt, grace_s=grace_s,
                )
        else:
            executor.run_attempts(
                setup, [(run.run_id, item_id) for run, item_id in batch], record,
                on_interrupt=roles.interrupt, grace_s=grace_s,
            )

    # Recipes that rank with a memory system's own search (Graphiti) need that search open while attempts run.
    with sdk_rankers(store, {r.method.memory_system for r in plan.runs}):
        if claims is None:
            dispatch(tasks)
        else:
            with claims:
                dispatch(tasks)
                _wait_for_others(claims, held_elsewhere, tried, dispatch, progress, on_interrupt=roles.interrupt)
    if executor is not None:  # what the executor's workers spent counts in the runs' records
        for run_id, spent in executor.finish_batch().items():
            worker.ledgers[run_id].merge(UsageLedger.from_dict(spent))

    summaries_out = [
        _finish_run(
            store, run, plan, judges, roles, prompts, usage=worker.ledgers[run.run_id],
            did_work=bool(pending[run.run_id]), claims=claims, notes=notes, reason=roles.budget_reason,
        )
        for run in plan.runs
    ]
    errors_by_role: dict[str, int] = {}
    failures: list[dict[str, Any]] = []
    for f in failed.values():
        errors_by_role[f.role] = errors_by_role.get(f.role, 0) + 1
        failures.append({"role": f.role, "stage": f.stage, "retryable": f.retryable, "error": f.error})
    for run_outcomes in outcomes.values():
        for outcome in run_outcomes:
            for role, stage, retryable, error in outcome.failures:
                errors_by_role[role] = errors_by_role.get(role, 0) + 1
                failures.append({"role": role, "stage": stage, "retryable": retryable, "error": error})
    return BatchReport(
        batch_id=plan.batch_id,
        runs=summaries_out,
        usage=roles.total_usage(),
        notes=notes,
        timings=timings,
        errors_by_role=errors_by_role,
        failures=failures,
        warnings=_warnings(plan, outcomes),
        # a refused request always leaves work undone; said only then all the same
        stopped=roles.budget_reason if any(r.status != "finished" for r in summaries_out) else None,
    )


def _stopped_by(exc: BaseException) -> bool:
    """Whether `exc` or an error in its cause chain is an LLMInterruptedError (Ctrl-C or a spending limit; a
    memory SDK wraps the client's error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, LLMInterruptedError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _unfinished(store: EventStore, run: PlannedRun, plan: BatchPlan, roles: LLMRoles, prompts: PromptSet) -> RunSummary:
    """A run this invocation did not get to (read only): its attempts so far."""
    attempts = {a["item_id"]: a for a in run_progress(store, run.run_id)["attempts"]}
    answered = sum(1 for a in attempts.values() if a["status"] == "answered")
    counts = {
        "items": len(plan.item_ids),
        "answered": answered,
        "errors": sum(1 for a in attempts.values() if a["status"] == "error"),
        "not_started": sum(1 for i in plan.item_ids if i not in attempts),
        "pass": sum(1 for a in attempts.values() if a["verdict"] == "pass"),
        "fail": sum(1 for a in attempts.values() if a["verdict"] == "fail"),
        "needs_adjudication": sum(1 for a in attempts.values() if a["verdict"] == "needs_adjudication"),
        "complete": sum(
            1 for i in plan.item_ids
            if attempt_complete(
                attempts.get(i), run, i, plan.options.judges, roles, prompts, plan.options.judge_models[1:]
            )
        ),
    }
    return RunSummary(run_id=run.run_id, method=run.method.name, status="incomplete", counts=counts)


def _warnings(plan: BatchPlan, outcomes: dict[str, list[AttemptOutcome]]) -> list[str]:
    """What the endpoint silently did wrong in this invocation: tools offered but never called, answers cut
    by max_tokens, tool calls left as text."""
    out: list[str] = []
    for run in plan.runs:
        answered = [o for o in outcomes[run.run_id] if o.answered]
        if not answered:
            continue
        name = run.method.name
        if run.method.tools and plan.options.budget.max_tool_rounds > 0 and not any(o.tool_calls for o in answered):
            out.append(
                f"{name}: tools were offered but the endpoint returned no tool call in any of {len(answered)} "
                "answered attempt(s); does the server's chat template support tools?"
            )
        for flag, what in (
            ("cut_by_length", "cut off at max_tokens (finish_reason 'length')"),
            ("looks_like_tool_call", "text that looks like an unparsed tool call"),
            ("not_an_answer", "empty or a JSON fragment that does not parse (cut off)"),
        ):
            n = sum(1 for o in answered if flag in o.flags)
            if n:
                out.append(f"{name}: {n} answer(s) are {what}; flagged `{flag}`")
    return out


def _run_pool(
    tasks: list[tuple[PlannedRun, str]],
    work: Callable[[PlannedRun, str], None],
    concurrency: int,
    *,
    on_interrupt: Callable[[], None] = lambda: None,
    grace_s: float = 5.0,
) -> None:
    """Run the attempts in worker threads, at most `concurrency` at a time (the main thread only waits, so
    Ctrl-C never lands inside a write). On the first unexpected error, queued attempts are dropped and the
    ones in flight finish before it raises. On Ctrl-C, `on_interrupt` stops new requests, queued attempts are
    dropped, and the ones in flight get `grace_s` seconds before BatchInterrupted is raised."""
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="attempt")
    futures: list[Future[None]] = []
    interrupted = False
    try:
        futures = [pool.submit(work, run, item_id) for run, item_id in tasks]
        while True:
            finished, running = wait(futures, timeout=0.5, return_when=FIRST_EXCEPTION)
            for future in finished:
                error = future.exception()
                if error is not None:
                    raise error
            if not running:
                return
    except KeyboardInterrupt:
        interrupted = True
        on_interrupt()
        for future in futures:
            future.cancel()
        _, still = wait(futures, timeout=grace_s)
        pool.shutdown(wait=False, cancel_futures=True)
        raise BatchInterrupted(len(still)) from None
    finally:
        if not interrupted:
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
    claims: Claims | None = None,
    notes: list[str] | None = None,
    reason: str | None = None,
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
    counts["cut_by_length"] = sum(1 for a in attempts.values() if "cut_by_length" in (a.get("flags") or []))
    counts["looks_like_tool_call"] = sum(
        1 for a in attempts.values() if "looks_like_tool_call" in (a.get("flags") or [])
    )
    counts["not_an_answer"] = sum(1 for a in attempts.values() if "not_an_answer" in (a.get("flags") or []))
    counts["complete"] = sum(
        1 for i in plan.item_ids
        if attempt_complete(attempts.get(i), run, i, judges, roles, prompts, plan.options.judge_models[1:])
    )
    status: Literal["finished", "incomplete"] = "finished" if counts["complete"] == len(plan.item_ids) else "incomplete"
    if (did_work or state["status"] != status) and state["status"] != "finished":
        # One RunFinished per run: a finished run is never ended again. Usage accumulates over invocations (a
        # resumed run adds what this invocation spent).
        total = UsageLedger.from_dict(state["usage"])
        total.merge(usage)
        ended: RunFinished | RunLeftIncomplete = (
            RunFinished(run_id=run.run_id, status="finished", counts=counts, usage=total.as_dict())
            if status == "finished"
            else RunLeftIncomplete(run_id=run.run_id, counts=counts, usage=total.as_dict(), reason=reason)
        )
        guard = None if claims is None or status != "finished" else _run_not_finished(run.run_id)
        if store.append([NewEvent(ended, actor="runner")], guard=guard).refused and notes is not None:
            notes.append(
                f"{run.method.name}: another worker ended the run first; this worker's LLM usage "
                f"({usage.as_dict().get('total', {}).get('calls', 0)} calls) is not in the run's record"
            )
    return RunSummary(run_id=run.run_id, method=run.method.name, status=status, counts=counts, usage=usage.as_dict())


def _run_absent(run_id: str) -> AppendGuard:
    """Worker mode: only the first worker records the run's RunStarted."""

    def check(tx: ManagedTransaction) -> bool:
        record = tx.run(load_cypher("agents/run_finished"), run_id=run_id).single()
        return record is None or not record["exists"]

    return check


def _run_not_finished(run_id: str) -> AppendGuard:
    """Worker mode: one RunFinished per run, whichever worker ends it first."""

    def check(tx: ManagedTransaction) -> bool:
        record = tx.run(load_cypher("agents/run_finished"), run_id=run_id).single()
        return record is None or not record["finished"]

    return check


def _wait_for_others(
    claims: Claims,
    held: list[tuple[PlannedRun, str]],
    tried: set[str],
    dispatch: Callable[[list[tuple[PlannedRun, str]]], None],
    progress: BatchProgress,
    *,
    on_interrupt: Callable[[], None],
) -> None:
    """Worker mode, after this worker's pass: wait for the attempts other workers held. One whose claim was
    released is settled (its worker is done with it); one whose claim expired unreleased (a dead worker) is taken
    over (`dispatch` runs it again). Polls at least every ttl/4 seconds (at most 2 s)."""
    poll_s = min(2.0, claims.ttl_s / 4)
    announced = False
    while held:
        waiting = list(held)
        held.clear()
        states = claims.states([run.attempt_id(item_id) for run, item_id in waiting])
        now = claims.clock()
        again: list[tuple[PlannedRun, str]] = []
        soonest: float | None = None
        for run, item_id in waiting:
            state = states.get(run.attempt_id(item_id))
            if state is not None and state.state == "released" and state.worker != claims.worker:
                progress.item_done(run.run_id)
            elif state is not None and state.held_by_other(claims.worker, now):
                held.append((run, item_id))
                if state.expires_at is not None:
                    left = (state.expires_at - now).total_seconds()
                    soonest = left if soonest is None else min(soonest, left)
            elif run.attempt_id(item_id) not in tried:
                again.append((run, item_id))
        if again:
            dispatch(again)
        elif held:
            if not announced:
                progress.stage(f"waiting for {len(held)} attempt(s) other workers hold (or for their claims to expire)")
                announced = True
            try:
                time.sleep(max(0.05, min(poll_s, soonest if soonest is not None else poll_s)))
            except KeyboardInterrupt:
                on_interrupt()
                raise BatchInterrupted(0) from None


def _attempts_to_answer(
    store: EventStore, plan: BatchPlan, roles: LLMRoles, prompts: PromptSet, retry_failed: bool
) -> dict[str, set[str]]:
    """Per run, the items whose attempt this invocation will answer (not only judge): not complete, not
    answered yet, and not refused before (unless `retry_failed`). Their profiles are the ones whose
    prerequisites (memory builds, state summaries) are built."""
    out: dict[str, set[str]] = {}
    panel_models = plan.options.judge_models[1:]
    for run in plan.runs:
        attempts = {a["item_id"]: a for a in run_progress(store, run.run_id)["attempts"]}
        out[run.run_id] = {
            item_id
            for item_id in plan.item_ids
            if (previous := attempts.get(item_id)) is None
            or (
                previous.get("status") != "answered"
                and not attempt_complete(previous, run, item_id, plan.options.judges, roles, prompts, panel_models)
                and (retry_failed or not refused_before(previous))
            )
        }
    return out
