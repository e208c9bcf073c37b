"""The memory QA judge (HaluMem's QA axis): one of the profile's questions is answered from the memories the
system holds (the `answer_from_memories` reader, on the `judge` role's endpoint, sees only the retrieved
memories), then the answer is sorted into correct / hallucination / omission against the reference answer
(`judge_memory_qa`). One MemoryJudged verdict per question (`item_id`), the reader's answer and the memories
it used in `details`. A reader or judge reply that stays invalid is a recorded invalid verdict."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agents.judging.memory_base import MemoryJudge, MemoryJudgeCall, unknown_ids
from agents.llm.errors import LLMOutputError
from agents.prompts.memory_qa import ANSWER_FROM_MEMORIES, JUDGE_MEMORY_QA
from agents.prompts.template import PromptTemplate, render_messages
from graph.events import MemoryJudged

QaCategory = Literal["correct", "hallucination", "omission"]
QA_CATEGORIES: tuple[str, ...] = ("correct", "hallucination", "omission")


class MemoryAnswerOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: str
    used_memory_ids: list[str]


class MemoryQaOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str
    category: QaCategory


class MemoryQaJudge(MemoryJudge[MemoryQaOut]):
    name = "memory_qa"
    axis = "qa"
    description = "correct / hallucination / omission: a question of the profile answered from the memories only"
    output = MemoryQaOut
    template = JUDGE_MEMORY_QA
    reader: PromptTemplate = ANSWER_FROM_MEMORIES

    def templates(self) -> tuple[PromptTemplate, ...]:
        return (self.template, self.reader)

    def prompt_names(self) -> tuple[str, ...]:
        return (self.template.name, self.reader.name)

    def verdict_fields(self, out: MemoryQaOut) -> dict[str, Any]:
        return {"category": out.category, "reason": out.reason}

    def judge(self, call: MemoryJudgeCall) -> MemoryJudged:
        common = self.common_fields(call)
        reader = call.prompts[self.reader.name]
        try:
            answered = call.llm.structured(
                render_messages(reader, question=call.values["question"], memories=call.values["memories"]),
                MemoryAnswerOut,
                name="memory_qa_answer",
                check=lambda out: unknown_ids(out.used_memory_ids, call.memory_ids, "used_memory_ids"),
            )
        except LLMOutputError as exc:
            return MemoryJudged(
                **common,
                reason="the reader's reply stayed invalid after every retry",
                valid=False,
                details={**call.details, "problem": str(exc), "failed_step": "reader"},
                exchange=exc.exchange,
            )
        answer = answered.value
        used = list(dict.fromkeys(answer.used_memory_ids))
        details: dict[str, Any] = {
            **call.details,
            "answer": answer.answer,
            "reader_prompt_sha256": reader.sha256,
            # The reader's own exchange; the event's `exchange` is the judge's.
            "reader_exchange": answered.exchange,
            "tokens_in": answered.tokens_in,
            "tokens_out": answered.tokens_out,
        }
        template = call.prompts[self.template.name]
        values = {k: v for k, v in {**call.values, "answer": answer.answer}.items() if k in template.placeholders}
        try:
            graded = call.llm.structured(
                render_messages(template, **values),
                MemoryQaOut,
                name="memory_qa_verdict",
            )
        except LLMOutputError as exc:
            return MemoryJudged(
                **common,
                reason="the judge's reply stayed invalid after every retry",
                cited_memory_ids=used,
                valid=False,
                details={**details, "problem": str(exc), "failed_step": "judge"},
                exchange=exc.exchange,
            )
        details["tokens_in"] += graded.tokens_in
        details["tokens_out"] += graded.tokens_out
        details["attempts"] = len(answered.replies) + len(graded.replies)
        return MemoryJudged(
            **common, **self.verdict_fields(graded.value), cited_memory_ids=used, details=details,
            exchange=graded.exchange,
        )
