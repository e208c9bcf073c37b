"""What the project knows of A-MEM without importing its SDK: its recipe (notes expanded through their links),
its method (A-MEM + Hybrid), and where its class is (agents.memory.amem.system, imported on first use). Found by
agents.memory.registry.discover_system_folders."""

from __future__ import annotations

from agents.memory.registry import declare_memory_system
from agents.methods.registry import HYBRID_KB, READ, MethodSpec, ToolBinding, register_method
from query.recipes import MemoryPart, Recipe, register_recipe

AMEM = register_recipe(
    Recipe(
        name="AMEM",
        description="memory search over A-MEM's notes (cosine, as A-MEM's retriever), expanded through the notes' "
        "links and capped at 5,120 tokens, notes whole (query.linked_memory_response); no documents",
        memory=MemoryPart(channels=("semantic",), system="amem", returned=True, response="link_expanded"),
    ),
    rank=110,
)
register_method(
    MethodSpec(
        name="AMEM",
        label="A-MEM + Hybrid",
        description="memory search over A-MEM's notes (its retriever), a separate Hybrid knowledge search, and Read",
        tools=(ToolBinding(tool="memory_search", recipe="AMEM"), HYBRID_KB, READ),
        in_paper=True,
    ),
    "AMEM_HYBRID",
    rank=30,
)
declare_memory_system("amem", "agents.memory.amem.system")
