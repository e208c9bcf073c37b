"""The memory update judge: what a system's memories do with a fact that replaced an earlier one (correct /
hallucination / omission / other), with a reason and the memories it rests on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agents.judging.memory_base import MemoryJudge, MemoryJudgeCall, unknown_ids
from agents.prompts.memory_judging import JUDGE_MEMORY_UPDATE

UpdateCategory = Literal["correct", "hallucination", "omission", "other"]


class MemoryUpdateOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str
    category: UpdateCategory
    cited_memory_ids: list[str]


class MemoryUpdateJudge(MemoryJudge[MemoryUpdateOut]):
    name = "memory_update"
    axis = "update"
    description = "correct / hallucination / omission / other: did the memories take in a superseding fact?"
    output = MemoryUpdateOut
    template = JUDGE_MEMORY_UPDATE

    def problem(self, out: MemoryUpdateOut, call: MemoryJudgeCall) -> str | None:
        return unknown_ids(out.cited_memory_ids, call.memory_ids, "cited_memory_ids")

    def verdict_fields(self, out: MemoryUpdateOut) -> dict[str, Any]:
        return {
            "category": out.category,
            "reason": out.reason,
            "cited_memory_ids": list(dict.fromkeys(out.cited_memory_ids)),
        }
