"""The `http:<name>` family of the memory registry: every configured adapter is a memory system, its class made
on first use (agents.memory.adapter.system, imported only then, so listing names costs no HTTP client), and its
`memory_search` recipe is `HTTP:<NAME>` (made here, registered with query.recipes as a recipe family). Found by
agents.memory.registry.discover_system_folders."""

from __future__ import annotations

from agents.memory.adapter.settings import PREFIX, configured_adapter_names
from agents.memory.registry import MemoryFamily, MemorySystem, register_memory_family
from query.recipes import MemoryPart, Recipe, register_recipe_family

ADAPTER_RECIPE_PREFIX = PREFIX.upper()


def adapter_recipe(system: str) -> Recipe:
    """The `memory_search` recipe of the memory adapter `http:<name>`: its memories ranked by the adapter's own
    search (a ranker the writing side registers, query.memory_rankers); no documents."""
    adapter = system.strip().lower().removeprefix(PREFIX)
    return Recipe(
        name=f"{ADAPTER_RECIPE_PREFIX}{adapter.upper()}",
        description=f"memory search over the memories of adapter {adapter!r}, ranked by the adapter's own search "
        "(docs/memory-adapter.md); no documents",
        memory=MemoryPart(channels=("semantic",), system=f"{PREFIX}{adapter}", returned=True, sdk_ranking=True),
    )


def _make(name: str) -> type[MemorySystem]:
    from agents.memory.adapter.system import adapter_system

    return adapter_system(name)


register_recipe_family(ADAPTER_RECIPE_PREFIX, adapter_recipe)
register_memory_family(
    MemoryFamily(
        prefix=PREFIX,
        make=_make,
        names=lambda: [f"{PREFIX}{n}" for n in configured_adapter_names()],
        help="http:NAME (an adapter at COLABENCH_MEMORY_ADAPTER_<NAME>_URL)",
    )
)
