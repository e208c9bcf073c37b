"""One worker's share of a batch's attempts: answering and judging each attempt handed to it, in this process.

The runner's thread pool calls one AttemptWorker from many threads; the Ray executor builds one per Ray actor,
each over its own Neo4j driver (agents/runs/ray_executor.py). A worker reads what attempts need from the graph
(the items' contexts, the profiles' states), holds the answering agent and judge clients of every run, and
returns an AttemptResult per attempt: what the caller counts (progress, timings, endpoint failures, notes).
Inside `writing()` (in-process, without claims) the attempts' events are appended by a background writer while the
next attempt runs (agents/runs/event_writer.py); a worker with claims appends them in the attempt, while it holds
the attempt's claim.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agents.answerer import AgentTask, AnsweringAgent
from agents.judging.reference import MaterialSource
from agents.llm.accounting import UsageLedger
from agents.llm.client import LLMClient
from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from agents.runs.attempt import AttemptOutcome, attempt_complete, failed_attempt_events, process_attempt
from agents.runs.claims import ClaimLost, Claims
from agents.runs.event_writer import BackgroundEventWriter
from agents.runs.plan import BatchPlan, PlannedRun
from agents.runs.state import ItemContext, item_contexts, profile_states
from agents.tools.execution import SearchBackend
from graph.store import EventSink, EventStore
from query.model_tokens import TokenizerChoice
from query.results import StateHit

# In-process attempts (no claims) hand their events to a background writer inside `AttemptWorker.writing()`;
# False appends them in the attempt, as workers with claims do (the reference the write-behind is compared with).
WRITE_BEHIND = True


@dataclass(frozen=True)
class FailedPrerequisite:
    """A profile's state summary or memory build that failed: the attempts needing it fail with this."""

    profile_id: str
    stage: str  # state_summary | memory:<system>
    role: str
    error: str
    retryable: bool


def needs_prerequisite(run: PlannedRun, failure: FailedPrerequisite) -> bool:
    """Whether the run's attempts need what failed (its state summary, or its memory system's build)."""
    if failure.stage == "state_summary":
        return bool(run.method.needs_states)
    return failure.stage == f"memory:{run.method.memory_system}"


def refused_before(previous: dict[str, Any] | None) -> bool:
    """An attempt in error because the endpoint refused its request, or answered with a judge's request refused
    (a plain rerun would repeat the refusal; `--retry-failed` asks again)."""
    if not previous:
        return False
    if previous.get("status") == "answered":
        return bool(previous.get("refused_judges"))
    if previous.get("status") != "error":
        return False
    try:
        usage = json.loads(previous.get("usage") or "{}")
    except (TypeError, json.JSONDecodeError):
        return False
    return isinstance(usage, dict) and usage.get("retryable") is False


@dataclass(frozen=True)
class AttemptSetup:
    """What every worker of a batch must agree on beyond the graph (picklable: it is sent to Ray actors)."""

    plan: BatchPlan
    failed: tuple[FailedPrerequisite, ...] = ()
    summarized: bool = False  # state summaries exist: methods with S(H) in the prompt are shown the states
    retry_failed: bool = False
    # The answering model's tokenizer found by the run's probe (None: the retriever's own, WordPiece).
    tokenizer: TokenizerChoice | None = None


@dataclass
class AttemptResult:
    """What a worker did with one attempt. `held`: another worker held its claim, so it was not tried here;
    `claimed`: this worker claimed it (worker mode); `done`: it counts as settled on the progress bar."""

    run_id: str
    item_id: str
    held: bool = False
    claimed: bool = False
    done: bool = False
    outcome: AttemptOutcome | None = None
    notes: list[str] = field(default_factory=list)


