"""The `http:<name>` family of the memory registry: every configured adapter is a memory system, its class made
on first use (agents.memory.adapter.system, imported only then, so listing names costs no HTTP client)."""

from __future__ import annotations

from agents.memory.adapter.settings import PREFIX, configured_adapter_names
from agents.memory.registry import MemoryFamily, MemorySystem, register_memory_family


def _make(name: str) -> type[MemorySystem]:
    from agents.memory.adapter.system import adapter_system

    return adapter_system(name)


register_memory_family(
    MemoryFamily(
        prefix=PREFIX,
        make=_make,
        names=lambda: [f"{PREFIX}{n}" for n in configured_adapter_names()],
        help="http:NAME (an adapter at COLABENCH_MEMORY_ADAPTER_<NAME>_URL)",
    )
)
