"""A memory system that lives outside the package, as one folder: this module (imported when COLABENCH_PLUGINS
names `tests.plugins.echo_memory`) declares its recipe, its method and where its class is, as a shipped system's
`agents/memory/<system>/declare.py` does; `system` holds the class, imported on first use. Nothing else in the
repository names it: it is in `memory systems`, the `--system` help, `query search --recipe`, and `--methods`."""

from __future__ import annotations

from agents.memory.registry import declare_memory_system
from agents.methods.registry import HYBRID_KB, READ, MethodSpec, ToolBinding, register_method
from query.recipes import Recipe, register_recipe

register_recipe(
    Recipe(
        name="PLUGIN_ECHO",
        description="memory search over the echo plug-in's memories (RRF of cosine and BM25); no documents",
        memory_channels=("semantic", "keyword"),
        return_memories=True,
        memory_system="plugin_echo",
    )
)
register_method(
    MethodSpec(
        name="PLUGIN_ECHO",
        label="Echo (plug-in) + Hybrid",
        description="memory search over the echo plug-in's memories, a separate Hybrid knowledge search, and Read",
        tools=(ToolBinding(tool="memory_search", recipe="PLUGIN_ECHO"), HYBRID_KB, READ),
    )
)
declare_memory_system("plugin_echo", "tests.plugins.echo_memory.system")
