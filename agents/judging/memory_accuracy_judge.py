"""The memory accuracy judge: is one extracted memory true to the turns it came from and the profile's gold
facts (0/1/2), and does it belong to the gold facts (in_gold), with a reason and the facts it rests on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agents.judging.memory_base import MemoryJudge, MemoryJudgeCall, unknown_ids
from agents.prompts.memory_judging import JUDGE_MEMORY_ACCURACY


class MemoryAccuracyOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str
    score: Literal[0, 1, 2]
    in_gold: bool
    cited_fact_ids: list[str]


class MemoryAccuracyJudge(MemoryJudge[MemoryAccuracyOut]):
    name = "memory_accuracy"
    axis = "accuracy"
    description = "0/1/2: is this extracted memory supported by its turns and the gold facts; is it in the gold?"
    output = MemoryAccuracyOut
    template = JUDGE_MEMORY_ACCURACY

    def problem(self, out: MemoryAccuracyOut, call: MemoryJudgeCall) -> str | None:
        return unknown_ids(out.cited_fact_ids, call.fact_ids, "cited_fact_ids")

    def verdict_fields(self, out: MemoryAccuracyOut) -> dict[str, Any]:
        return {
            "score": out.score,
            "in_gold": out.in_gold,
            "reason": out.reason,
            "cited_fact_ids": list(dict.fromkeys(out.cited_fact_ids)),
        }
