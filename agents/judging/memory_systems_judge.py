"""The binary judge of the memory-systems QA line (J): CORRECT or WRONG on the question, the gold answer and
the generated answer, lenient on form. Adversarial questions (LoCoMo category 5, LongMemEval's `_abs`
questions) are graded by whether the answer declines (`judge_memory_systems_adversarial`); they are reported
apart as the abstention rate, never inside J.

One QaAnswerJudged per answer and judge run (`judge_run` 1..N, judgment id `<answer>:judge:<run>`), with the
judge's exchange, so each verdict opens its exact request. Like the LongMemEval judge it is not in the
attempt-judge registry (it grades QA answers, not agent attempts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.llm.client import LLMClient
from agents.llm.errors import LLMOutputError
from agents.prompts.template import PromptTemplate, render_messages
from graph.events import QaAnswerJudged

RULE_ANSWER = "memory_qa_binary"
RULE_ADVERSARIAL = "memory_qa_adversarial"


class BinaryQaVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: Literal["CORRECT", "WRONG"]
    reason: str = Field(default="", max_length=2000)


def judgment_id(answer_id: str, judge_run: int) -> str:
    return f"{answer_id}:judge:{judge_run}"


def judge_binary(
    llm: LLMClient,
    template: PromptTemplate,
    *,
    rule: str,
    judge_run: int,
    answer_id: str,
    qa_run_id: str,
    item_id: str,
    question: str,
    gold: str,
    answer: str,
) -> QaAnswerJudged:
    """The verdict event of one judge run; a reply that stays invalid after the client's re-asks is recorded as
    `valid=False, correct=False` (counted WRONG, and counted apart); endpoint errors propagate."""
    messages = render_messages(template, question=question, gold=gold or "(none)", answer=answer or "(no answer)")
    common: dict[str, Any] = {
        "judgment_id": judgment_id(answer_id, judge_run),
        "answer_id": answer_id,
        "qa_run_id": qa_run_id,
        "item_id": item_id,
        "rule": rule,
        "judge_model": llm.model,
        "prompt_name": template.name,
        "prompt_sha256": template.sha256,
        "judge_run": judge_run,
    }
    try:
        reply = llm.structured(messages, BinaryQaVerdict, name="memory_qa_verdict")
    except LLMOutputError as exc:
        return QaAnswerJudged(
            **common, correct=False, rationale=f"invalid judge reply: {exc}", valid=False, exchange=exc.exchange
        )
    return QaAnswerJudged(
        **common,
        correct=reply.value.label == "CORRECT",
        rationale=reply.value.reason,
        valid=True,
        tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out,
        exchange=reply.exchange,
    )
