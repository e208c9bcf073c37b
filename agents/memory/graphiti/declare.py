"""What the project knows of Graphiti without importing its SDK: its recipes (its own ranking, and the
project's RRF approximation), its method (Graphiti + Hybrid), and where its class is
(agents.memory.graphiti.system, imported on first use). Found by agents.memory.registry.discover_system_folders."""

from __future__ import annotations

from agents.memory.registry import declare_memory_system
from agents.methods.registry import HYBRID_KB, READ, MethodSpec, ToolBinding, register_method
from query.recipes import MemoryPart, Recipe, register_recipe

GRAPHITI = register_recipe(
    Recipe(
        name="GRAPHITI",
        description="memory search over Graphiti's relation facts, ranked by Graphiti's own hybrid search (BM25 and "
        "cosine over its facts, RRF); no documents",
        memory=MemoryPart(channels=("semantic", "keyword"), system="graphiti", returned=True, sdk_ranking=True),
    ),
    rank=90,
)
GRAPHITI_RRF = register_recipe(
    GRAPHITI.model_copy(
        update={
            "name": "GRAPHITI_RRF",
            "description": "memory search over Graphiti's relation facts ranked by the project's RRF of cosine and "
            "BM25 (not Graphiti's ranking: a faster approximation, measured against it in bench/bench_memory.py)",
            "sdk_ranking": False,
        }
    ),
    rank=100,
)
register_method(
    MethodSpec(
        name="GRAPHITI",
        label="Graphiti + Hybrid",
        description="memory search over Graphiti's relation facts (its hybrid search), a separate Hybrid knowledge "
        "search, and Read",
        tools=(ToolBinding(tool="memory_search", recipe="GRAPHITI"), HYBRID_KB, READ),
        in_paper=True,
    ),
    "GRAPHITI_HYBRID",
    rank=20,
)
declare_memory_system("graphiti", "agents.memory.graphiti.system")
