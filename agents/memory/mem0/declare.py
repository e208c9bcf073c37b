"""What the project knows of Mem0 without importing its SDK: its recipe, its method (Mem0 + Hybrid), and where
its class is (agents.memory.mem0.system, imported on first use). Found by
agents.memory.registry.discover_system_folders. MemKB's own recipes over Mem0's memories stay in query.recipes."""

from __future__ import annotations

from agents.memory.registry import declare_memory_system
from agents.methods.registry import HYBRID_KB, READ, MethodSpec, ToolBinding, register_method
from query.recipes import MemoryPart, Recipe, register_recipe

# The memory_search of the baselines: each system's memories, ranked as the system's own search ranks them.
MEM0 = register_recipe(
    Recipe(
        name="MEM0",
        description="memory search over Mem0's memories (cosine, as Mem0's search); no documents",
        memory=MemoryPart(channels=("semantic",), system="mem0", returned=True),
    ),
    rank=80,
)
register_method(
    MethodSpec(
        name="MEM0",
        label="Mem0 + Hybrid",
        description="memory search over Mem0's memories (its own search, cosine), a separate Hybrid knowledge "
        "search, and Read",
        tools=(ToolBinding(tool="memory_search", recipe="MEM0"), HYBRID_KB, READ),
        in_paper=True,
    ),
    "MEM0_HYBRID",
    rank=10,
)
declare_memory_system("mem0", "agents.memory.mem0.system")
