"""Judging one attempt of a run: ask every selected judge whose judgment is missing, in registry order, and
append the verdicts in one transaction. An endpoint failure leaves the rest unjudged (JudgeFailed; the caller
records it and a rerun judges what is missing)."""

from __future__ import annotations

from typing import Any

from agents.judging.base import JudgeCall
from agents.judging.judges import judgment_id
from agents.judging.reference import MaterialSource
from agents.judging.registry import selected
from agents.judging.verdicts import latest_accuracy
from agents.llm.client import LLMClient
from agents.llm.errors import LLMError, LLMInterruptedError
from agents.llm.roles import LLMRoles
from agents.prompts.registry import PromptSet
from graph.events import AnswerJudged, NewEvent
from graph.store import EventSink, EventStore


def judge_ids(attempt_id: str, judges: tuple[str, ...], roles: LLMRoles, prompts: PromptSet) -> dict[str, str]:
    """kind -> judgment id the configured judges would write, for every kind of every selected judge."""
    model = str(roles.settings["judge"].model)
    ids: dict[str, str] = {}
    for judge in selected(judges):
        for kind, prompt_name in zip(judge.kinds(), judge.prompt_names(), strict=True):
            ids[kind] = judgment_id(attempt_id, kind, model, prompts[prompt_name])
    return ids


class JudgeFailed(Exception):
    """A judge's endpoint failed on an attempt (the verdicts obtained before it are appended)."""

    def __init__(self, kind: str, error: LLMError) -> None:
        super().__init__(f"judge {kind}: {error}")
        self.kind = kind
        self.error = error


def judge_attempt(
    store: EventStore,
    attempt_id: str,
    previous: dict[str, Any],
    judges: tuple[str, ...],
    judge: LLMClient,
    roles: LLMRoles,
    prompts: PromptSet,
    materials: MaterialSource,
    recorded: tuple[str, list[dict[str, Any]], str] | None = None,
    states: str | None = None,
    sink: EventSink | None = None,
) -> None:
    """Ask the judges whose judgment is missing, in registry order (the accuracy judge first; judges that need
    its verdict, such as the error analysis of failed answers, after it); append the verdicts in one
    transaction (those obtained before an endpoint failure too); `states` is the S(H) block the method saw.
    An endpoint failure raises JudgeFailed after that.
    With `recorded` = (item id, tool calls in the attempt trace's shape, answer) just written, the judges'
    evidence is rendered from it instead of read back. The verdicts go to `sink` (default `store`)."""
    wanted = judge_ids(attempt_id, judges, roles, prompts)
    have = set(previous.get("judgment_ids") or []) if previous.get("status") == "answered" else set()
    material = None
    verdicts: list[AnswerJudged] = []

    def material_once() -> Any:
        nonlocal material
        if material is None:
            material = materials.material(attempt_id, recorded=recorded, states=states)
        return material

    kind = "accuracy"
    try:
        verdict: str | None = previous.get("verdict") if previous.get("status") == "answered" else None
        rationale = ""
        known = False  # whether `verdict` is the accuracy judge's (just given or read back)
        for each in selected(judges):
            kind = each.name
            missing = [k for k in each.kinds() if wanted[k] not in have]
            if each.needs_accuracy and not known:
                if any(j.gives_accuracy for j in selected(judges)):
                    verdict, rationale = latest_accuracy(store, attempt_id)
                known = True
            if not missing or not each.applies(verdict if known else None):
                continue
            if not each.applies_to_item(material_once().traits):  # e.g. the abstention judge: abstention items
                continue
            call = JudgeCall(attempt_id, material_once(), judge, prompts, accuracy=(verdict, rationale))
            judged = [with_context(v, call.material) for v in each.judge(call, missing)]
            verdicts.extend(judged)
            if each.gives_accuracy and judged:
                verdict, rationale, known = judged[0].verdict, judged[0].rationale, True
    except LLMInterruptedError:
        raise
    except LLMError as exc:
        # The endpoint failed after every retry: what is missing stays unjudged (a rerun judges it), and the
        # caller records the failure with its text.
        raise JudgeFailed(kind, exc) from exc
    finally:
        if verdicts:
            (store if sink is None else sink).append([NewEvent(v, actor=f"judge:{judge.model}") for v in verdicts])


def with_context(verdict: AnswerJudged, material: Any) -> AnswerJudged:
    """The verdict with what a judge context budget left out of its inputs (unchanged without a budget)."""
    if material.context is None:
        return verdict
    return verdict.model_copy(update={"details": {**(verdict.details or {}), "judge_context": material.context}})
