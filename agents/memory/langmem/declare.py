"""What the project knows of LangMem without importing its SDK: its recipes, its method (LangMem + Hybrid), and
where its classes are (agents.memory.langmem.system, imported on first use): `langmem` (LangMem's defaults) and
`langmem_deletes` (its store manager with enable_deletes=True, not its default; no method of its own). Found by
agents.memory.registry.discover_system_folders."""

from __future__ import annotations

from agents.memory.registry import declare_memory_system
from agents.methods.registry import HYBRID_KB, READ, MethodSpec, ToolBinding, register_method
from query.recipes import MemoryPart, Recipe, register_recipe

LANGMEM = register_recipe(
    Recipe(
        name="LANGMEM",
        description="memory search over LangMem's memories (cosine over their text, as LangMem's store search); "
        "no documents",
        memory=MemoryPart(channels=("semantic",), system="langmem", returned=True),
    ),
    rank=115,
)
register_method(
    MethodSpec(
        name="LANGMEM",
        label="LangMem + Hybrid",
        description="memory search over LangMem's memories (its store's search, cosine), a separate Hybrid "
        "knowledge search, and Read",
        tools=(ToolBinding(tool="memory_search", recipe="LANGMEM"), HYBRID_KB, READ),
        in_paper=False,
    ),
    "LANGMEM_HYBRID",
    rank=35,
)
LANGMEM_DELETES = register_recipe(
    Recipe(
        name="LANGMEM_DELETES",
        description="memory search over the memories of LangMem with deletes enabled (cosine over their text, as "
        "LangMem's store search); no documents",
        memory=MemoryPart(channels=("semantic",), system="langmem_deletes", returned=True),
    ),
    rank=116,
)
declare_memory_system("langmem", "agents.memory.langmem.system")
declare_memory_system("langmem_deletes", "agents.memory.langmem.system")
