"""What the project knows of `raw_turns` without importing it: its recipe, its method, and where its class is
(agents.memory.raw_turns.system, imported on first use). Found by agents.memory.registry.discover_system_folders."""

from __future__ import annotations

from agents.memory.registry import declare_memory_system
from agents.methods.registry import HYBRID_KB, READ, MethodSpec, ToolBinding, register_method
from query.recipes import MemoryPart, Recipe, register_recipe

RAW_TURNS = register_recipe(
    Recipe(
        name="RAW_TURNS",
        description="memory search over raw user-turn cards (RRF of cosine and BM25); no documents",
        memory=MemoryPart(channels=("semantic", "keyword"), system="raw_turns", returned=True),
        keyword_analyzer="plain",  # as HYBRID's memory line
    ),
    rank=70,
)
register_method(
    MethodSpec(
        name="RAW_TURNS",
        label="Raw turns + Hybrid",
        description="memory search over verbatim user-turn cards, separate Hybrid knowledge search, and Read",
        tools=(ToolBinding(tool="memory_search", recipe="RAW_TURNS"), HYBRID_KB, READ),
    ),
    "RAW_TURNS_HYBRID",
    rank=70,
)
declare_memory_system("raw_turns", "agents.memory.raw_turns.system")
