"""The answer-quality judge: one blind call per dimension (App. D.2), kinds `quality:<dimension>`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.judging.base import Judge, JudgeCall
from agents.judging.judges import judge_quality
from agents.prompts.judging import JUDGE_QUALITY, QUALITY_DIMENSIONS
from agents.prompts.template import PromptTemplate
from graph.events import AnswerJudged


class QualityJudge(Judge):
    name = "quality"
    verdict_kind = "score"
    description = "a 1-5 score per answer-quality dimension"
    metrics = ("quality",)

    def templates(self) -> tuple[PromptTemplate, ...]:
        return tuple(JUDGE_QUALITY.values())

    def kinds(self) -> tuple[str, ...]:
        return tuple(f"quality:{d}" for d in QUALITY_DIMENSIONS)

    def judge(self, call: JudgeCall, kinds: list[str]) -> list[AnswerJudged]:
        dimensions = [k.split(":", 1)[1] for k in kinds]
        return judge_quality(call.attempt_id, call.material, call.llm, call.prompts, dimensions=dimensions)

    def metric_fields(self, judgment: Mapping[str, Any]) -> dict[str, Any]:
        if judgment["score"] is None:
            return {}
        return {"quality": {str(judgment["kind"]).split(":", 1)[1]: float(judgment["score"])}}
