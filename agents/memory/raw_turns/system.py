"""`raw_turns`: the no-LLM memory system. One card per user turn, verbatim (the query room's builder,
agents.memory.cards.raw_turn_cards); MemKB can link its cards. It batches over all of a profile's turns instead of
building by pair."""

from __future__ import annotations

import time

from agents.memory.cards.raw_turn_cards import BUILDER, SYSTEM, build_raw_turn_cards
from agents.memory.registry import BuildReport, MemorySystem, register_memory_system


@register_memory_system
class RawTurns(MemorySystem):
    name = SYSTEM
    label = "Raw turns"
    description = "one card per user turn (both speakers' turns where both are people: LoCoMo), verbatim; no LLM"
    needs_llm = False
    search_recipe = "RAW_TURNS"
    qa_k = 10
    qa_k_source = "colabench's default for its own verbatim baseline (LongMemEval's retrieval figures use k = 10)"
    memkb_cards = True
    builder = BUILDER

    def build(self, profile_id: str) -> BuildReport:
        started = time.perf_counter()
        counts = build_raw_turn_cards(self.ctx.store, profile_id, progress=self.ctx.progress)
        report = BuildReport(system=self.name, profile_id=profile_id, memories_added=counts["cards_added"])
        report.add_counts(counts)
        report.seconds = round(time.perf_counter() - started, 3)
        return report
