"""The memory integrity judge: how well a system's stored memories carry one expected memory point (a fact
disclosed in the history), 0/1/2 with a reason and the memories it rests on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agents.judging.memory_base import MemoryJudge, MemoryJudgeCall, unknown_ids
from agents.prompts.memory_judging import JUDGE_MEMORY_INTEGRITY


class MemoryIntegrityOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str
    score: Literal[0, 1, 2]
    cited_memory_ids: list[str]


class MemoryIntegrityJudge(MemoryJudge[MemoryIntegrityOut]):
    name = "memory_integrity"
    axis = "integrity"
    description = "0/1/2: do the stored memories carry this expected memory point (a disclosed fact)?"
    output = MemoryIntegrityOut
    template = JUDGE_MEMORY_INTEGRITY

    def problem(self, out: MemoryIntegrityOut, call: MemoryJudgeCall) -> str | None:
        return unknown_ids(out.cited_memory_ids, call.memory_ids, "cited_memory_ids")

    def verdict_fields(self, out: MemoryIntegrityOut) -> dict[str, Any]:
        return {"score": out.score, "reason": out.reason, "cited_memory_ids": list(dict.fromkeys(out.cited_memory_ids))}
