"""The judge panel: `run --judge-models A,B,...` asks the accuracy judge with every listed model.

The first model is the primary judge: its verdicts are the run's accuracy verdicts (mirrored on the attempt,
counted by every metric). Each further model is a panel judge: its AnswerJudged has kind `accuracy`, its own
`judge_model` (so its own judgment id) and `details.panel = true` with the primary model named; the
projection never mirrors a panel verdict onto the attempt, and metrics only count the primary model's
verdicts. Panel judges use the judge role's endpoint and parameters with their own model name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents.judging.judges import judge_accuracy, judgment_id
from agents.judging.reference import JudgeMaterial
from agents.llm.client import LLMClient
from agents.llm.errors import LLMError, LLMInterruptedError
from agents.prompts.registry import PromptSet
from graph.errors import UsageError
from graph.events import AnswerJudged, NewEvent
from graph.store import EventSink

PANEL_KEY = "panel"


class JudgeModelsError(UsageError):
    """`--judge-models` names no model, one model twice, or is given without the accuracy judge."""


class PanelJudgeFailed(Exception):
    """A panel judge's endpoint failed on an attempt (the panel verdicts obtained before it are appended)."""

    def __init__(self, model: str, error: LLMError) -> None:
        super().__init__(f"panel judge {model}: {error}")
        self.kind = f"accuracy@{model}"
        self.error = error


def parse_judge_models(text: str | None, judges: Sequence[str]) -> tuple[str, ...]:
    """`A,B` -> ("A", "B") (first = primary judge); None or "" -> (). Raises JudgeModelsError naming the problem."""
    if not text or not text.strip():
        return ()
    models = [m.strip() for m in text.split(",")]
    if any(not m for m in models):
        raise JudgeModelsError(f"--judge-models {text!r}: an empty model name (write A,B with no empty entries)")
    twice = sorted({m for m in models if models.count(m) > 1})
    if twice:
        raise JudgeModelsError(f"--judge-models {text!r}: {', '.join(twice)} listed more than once")
    if "accuracy" not in judges:
        raise JudgeModelsError(
            "--judge-models asks every model for the accuracy verdict: include the accuracy judge in --judges"
        )
    return tuple(models)


def panel_judgment_ids(attempt_id: str, models: Sequence[str], prompts: PromptSet) -> dict[str, str]:
    """panel model -> the judgment id its accuracy verdict on this attempt has."""
    template = prompts["judge_accuracy"]
    return {model: judgment_id(attempt_id, "accuracy", model, template) for model in models}


def panel_complete(previous: dict[str, Any] | None, attempt_id: str, models: Sequence[str], prompts: PromptSet) -> bool:
    """Every panel model has judged this answered attempt (True when there is no panel)."""
    if not models:
        return True
    if not previous or previous.get("status") != "answered":
        return False
    have = set(previous.get("judgment_ids") or [])
    return all(j in have for j in panel_judgment_ids(attempt_id, models, prompts).values())


def mark_panel(verdict: AnswerJudged, primary_model: str, material: JudgeMaterial) -> AnswerJudged:
    """The verdict marked as a panel verdict (never the attempt's accuracy verdict)."""
    details = {**(verdict.details or {}), PANEL_KEY: True, "primary_judge_model": primary_model}
    if material.context is not None:
        details["judge_context"] = material.context
    return verdict.model_copy(update={"details": details})


def judge_with_panel(
    store: EventSink,
    attempt_id: str,
    previous: dict[str, Any],
    panel: Sequence[LLMClient],
    prompts: PromptSet,
    material: Callable[[], JudgeMaterial],
    *,
    primary_model: str,
) -> int:
    """Ask each panel model that has not judged the attempt yet for its accuracy verdict; append them in one
    transaction (those obtained before an endpoint failure too) and return how many were written. An endpoint
    failure raises PanelJudgeFailed after that; Ctrl-C (LLMInterruptedError) propagates."""
    have = set(previous.get("judgment_ids") or []) if previous.get("status") == "answered" else set()
    wanted = panel_judgment_ids(attempt_id, [c.model for c in panel], prompts)
    verdicts: list[AnswerJudged] = []
    shown: JudgeMaterial | None = None
    try:
        for client in panel:
            if wanted[client.model] in have:
                continue
            if shown is None:
                shown = material()
            try:
                verdict = judge_accuracy(attempt_id, shown, client, prompts)
            except LLMInterruptedError:
                raise
            except LLMError as exc:
                raise PanelJudgeFailed(client.model, exc) from exc
            verdicts.append(mark_panel(verdict, primary_model, shown))
    finally:
        if verdicts:
            store.append([NewEvent(v, actor=f"judge:{v.judge_model}") for v in verdicts])
    return len(verdicts)
