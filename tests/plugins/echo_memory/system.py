"""The echo plug-in's class (declared by the package's `__init__`): one memory per user turn of a pair,
verbatim."""

from __future__ import annotations

from agents.memory.pairs import HistoryPair
from agents.memory.registry import MemorySystem, register_memory_system
from graph.events import MemoryWritten


@register_memory_system
class PluginEcho(MemorySystem):
    name = "plugin_echo"
    label = "Echo (plug-in)"
    description = "one memory per user turn, verbatim, from a plug-in module"
    needs_llm = False
    search_recipe = "PLUGIN_ECHO"
    builder = "plugin-echo/v1"

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        return [
            MemoryWritten(
                system=self.name, memory_id=f"{self.name}:{t.turn_id}", profile_id=profile_id, op="ADD", text=t.text,
                source_turn_ids=[t.turn_id],
            )
            for t in pair.turns
            if t.role == "user" and t.text.strip()
        ]
