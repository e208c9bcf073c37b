"""The error analysis of failed answers: main and secondary error category and evidence visibility (App. D.3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.judging.base import Judge, JudgeCall
from agents.judging.judges import analyse_error
from agents.prompts.judging import JUDGE_ERROR_ANALYSIS
from agents.prompts.template import PromptTemplate
from graph.events import AnswerJudged


class ErrorAnalysisJudge(Judge):
    name = "error_analysis"
    verdict_kind = "category"
    description = "error category and evidence visibility of a failed answer"
    metrics = ("error_category", "visibility")
    needs_accuracy = True

    def templates(self) -> tuple[PromptTemplate, ...]:
        return (JUDGE_ERROR_ANALYSIS,)

    def applies(self, accuracy_verdict: str | None) -> bool:
        return accuracy_verdict == "fail"

    def judge(self, call: JudgeCall, kinds: list[str]) -> list[AnswerJudged]:
        return [analyse_error(call.attempt_id, call.material, call.accuracy[1], call.llm, call.prompts)]

    def metric_fields(self, judgment: Mapping[str, Any]) -> dict[str, Any]:
        if not judgment["valid"]:
            return {}
        return {"error_category": judgment["error_category"], "visibility": judgment["visibility"]}
