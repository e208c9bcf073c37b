"""One attempt of one run: answer the item (unless already answered), write its events in one transaction,
then ask the judges that have not judged it yet (agents/judging/attempt_judge.py; the judge panel:
agents/judging/panel.py). Endpoint failures leave an `error` attempt (answering) or an unjudged one (judging),
each with an EndpointFailed event holding the error text; a rerun picks both up.
Answers cut by max_tokens or that look like an unparsed tool call are flagged on their AnswerGiven."""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.answerer import AgentTask, AnsweringAgent, RecordedCall, Transcript, render_state
from agents.judging.attempt_judge import JudgeFailed, judge_attempt, judge_ids
from agents.judging.item_kinds import ItemTraits
from agents.judging.panel import PanelJudgeFailed, judge_with_panel, panel_complete
from agents.judging.reference import MaterialSource
from agents.judging.registry import selected
from agents.llm.client import ChatReply, LLMClient
from agents.llm.errors import LLMError, LLMInterruptedError
from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from agents.runs.failure_ids import failure_id, next_try_number
from agents.runs.plan import PlannedRun
from graph.events import (
    AnswerGiven,
    AttemptFailed,
    AttemptFinished,
    AttemptStarted,
    EndpointFailed,
    NewEvent,
    ToolCalled,
)
from graph.hashing import canonical_json
from graph.store import EventSink, EventStore


def attempt_complete(
    previous: dict[str, Any] | None,
    run: PlannedRun,
    item_id: str,
    judges: tuple[str, ...],
    roles: LLMRoles,
    prompts: PromptSet,
    panel_models: Sequence[str] = (),
) -> bool:
    """Answered, and every wanted judgment of every judge that applies to it exists (e.g. the error analysis
    only for failed answers), the accuracy verdict of every panel model (`panel_models`) included."""
    if not previous or previous.get("status") != "answered":
        return False
    if not judges:
        return True
    wanted = judge_ids(run.attempt_id(item_id), judges, roles, prompts)
    have = set(previous.get("judgment_ids") or [])
    for judge in selected(judges):
        if not judge.applies(previous.get("verdict")) or not judge.applies_to_item(item_traits_of(previous)):
            continue
        if any(wanted[kind] not in have for kind in judge.kinds()):
            return False
    return panel_complete(previous, run.attempt_id(item_id), panel_models, prompts)


def item_traits_of(previous: dict[str, Any]) -> ItemTraits:
    """The item traits run_progress returns with an attempt (empty traits for an attempt without them)."""
    item = previous.get("item") or {}
    return ItemTraits.from_row(item.get("question_type"), item.get("labels"), item.get("metadata"))


