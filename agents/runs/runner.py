"""Executing a planned batch: memory and state preparation, then every (method, item) attempt with bounded
concurrency, each answered and judged, everything written as events.

Resumable: an attempt whose AttemptFinished says `answered` is never answered again, and a judgment whose id
exists is never asked again; attempts whose last try failed (AttemptFailed: the endpoint failed after every retry)
are answered again. Each attempt has at most one AttemptFinished and each run at most one RunFinished (a pass that
leaves work undone ends with RunLeftIncomplete). All events of one answer (AttemptStarted, tool calls, answer,
AttemptFinished) are appended in one transaction, so a process killed mid-attempt leaves no trace of it and the
attempt simply runs again; in-process they are appended by a background writer while the next attempt runs
(agents/runs/event_writer.py), so a killed process also loses the finished attempts still queued, run again too.
`execute_batch` runs named steps: prepare the profiles (memory builds and state summaries:
agents/runs/prerequisites.py), open the attempt worker, start the runs, list the attempts still to do, run them,
end the runs. One attempt's work is in agents/runs/attempt.py (its judging in agents/judging/attempt_judge.py and
agents/judging/panel.py), a worker's share of the attempts in
agents/runs/attempt_worker.py (this process's threads, or Ray actors: agents/runs/ray_executor.py); the graph reads
in agents/runs/state.py.
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
from agents.llm.prices import price_record
from agents.llm.roles import LLMRoles
from agents.memory.rankers import sdk_rankers
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
from agents.runs.prerequisites import Prerequisites, prepare_profiles
from agents.runs.record import library_versions
from agents.runs.state import batch_dataset_head, run_progress
from agents.runs.tokenizer import answerer_tokenizer
from agents.tools.execution import SearchBackend
from graph.cypher_files import load_cypher
from graph.errors import UsageError
from graph.events import EndpointFailed, NewEvent, RunFinished, RunLeftIncomplete, RunStarted
from graph.store import AppendGuard, EventStore, LogHead
from query.model_tokens import TokenizerChoice
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
    # Stopped while preparing (no run started, so no run record holds it): what each preparation step spent,
    # step (`memory:<system>`, `state`) -> usage per role and `total` (agents/runs/prep_usage.py).
    preparation: dict[str, dict[str, Any]] = field(default_factory=dict)

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
    no new request is sent, attempts in flight get `grace_s` seconds, and BatchInterrupted is raised.

    The batch as named steps: prepare the profiles (agents/runs/prerequisites.py), open the attempt worker,
    start the runs (RunStarted and the failed prerequisites), list the attempts still to do, run them, end the
    runs and report."""
    if executor is not None and claims is None:
        raise UsageError("an attempt executor needs claims: its workers claim each attempt before working on it")
    progress = progress or _Silent()
    notes: list[str] = []
    # Prerequisites are built only for profiles with an attempt still to answer: one that is done, or that the
    # endpoint refused (skipped without retry_failed), or answered and waiting on judges needs none of them.
    to_answer = _attempts_to_answer(store, plan, roles, prompts, retry_failed)
    ready = prepare_profiles(store, retriever, plan, roles, prompts, to_answer, notes, progress.stage)
    if roles.budget_reason is not None:
        # A spending limit was reached while preparing: no run is started or ended (nothing more is written)
        # and the rerun builds what is missing, then answers.
        return BatchReport(
            batch_id=plan.batch_id,
            runs=[_unfinished(store, run, plan, roles, prompts) for run in plan.runs],
            usage=roles.total_usage(),
            notes=notes,
            stopped=roles.budget_reason,
            preparation=ready.usage.spent_by_step(),
        )
    batch = _open_batch(store, retriever, plan, roles, prompts, ready, notes, progress, retry_failed, claims)
    _start_runs(batch)
    tasks = _pending_attempts(batch)
    _run_attempts(batch, tasks, concurrency=concurrency, grace_s=grace_s, executor=executor)
    summaries_out = [
        _finish_run(
            store, run, plan, plan.options.judges, roles, prompts,
            usage=ready.usage.with_run(run.run_id, batch.worker.ledgers[run.run_id]),
            did_work=bool(batch.pending[run.run_id]), claims=claims, notes=notes, reason=roles.budget_reason,
        )
        for run in plan.runs
    ]
    errors_by_role, failures = _endpoint_failures(ready, batch.outcomes)
    return BatchReport(
        batch_id=plan.batch_id,
        runs=summaries_out,
        usage=roles.total_usage(),
        notes=notes,
        timings=batch.timings,
        errors_by_role=errors_by_role,
        failures=failures,
        warnings=_warnings(plan, batch.outcomes),
        # a refused request always leaves work undone; said only then all the same
        stopped=roles.budget_reason if any(r.status != "finished" for r in summaries_out) else None,
    )


