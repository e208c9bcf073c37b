"""One attempt of one run: answer the item (unless already answered), write its events in one transaction,
then ask the judges that have not judged it yet. Endpoint failures leave an `error` attempt (answering) or an
unjudged one (judging); a rerun picks both up."""

from __future__ import annotations

import time
from typing import Any

from agents.answerer import AgentTask, AnsweringAgent, RecordedCall, Transcript
from agents.judging.judges import analyse_error, judge_accuracy, judge_quality, judgment_id
from agents.judging.reference import MaterialSource
from agents.llm.client import LLMClient
from agents.llm.errors import LLMError
from agents.llm.roles import LLMRoles
from agents.prompts.judging import QUALITY_DIMENSIONS
from agents.prompts.registry import PromptSet
from agents.runs.plan import PlannedRun
from agents.runs.state import latest_accuracy
from graph.events import AnswerGiven, AnswerJudged, AttemptFinished, AttemptStarted, NewEvent, ToolCalled
from graph.hashing import canonical_json
from graph.store import EventStore


def judge_ids(attempt_id: str, judges: tuple[str, ...], roles: LLMRoles, prompts: PromptSet) -> dict[str, str]:
    """kind -> judgment id the configured judge would write (errors only apply to failed answers)."""
    model = str(roles.settings["judge"].model)
    ids: dict[str, str] = {}
    if "accuracy" in judges:
        ids["accuracy"] = judgment_id(attempt_id, "accuracy", model, prompts["judge_accuracy"])
    if "quality" in judges:
        for dim in QUALITY_DIMENSIONS:
            kind = f"quality:{dim}"
            ids[kind] = judgment_id(attempt_id, kind, model, prompts[f"judge_quality_{dim}"])
    if "errors" in judges:
        ids["error_analysis"] = judgment_id(attempt_id, "error_analysis", model, prompts["judge_error_analysis"])
    return ids


def attempt_complete(
    previous: dict[str, Any] | None,
    run: PlannedRun,
    item_id: str,
    judges: tuple[str, ...],
    roles: LLMRoles,
    prompts: PromptSet,
) -> bool:
    """Answered, and every wanted judgment exists (the error analysis only for failed answers)."""
    if not previous or previous.get("status") != "answered":
        return False
    if not judges:
        return True
    wanted = judge_ids(run.attempt_id(item_id), judges, roles, prompts)
    have = set(previous.get("judgment_ids") or [])
    for kind, jid in wanted.items():
        if kind == "error_analysis" and previous.get("verdict") != "fail":
            continue
        if jid not in have:
            return False
    return True


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
) -> dict[str, float]:
    """Answer (unless `previous` says answered) and judge one item; returns timings in seconds."""
    attempt_id = run.attempt_id(task.item_id)
    actor = f"method:{run.method.name}"
    measured: dict[str, float] = {}
    started = time.perf_counter()
    answered_now: Transcript | None = None
    if previous.get("status") != "answered":
        # AttemptStarted goes into the same transaction as the outcome: a crash leaves no trace of the attempt.
        begun = NewEvent(AttemptStarted(attempt_id=attempt_id, run_id=run.run_id, item_id=task.item_id), actor=actor)
        try:
            transcript = agent.answer(task)
        except LLMError as exc:
            failed = AttemptFinished(
                attempt_id=attempt_id,
                status="error",
                seconds=round(time.perf_counter() - started, 3),
                error=str(exc)[:2000],
            )
            store.append([begun, NewEvent(failed, actor=actor)])
            return {"error": 1.0}
        answered = time.perf_counter()
        measured["answer_s"] = answered - started
        measured["tools_s"] = transcript.tool_seconds
        store.append([begun, *attempt_events(attempt_id, run, agent, transcript, seconds=answered - started)])
        measured["write_s"] = time.perf_counter() - answered
        measured["turns"] = float(transcript.turns)
        measured["cached_turns"] = float(transcript.cached_turns)
        answered_now = transcript
    if judges and judge is not None:
        judge_started = time.perf_counter()
        judge_attempt(
            store,
            attempt_id,
            previous,
            judges,
            judge,
            roles,
            prompts,
            materials,
            transcript=answered_now,
            item_id=task.item_id,
        )
        measured["judge_s"] = time.perf_counter() - judge_started
    measured["total_s"] = time.perf_counter() - started
    return measured


def attempt_events(
    attempt_id: str, run: PlannedRun, agent: AnsweringAgent, transcript: Transcript, *, seconds: float
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


def judge_attempt(
    store: EventStore,
    attempt_id: str,
    previous: dict[str, Any],
    judges: tuple[str, ...],
    judge: LLMClient,
    roles: LLMRoles,
    prompts: PromptSet,
    materials: MaterialSource,
    transcript: Transcript | None = None,
    item_id: str = "",
) -> None:
    """Ask the judges whose judgment is missing: accuracy, the quality dimensions, and the error analysis when
    the answer failed; append the verdicts in one transaction (those obtained before an endpoint failure too).
    With the `transcript` just written, the judges' evidence is rendered from it instead of read back."""
    wanted = judge_ids(attempt_id, judges, roles, prompts)
    have = set(previous.get("judgment_ids") or []) if previous.get("status") == "answered" else set()
    material = None
    verdicts: list[AnswerJudged] = []

    def material_once() -> Any:
        nonlocal material
        if material is None:
            recorded = (
                None if transcript is None else (item_id, [trace_call(c) for c in transcript.calls], transcript.answer)
            )
            material = materials.material(attempt_id, recorded=recorded)
        return material

    try:
        verdict: str | None = previous.get("verdict") if previous.get("status") == "answered" else None
        rationale = ""
        if "accuracy" in wanted and wanted["accuracy"] not in have:
            judged = judge_accuracy(attempt_id, material_once(), judge, prompts)
            verdicts.append(judged)
            verdict, rationale = judged.verdict, judged.rationale
        elif "accuracy" in wanted:
            verdict, rationale = latest_accuracy(store, attempt_id)
        missing = [k.split(":", 1)[1] for k in wanted if k.startswith("quality:") and wanted[k] not in have]
        if missing:
            verdicts.extend(judge_quality(attempt_id, material_once(), judge, prompts, dimensions=missing))
        if "error_analysis" in wanted and wanted["error_analysis"] not in have and verdict == "fail":
            verdicts.append(analyse_error(attempt_id, material_once(), rationale, judge, prompts))
    except LLMError:
        pass  # the endpoint failed after every retry: what is missing stays unjudged, and a rerun judges it
    finally:
        if verdicts:
            store.append([NewEvent(v, actor=f"judge:{judge.model}") for v in verdicts])


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