@dataclass
class AttemptOutcome:
    """What one attempt did in this invocation: timings, endpoint failures (role, stage, retryable, text), answer
    flags, tool calls made, and whether a Ctrl-C abandoned it (nothing written for the abandoned part)."""

    measured: dict[str, float] = field(default_factory=dict)
    failures: list[tuple[str, str, bool, str]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    tool_calls: int = 0
    answered: bool = False
    interrupted: bool = False


class _ObservedClient:
    """The answerer's client for one attempt, remembering the last reply (its finish_reason is not in the
    transcript). Everything else is the shared client's."""

    def __init__(self, inner: LLMClient) -> None:
        self._inner = inner
        self.last: ChatReply | None = None

    def chat(self, *args: Any, **kwargs: Any) -> ChatReply:
        reply = self._inner.chat(*args, **kwargs)
        self.last = reply
        return reply

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


# Text a model wrote when it meant a tool call the server did not parse (a template without tool support).
_TOOL_CALL_TEXT = re.compile(
    r'^\s*(```(json)?\s*)?(\[\s*)?(\{\s*"(name|function|tool_calls?)"\s*:|<tool_call>|<\|python_tag\|>|<function)'
)


def answer_flags(answer: str, finish_reason: str | None) -> list[str]:
    """`cut_by_length` when the final reply hit max_tokens; `looks_like_tool_call` when the answer text is a
    tool call the endpoint returned as plain text; `not_an_answer` when the text is empty or a JSON fragment that
    does not parse (a structured reply cut off mid-way)."""
    flags = []
    if finish_reason == "length":
        flags.append("cut_by_length")
    if _TOOL_CALL_TEXT.match(answer or ""):
        flags.append("looks_like_tool_call")
    elif _is_not_an_answer(answer or ""):
        flags.append("not_an_answer")
    return flags


def _is_not_an_answer(answer: str) -> bool:
    text = answer.strip()
    if not text:
        return True
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    if not text.startswith(("{", "[")):
        return False
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def failure_event(
    run_id: str,
    exc: LLMError,
    *,
    stage: str,
    attempt_id: str | None = None,
    profile_id: str | None = None,
    role: str | None = None,
    store: EventStore | None = None,
) -> EndpointFailed:
    """The event recording one endpoint failure with its text; its id is content-derived (run, role, stage,
    attempt/profile, try number counted in `store`'s graph; agents/runs/failure_ids.py), so re-appending the
    same failure of the same try is a no-op."""
    role = role or exc.role or "unknown"
    tries = 1 if store is None else next_try_number(
        store, run_id, role, stage, attempt_id=attempt_id, profile_id=profile_id
    )
    return EndpointFailed(
        failure_id=failure_id(run_id, role, stage, attempt_id=attempt_id, profile_id=profile_id, try_number=tries),
        run_id=run_id,
        attempt_id=attempt_id,
        profile_id=profile_id,
        role=role,
        stage=stage,
        error=str(exc)[:2000],
        retryable=exc.retryable,
    )


def failed_attempt_events(
    run: PlannedRun,
    item_id: str,
    *,
    error: str,
    started: float,
    role: str,
    retryable: bool,
    failure: EndpointFailed | None = None,
) -> list[NewEvent]:
    """AttemptStarted + AttemptFailed (+ the EndpointFailed), appended together; the usage field says
    which role failed and whether a rerun can help (a refusal is only retried with `--retry-failed`)."""
    attempt_id = run.attempt_id(item_id)
    actor = f"method:{run.method.name}"
    events = [
        NewEvent(AttemptStarted(attempt_id=attempt_id, run_id=run.run_id, item_id=item_id), actor=actor),
        NewEvent(
            AttemptFailed(
                attempt_id=attempt_id,
                seconds=round(time.perf_counter() - started, 3),
                error=error[:2000],
                usage={"failed_role": role, "retryable": retryable},
            ),
            actor=actor,
        ),
    ]
    if failure is not None:
        events.append(NewEvent(failure, actor=actor))
    return events


def process_attempt(
    store: EventStore,
    run: PlannedRun,
    agent: AnsweringAgent,
    task: AgentTask,
    previous: dict[str, Any],
    judges: tuple[str, ...],
    judge: LLMClient | None,
    roles: LLMRoles,
    prompts: PromptSet,
    materials: MaterialSource,
    panel: Sequence[LLMClient] = (),
    sink: EventSink | None = None,
) -> AttemptOutcome:
    """Answer (unless `previous` says answered) and judge one item (the judge panel too, if any). An endpoint
    failure is recorded (an `error` attempt, or an EndpointFailed on the attempt for a judge); a Ctrl-C writes
    nothing more. The events go to `sink` (default `store`: a BackgroundEventWriter appends them while the next
    attempt runs, agents/runs/event_writer.py), in the order they are made; `store` is read only for what earlier
    invocations wrote (failure try numbers, an earlier accuracy verdict, an earlier answer's trace)."""
    sink = store if sink is None else sink
    outcome = AttemptOutcome()
    started = time.perf_counter()
    answered_now: Transcript | None = None
    if previous.get("status") != "answered":
        answered_now = _answer_attempt(store, sink, run, agent, task, outcome, started)
        if answered_now is None:
            return outcome
    if judges and judge is not None:
        _judge_answer(
            store, sink, run, task, previous, judges, judge, roles, prompts, materials, panel, answered_now, outcome
        )
    outcome.measured["total_s"] = time.perf_counter() - started
    return outcome


def _answer_attempt(
    store: EventStore,
    sink: EventSink,
    run: PlannedRun,
    agent: AnsweringAgent,
    task: AgentTask,
    outcome: AttemptOutcome,
    started: float,
) -> Transcript | None:
    """Answer the item and hand its events to `sink` in one batch; None when a Ctrl-C abandoned it (nothing
    written) or the endpoint failed (an `error` attempt written), with `outcome` saying which."""
    attempt_id = run.attempt_id(task.item_id)
    measured = outcome.measured
    # AttemptStarted goes into the same transaction as the outcome: a crash leaves no trace of the attempt.
    observed = _ObservedClient(agent.llm)
    mine = copy.copy(agent)
    mine.llm = observed  # type: ignore[assignment]
    try:
        transcript = mine.answer(task)
    except LLMInterruptedError:
        outcome.interrupted = True
        return None
    except LLMError as exc:
        failure = failure_event(run.run_id, exc, stage="answer", attempt_id=attempt_id, role="answerer", store=store)
        sink.append(
            failed_attempt_events(
                run, task.item_id, error=str(exc), started=started, role="answerer", retryable=exc.retryable,
                failure=failure,
            )
        )
        outcome.failures.append(("answerer", "answer", exc.retryable, failure.error))
        measured["error"] = 1.0
        return None
    answered = time.perf_counter()
    measured["answer_s"] = answered - started
    measured["tools_s"] = transcript.tool_seconds
    outcome.flags = answer_flags(transcript.answer, observed.last.finish_reason if observed.last else None)
    outcome.tool_calls = len(transcript.calls)
    outcome.answered = True
    sink.append(
        [
            NewEvent(
                AttemptStarted(attempt_id=attempt_id, run_id=run.run_id, item_id=task.item_id),
                actor=f"method:{run.method.name}",
            ),
            *attempt_events(attempt_id, run, agent, transcript, seconds=answered - started, flags=outcome.flags),
        ]
    )
    measured["write_s"] = time.perf_counter() - answered
    measured["turns"] = float(transcript.turns)
    measured["cached_turns"] = float(transcript.cached_turns)
    return transcript


def _judge_answer(
    store: EventStore,
    sink: EventSink,
    run: PlannedRun,
    task: AgentTask,
    previous: dict[str, Any],
    judges: tuple[str, ...],
    judge: LLMClient,
    roles: LLMRoles,
    prompts: PromptSet,
    materials: MaterialSource,
    panel: Sequence[LLMClient],
    answered_now: Transcript | None,
    outcome: AttemptOutcome,
) -> None:
    """Ask the judges (agents/judging/attempt_judge.py), then the panel (agents/judging/panel.py), for their
    missing verdicts; a judge's endpoint failure becomes an EndpointFailed on the attempt, a Ctrl-C a flag."""
    attempt_id = run.attempt_id(task.item_id)
    judge_started = time.perf_counter()
    recorded = None if answered_now is None else (
        task.item_id, [trace_call(c) for c in answered_now.calls], answered_now.answer
    )
    try:
        judge_attempt(
            store,
            attempt_id,
            previous,
            judges,
            judge,
            roles,
            prompts,
            materials,
            recorded=recorded,
            states=shown_states(run, task),
            sink=sink,
        )
        if panel:
            judge_with_panel(
                sink, attempt_id, previous, panel, prompts,
                lambda: materials.material(attempt_id, recorded=recorded, states=shown_states(run, task)),
                primary_model=judge.model,
            )
    except LLMInterruptedError:
        outcome.interrupted = True
    except (JudgeFailed, PanelJudgeFailed) as failed:
        failure = failure_event(
            run.run_id, failed.error, stage=f"judge:{failed.kind}", attempt_id=attempt_id, role="judge",
            store=store,
        )
        sink.append([NewEvent(failure, actor=f"judge:{judge.model}")])
        outcome.failures.append(("judge", failure.stage, failed.error.retryable, failure.error))
    outcome.measured["judge_s"] = time.perf_counter() - judge_started


def attempt_events(
    attempt_id: str,
    run: PlannedRun,
    agent: AnsweringAgent,
    transcript: Transcript,
    *,
    seconds: float,
    flags: list[str] | None = None,
) -> list[NewEvent]:
    """ToolCalled per call (id `<attempt>:r<round>c<ordinal>`), AnswerGiven and AttemptFinished."""
    actor = f"method:{run.method.name}"
    events: list[NewEvent] = []
    for call in transcript.calls:
        o = call.outcome
        events.append(
            NewEvent(
                ToolCalled(
                    tool_call_id=f"{attempt_id}:r{call.round}c{call.ordinal}",
                    attempt_id=attempt_id,
                    round=call.round,
                    ordinal=call.ordinal,
                    tool=o.tool,
                    arguments=o.arguments,
                    ok=o.ok,
                    error=o.error,
                    recipe=o.recipe,
                    returned=o.returned,
                    response=o.response,
                    exchange=call.exchange,
                ),
                actor=actor,
            )
        )
    events.append(
        NewEvent(
            AnswerGiven(
                attempt_id=attempt_id,
                answer=transcript.answer,
                rounds=transcript.rounds,
                turns=transcript.turns,
                finish=transcript.finish,  # type: ignore[arg-type]
                tokens_in=transcript.tokens_in,
                tokens_out=transcript.tokens_out,
                model=agent.llm.model,
                prompt_sha256=agent.prompts["answer"].sha256,
                flags=list(flags or []),
                exchange=transcript.exchange,
            ),
            actor=actor,
        )
    )
    events.append(
        NewEvent(
            AttemptFinished(
                attempt_id=attempt_id,
                status="answered",
                rounds=transcript.rounds,
                turns=transcript.turns,
                tokens_in=transcript.tokens_in,
                tokens_out=transcript.tokens_out,
                seconds=round(seconds, 3),
                usage={
                    "cached_turns": transcript.cached_turns,
                    "tool_seconds": round(transcript.tool_seconds, 4),
                },
            ),
            actor=actor,
        )
    )
    return events


def shown_states(run: PlannedRun, task: AgentTask) -> str | None:
    """The S(H) block the method's prompt showed (None for a method without S(H) in its prompt)."""
    if not run.method.state_in_prompt:
        return None
    return "\n".join(render_state(s) for s in task.states) or "(no states: the summary is empty)"


def trace_call(call: RecordedCall) -> dict[str, Any]:
    """A recorded tool call in the shape the graph's attempt trace returns (for the judge's evidence)."""
    o = call.outcome
    return {
        "round": call.round,
        "ordinal": call.ordinal,
        "tool": o.tool,
        "arguments": canonical_json(o.arguments),
        "ok": o.ok,
        "error": o.error,
        "response": o.response,
    }