@dataclass
class _Batch:
    """One pass over a batch once its profiles are prepared: its inputs, the attempt worker, and what the steps
    record on the way (each run's attempts before this pass, the attempts still to do, timings and outcomes)."""

    store: EventStore
    plan: BatchPlan
    roles: LLMRoles
    prompts: PromptSet
    ready: Prerequisites
    notes: list[str]
    progress: BatchProgress
    retry_failed: bool
    claims: Claims | None
    setup: AttemptSetup
    worker: AttemptWorker
    tokenizer: TokenizerChoice
    # run id -> item id -> that attempt's state before this pass (the worker reads it: filled before any attempt)
    done_before: dict[str, dict[str, dict[str, Any]]]
    # run id -> the items this pass works on
    pending: dict[str, set[str]] = field(default_factory=dict)
    timings: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    outcomes: dict[str, list[AttemptOutcome]] = field(default_factory=dict)

    def complete(self, run: PlannedRun, item_id: str) -> bool:
        """The attempt was answered and judged by every judge (and panel model) of the batch before this pass."""
        return attempt_complete(
            self.done_before[run.run_id].get(item_id), run, item_id, self.plan.options.judges, self.roles,
            self.prompts, self.worker.panel_models,
        )


def _open_batch(
    store: EventStore,
    retriever: SearchBackend,
    plan: BatchPlan,
    roles: LLMRoles,
    prompts: PromptSet,
    ready: Prerequisites,
    notes: list[str],
    progress: BatchProgress,
    retry_failed: bool,
    claims: Claims | None,
) -> _Batch:
    """The attempt worker of this process, with the answering model's tokenizer (probed once: Read's and A-MEM's
    token limits count in its tokens); notes the tokenizer and the items whose history goes past their request."""
    tokenizer = answerer_tokenizer(roles)
    if tokenizer.note() is not None:
        notes.append(str(tokenizer.note()))
        progress.stage(str(tokenizer.note()))
    setup = AttemptSetup(
        plan=plan,
        failed=tuple(ready.failed.values()),
        # A method with S(H) in its prompt reads its profile's states, also when this pass made no summary (a
        # resume where its attempts only wait on judges: the judge must be shown the states the method saw).
        summarized=bool(ready.summaries) or any(r.method.needs_states for r in plan.runs),
        retry_failed=retry_failed,
        tokenizer=tokenizer,
    )
    done_before: dict[str, dict[str, dict[str, Any]]] = {}  # filled by _start_runs, before any attempt runs
    worker = AttemptWorker(store, retriever, roles, prompts, setup, claims=claims, done_before=done_before)
    cut = [c.item_id for c in worker.contexts.values() if c.before_turn_id is not None]
    if cut:
        notes.append(
            f"{len(cut)} item(s) have history after the request: memory searches and the state list stop at the "
            "request (states drawn from later turns are left out)"
        )
    return _Batch(
        store=store, plan=plan, roles=roles, prompts=prompts, ready=ready, notes=notes, progress=progress,
        retry_failed=retry_failed, claims=claims, setup=setup, worker=worker, tokenizer=tokenizer,
        done_before=done_before,
    )


def _start_runs(batch: _Batch) -> None:
    """Each run's RunStarted (once: a resumed run has it already) and its failed prerequisites (EndpointFailed);
    then what each run's attempts were before this pass."""
    store, plan = batch.store, batch.plan
    head = batch_dataset_head(store, plan.batch_id)  # one per batch, also when a resume starts some runs
    versions = library_versions(store.driver, store.database)
    for run in plan.runs:
        progress_state = run_progress(store, run.run_id)
        if not progress_state["exists"]:
            store.append(
                guard=None if batch.claims is None else _run_absent(run.run_id),
                events=[NewEvent(_run_started(batch, run, head, versions), actor="runner")],
            )
        run_failures = _prerequisite_failures(batch, run)
        if run_failures:
            store.append(run_failures)
        batch.done_before[run.run_id] = {a["item_id"]: a for a in progress_state["attempts"]}


def _run_started(batch: _Batch, run: PlannedRun, head: LogHead, versions: dict[str, Any]) -> RunStarted:
    """The run record: everything needed to reproduce the run (never API keys)."""
    plan, roles, ready = batch.plan, batch.roles, batch.ready
    memory_system = run.method.memory_system or ""
    return RunStarted(
        run_id=run.run_id,
        method=run.method.name,
        dataset=plan.dataset,
        batch_id=plan.batch_id,
        item_ids=plan.item_ids,
        config={
            "method": run.method.model_dump(mode="json"),
            "budget": plan.options.budget.model_dump(),
            "judges": list(plan.options.judges),
            **({"judge_models": list(plan.options.judge_models)} if batch.worker.panel_models else {}),
            "batch": plan.config,
            "state_summaries": ready.summaries if run.method.needs_states else {},
            "memory_system": run.method.memory_system,
            "memory_build": ready.memory_costs.get(memory_system, {}),
            "memory_deviations": ready.memory_deviations.get(memory_system, []),
            "notes": batch.notes,
            "llm_cache_namespace": roles.cache_namespace,
            # each role's context per slot when the run started (None: the server did not say)
            "context_tokens": {
                role: roles.client(role).context_tokens for role in run.roles if roles.configured(role)
            },
            "tokenizer": batch.tokenizer.record(),
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
            **{f"judge@{c.model}": c.settings.public_record() for c in batch.worker.panels[run.run_id]},
        },
        prompt_hashes=batch.prompts.records(run.prompt_names),
        seeds=run_seeds(roles, run.roles),
        versions=versions,
        dataset_fingerprint=head.hash,
        dataset_head_seq=head.seq,
    )