class AttemptWorker:
    """Answers and judges the attempts handed to it (thread-safe). With `claims` it is one of several workers
    on the batch: each attempt is claimed first and its progress read after the claim; without, `done_before`
    (the attempts' progress read at the start) says what is already there."""

    def __init__(
        self,
        store: EventStore,
        retriever: SearchBackend,
        roles: LLMRoles,
        prompts: PromptSet,
        setup: AttemptSetup,
        *,
        claims: Claims | None = None,
        done_before: dict[str, dict[str, dict[str, Any]]] | None = None,
    ) -> None:
        plan = setup.plan
        self.store = store
        self.roles = roles
        self.prompts = prompts
        self.setup = setup
        self.claims = claims
        # the caller's own dict (filled after this worker is built): never `or {}`, an empty dict is falsy
        self.done_before = done_before if done_before is not None else {}
        self.judges = plan.options.judges
        self.runs = {run.run_id: run for run in plan.runs}
        if setup.tokenizer is not None and hasattr(retriever, "token_counter"):
            retriever.token_counter = setup.tokenizer.counter
        self.contexts: dict[str, ItemContext] = item_contexts(store, plan.item_ids)
        profiles = sorted(set(plan.profiles.values()))
        self.states: dict[str, list[StateHit]] = (
            {p: profile_states(store, p) for p in profiles} if setup.summarized else {}
        )
        # An item whose history continues after its request sees only the states drawn from turns before it.
        self.cut_states = {
            c.item_id: profile_states(store, c.profile_id, c.cutoff)
            for c in self.contexts.values()
            if setup.summarized and c.cutoff is not None
        }
        # the judge panel's other models (the first of --judge-models is the judge role's own model)
        self.panel_models = plan.options.judge_models[1:]
        self.ledgers = {run.run_id: UsageLedger() for run in plan.runs}
        self.agents: dict[str, AnsweringAgent] = {}
        self.panels: dict[str, list[LLMClient]] = {}
        for run in plan.runs:
            answerer = roles.client("answerer", self.ledgers[run.run_id])
            for role in run.roles:
                roles.client(role, self.ledgers[run.run_id])  # fail early, naming the missing setting
            self.agents[run.run_id] = AnsweringAgent(run.method, answerer, retriever, prompts, plan.options.budget)
            self.panels[run.run_id] = [
                roles.client_for_model("judge", m, self.ledgers[run.run_id]) for m in self.panel_models
            ]
        self.materials = MaterialSource(store.driver, store.database, context_budget=plan.options.judge_context_chars)
        self.writer: BackgroundEventWriter | None = None

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Attempts worked on inside append their events through a background writer (in-process, without
        claims, and with WRITE_BEHIND); on the way out every event handed over is appended, and a failed append
        raises here, unless another error is already on its way out (it wins, and the events are still appended
        if Neo4j takes them)."""
        if self.claims is not None or not WRITE_BEHIND:
            yield
            return
        writer = BackgroundEventWriter(self.store)
        self.writer = writer
        try:
            yield
        except BaseException:
            writer.close(raise_error=False)
            raise
        else:
            writer.close()
        finally:
            self.writer = None

    def usage(self) -> dict[str, dict[str, Any]]:
        """LLM usage of every run so far (run id -> UsageLedger.as_dict())."""
        return {run_id: ledger.as_dict() for run_id, ledger in self.ledgers.items()}

    def work(self, run_id: str, item_id: str) -> AttemptResult:
        """Claim (worker mode), answer and judge one attempt; returns what happened to it."""
        run = self.runs[run_id]
        result = AttemptResult(run_id, item_id)
        if self.claims is None:
            self._attempt(run, item_id, self.store, self.done_before.get(run_id, {}).get(item_id) or {}, result)
            return result
        claims = self.claims
        attempt_id = run.attempt_id(item_id)
        if not claims.claim(run_id, item_id, attempt_id):
            result.held = True
            return result
        result.claimed = True
        try:
            previous = claims.progress(attempt_id)  # read after the claim: another worker may have finished it
            complete = attempt_complete(
                previous, run, item_id, self.judges, self.roles, self.prompts, self.panel_models
            )
            if complete or (refused_before(previous) and not self.setup.retry_failed):
                result.done = True
                return result
            self._attempt(run, item_id, claims.store_for(attempt_id), previous, result)
        except ClaimLost as lost:
            result.notes.append(str(lost))
        finally:
            claims.release(attempt_id)
        return result

    def _attempt(
        self, run: PlannedRun, item_id: str, store: EventStore, previous: dict[str, Any], result: AttemptResult
    ) -> None:
        ctx = self.contexts[item_id]
        sink: EventSink = self.writer if self.writer is not None and store is self.store else store
        missing = [f for f in self.setup.failed if f.profile_id == ctx.profile_id and needs_prerequisite(run, f)]
        if missing and previous.get("status") != "answered":
            f = missing[0]
            reason = f"prerequisite failed: {f.stage} of profile {f.profile_id} ({f.role} role): {f.error}"
            sink.append(
                failed_attempt_events(
                    run, item_id, error=reason, started=time.perf_counter(), role=f.role, retryable=f.retryable
                )
            )
            result.done = True
            return
        task = AgentTask(
            item_id=item_id,
            profile_id=ctx.profile_id,
            question=ctx.question,
            asked_at=ctx.asked_at,
            before_turn_id=ctx.before_turn_id,
            states=(
                tuple(self.cut_states.get(item_id, self.states.get(ctx.profile_id, ())))
                if run.method.state_in_prompt
                else ()
            ),
        )
        outcome = process_attempt(
            store,
            run,
            self.agents[run.run_id],
            task,
            previous,
            self.judges,
            self.roles.client("judge", self.ledgers[run.run_id]) if self.judges else None,
            self.roles,
            self.prompts,
            self.materials,
            panel=self.panels[run.run_id],
            sink=sink,
        )
        result.outcome = outcome
        result.done = not outcome.interrupted
