"""The accuracy judge: pass / fail / needs_adjudication for the answer as a whole (Sec. 5.2, App. D.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.judging.base import Judge, JudgeCall
from agents.judging.judges import judge_accuracy
from agents.prompts.judging import JUDGE_ACCURACY
from agents.prompts.template import PromptTemplate
from graph.events import AnswerJudged


class AccuracyJudge(Judge):
    name = "accuracy"
    verdict_kind = "verdict"
    description = "pass, fail or needs_adjudication for the answer as a whole"
    metrics = ("verdict", "accuracy_valid")
    gives_accuracy = True

    def templates(self) -> tuple[PromptTemplate, ...]:
        return (JUDGE_ACCURACY,)

    def judge(self, call: JudgeCall, kinds: list[str]) -> list[AnswerJudged]:
        return [judge_accuracy(call.attempt_id, call.material, call.llm, call.prompts)]

    def metric_fields(self, judgment: Mapping[str, Any]) -> dict[str, Any]:
        return {"verdict": judgment["verdict"], "accuracy_valid": bool(judgment["valid"])}