def _prerequisite_failures(batch: _Batch, run: PlannedRun) -> list[NewEvent]:
    """An EndpointFailed for each failed prerequisite the run's items need."""
    store, plan = batch.store, batch.plan
    return [
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
        for f in batch.ready.failed.values()
        if needs_prerequisite(run, f) and f.profile_id in {plan.profiles[i] for i in plan.item_ids}
    ]


def _pending_attempts(batch: _Batch) -> list[tuple[PlannedRun, str]]:
    """The attempts this pass works on, item by item across the runs: not complete, and not refused before
    (unless retry_failed; a note counts the ones left). Each run's progress bar starts at what is done."""
    plan = batch.plan
    for run in plan.runs:
        before = batch.done_before[run.run_id]
        batch.pending[run.run_id] = {
            item_id
            for item_id in plan.item_ids
            if not batch.complete(run, item_id)
            and (batch.retry_failed or not refused_before(before.get(item_id)))
        }
        refused = sum(1 for i in plan.item_ids if refused_before(before.get(i)) and not batch.complete(run, i))
        if refused and not batch.retry_failed:
            batch.notes.append(
                f"{run.method.name}: {refused} attempt(s) the endpoint refused earlier were not tried again "
                "(use --retry-failed once the cause is fixed)"
            )
        done = len(plan.item_ids) - len(batch.pending[run.run_id])
        batch.progress.run_started(run.run_id, run.method.label, len(plan.item_ids), done)
    return [(run, item_id) for item_id in plan.item_ids for run in plan.runs if item_id in batch.pending[run.run_id]]


def _run_attempts(
    batch: _Batch,
    tasks: list[tuple[PlannedRun, str]],
    *,
    concurrency: int,
    grace_s: float,
    executor: AttemptExecutor | None,
) -> None:
    """Answer and judge the attempts, in this process's threads or on the executor; in worker mode, then wait
    for the ones other workers hold. What the executor's workers spent is added to the runs' ledgers."""
    plan, roles, worker, claims = batch.plan, batch.roles, batch.worker, batch.claims
    batch.timings = {r.run_id: [] for r in plan.runs}
    batch.outcomes = {r.run_id: [] for r in plan.runs}
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
                batch.timings[run.run_id].append(result.outcome.measured)
                batch.outcomes[run.run_id].append(result.outcome)
            batch.notes.extend(result.notes)
        if result.done:
            batch.progress.item_done(run.run_id)

    def dispatch(chosen: list[tuple[PlannedRun, str]]) -> None:
        if executor is None:
            with worker.writing():  # events appended behind the attempts, all written when it ends
                _run_pool(
                    chosen, lambda run, item_id: record(worker.work(run.run_id, item_id)), concurrency,
                    on_interrupt=roles.interrupt, grace_s=grace_s,
                )
        else:
            executor.run_attempts(
                batch.setup, [(run.run_id, item_id) for run, item_id in chosen], record,
                on_interrupt=roles.interrupt, grace_s=grace_s,
            )

    # Recipes that rank with a memory system's own search (Graphiti) need that search open while attempts run.
    with sdk_rankers(batch.store, {r.method.memory_system for r in plan.runs}):
        if claims is None:
            dispatch(tasks)
        else:
            with claims:
                dispatch(tasks)
                _wait_for_others(claims, held_elsewhere, tried, dispatch, batch.progress, on_interrupt=roles.interrupt)
    if executor is not None:  # what the executor's workers spent counts in the runs' records
        for run_id, spent in executor.finish_batch().items():
            worker.ledgers[run_id].merge(UsageLedger.from_dict(spent))


def _endpoint_failures(
    ready: Prerequisites, outcomes: dict[str, list[AttemptOutcome]]
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """This invocation's endpoint failures: a count per role, and each (role, stage, retryable, error text);
    the failed prerequisites first, then the attempts'."""
    errors_by_role: dict[str, int] = {}
    failures: list[dict[str, Any]] = []
    for f in ready.failed.values():
        errors_by_role[f.role] = errors_by_role.get(f.role, 0) + 1
        failures.append({"role": f.role, "stage": f.stage, "retryable": f.retryable, "error": f.error})
    for run_outcomes in outcomes.values():
        for outcome in run_outcomes:
            for role, stage, retryable, error in outcome.failures:
                errors_by_role[role] = errors_by_role.get(role, 0) + 1
                failures.append({"role": role, "stage": stage, "retryable": retryable, "error": error})
    return errors_by_role, failures


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
