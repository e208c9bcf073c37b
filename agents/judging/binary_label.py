"""A binary-label judge (LongMemEval-V2 style): a system prompt and a user prompt filled with the question, the
reference answer, the method's whole response and its final answer; the reply is `{label: 0|1, reason}`.

Label 1 is recorded as verdict `pass` (score 1.0), label 0 as `fail` (score 0.0); a reply that stays invalid
after the retries is a recorded invalid verdict (valid False, verdict None), never dropped. The verdict stores
the SHA-256 of both prompts (and their verbatim pin label when a published prompt was used) in its details.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from agents.judging.base import Judge, JudgeCall
from agents.judging.judges import judgment_id
from agents.llm.errors import LLMOutputError
from agents.prompts.template import PromptTemplate
from graph.events import AnswerJudged

_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")


class BinaryLabelOut(BaseModel):
    """The judge's reply: label 1 (the answer handles the question as the rubric asks) or 0, and why."""

    model_config = ConfigDict(extra="forbid")
    label: Literal[0, 1]
    reason: str


def final_answer(answer: str) -> str:
    """The method's extracted final answer: the content of its last `\\boxed{...}` when it wrote one (the
    LongMemEval-V2 reader convention), otherwise the whole answer."""
    boxed = _BOXED.findall(answer or "")
    return boxed[-1].strip() if boxed else (answer or "")


class BinaryLabelJudge(Judge):
    """Base of the abstention and gotcha judges: one kind, a system and a user prompt, an item rule."""

    verdict_kind = "verdict"
    system_template: ClassVar[PromptTemplate]
    report_section: ClassVar[str | None] = "premise_judges"
    user_template: ClassVar[PromptTemplate]

    def templates(self) -> tuple[PromptTemplate, ...]:
        return (self.system_template, self.user_template)

    def recorded_prompt_names(self) -> tuple[str, ...]:
        return (self.system_template.name, self.user_template.name)

    def judge(self, call: JudgeCall, kinds: list[str]) -> list[AnswerJudged]:
        system = call.prompts[self.system_template.name]
        user = call.prompts[self.user_template.name]
        material = call.material
        messages = [
            {"role": "system", "content": system.render()},
            {
                "role": "user",
                "content": user.render(
                    question=material.question,
                    reference_answer=material.reference_answer,
                    model_full_response=material.answer,
                    model_final_answer=final_answer(material.answer),
                ),
            },
        ]
        prompts_used = {"system": system.record(), "user": user.record()}
        base: dict[str, Any] = {
            "judgment_id": judgment_id(call.attempt_id, self.name, call.llm.model, system),
            "attempt_id": call.attempt_id,
            "kind": self.name,
            "judge_model": call.llm.model,
            "prompt_name": system.name,
            "prompt_version": system.version,
            "prompt_sha256": system.sha256,
        }
        try:
            reply = call.llm.structured(messages, BinaryLabelOut, name=f"{self.name}_label")
        except LLMOutputError as exc:
            return [
                AnswerJudged(
                    **base,
                    rationale="the judge's reply stayed invalid after every retry",
                    valid=False,
                    details={"problem": str(exc), "prompts": prompts_used},
                    exchange=exc.exchange,
                )
            ]
        out = reply.value
        return [
            AnswerJudged(
                **base,
                exchange=reply.exchange,
                verdict="pass" if out.label == 1 else "fail",
                score=float(out.label),
                rationale=out.reason,  # judge rationales are gold (api/redaction.py: Judgment.rationale)
                details={
                    "label": out.label,
                    "prompts": prompts_used,
                    "tokens_in": reply.tokens_in,
                    "tokens_out": reply.tokens_out,
                },
            )
        ]

    def metric_fields(self, judgment: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # counted by the report section agents/reports/sections/premise_judges.py
