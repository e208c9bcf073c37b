"""The LongMemEval QA judge: picks the grading rule of a question (abstention by the `_abs` question id,
else by question type) and asks the judge role for a yes/no verdict under that rule's prompt. It grades the
question, the reference (or rubric) and the response only, never the history: it checks the final answer,
not how it was found.

It is not in the attempt-judge registry (agents.judging.registry), whose judges grade agent attempts from
their tool traces; its prompts follow the same naming (`judge_lme_qa_<rule>`) and are pinned by SHA-256 on
every verdict (QaAnswerJudged.prompt_sha256)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field

from agents.llm.client import LLMClient
from agents.llm.errors import LLMOutputError
from agents.prompts.qa_judging import QA_JUDGE_PROMPTS
from agents.prompts.template import PromptTemplate, render_messages
from graph.events import QaAnswerJudged

# LongMemEval's question types -> the rule that grades them (abstention overrides by question id).
RULE_OF_TYPE = {
    "temporal-reasoning": "temporal",
    "knowledge-update": "knowledge_update",
    "single-session-preference": "preference",
}


class QaVerdict(BaseModel):
    """The judge's reply."""

    verdict: Literal["yes", "no"]
    reason: str = Field(default="", max_length=2000)


def grading_rule(question_id: str, question_type: str) -> str:
    """The rule for a question: `abstention` for ids ending in `_abs`, else by type (`default` otherwise)."""
    if question_id.endswith("_abs"):
        return "abstention"
    return RULE_OF_TYPE.get(question_type, "default")


def rule_prompt(rule: str) -> PromptTemplate:
    return QA_JUDGE_PROMPTS[rule]


def judge_qa_answer(
    llm: LLMClient,
    *,
    answer_id: str,
    qa_run_id: str,
    item_id: str,
    question_id: str,
    question_type: str,
    question: str,
    reference: str,
    answer: str,
    templates: Mapping[str, PromptTemplate] | None = None,
) -> QaAnswerJudged:
    """The verdict event for one answer; an invalid judge reply (after the client's re-asks) is recorded as
    `valid=False, correct=False` so it stays visible; endpoint errors propagate."""
    rule = grading_rule(question_id, question_type)
    template = templates[rule] if templates is not None else rule_prompt(rule)  # `eval qa --prompt` overrides
    label = {"preference": "Rubric", "abstention": "What is missing"}.get(rule, "Reference answer")
    messages = render_messages(
        template, question=question, reference_label=label, reference=reference, answer=answer or "(no answer)"
    )
    try:
        reply = llm.structured(messages, QaVerdict, name="lme_qa_verdict")
    except LLMOutputError as exc:
        return QaAnswerJudged(
            judgment_id=f"{answer_id}:judge",
            answer_id=answer_id,
            qa_run_id=qa_run_id,
            item_id=item_id,
            rule=rule,
            correct=False,
            rationale=f"invalid judge reply: {exc}",
            valid=False,
            judge_model=llm.model,
            prompt_name=template.name,
            prompt_sha256=template.sha256,
            exchange=exc.exchange,
        )
    return QaAnswerJudged(
        judgment_id=f"{answer_id}:judge",
        answer_id=answer_id,
        qa_run_id=qa_run_id,
        item_id=item_id,
        rule=rule,
        correct=reply.value.verdict == "yes",
        rationale=reply.value.reason,
        valid=True,
        judge_model=llm.model,
        prompt_name=template.name,
        prompt_sha256=template.sha256,
        tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out,
        exchange=reply.exchange,
    )
