"""Memory preparation per memory system: before a run, every profile of the run gets the cards (and links)
its method reads. `raw_turns` uses the no-LLM builder of the query room; later systems (mem0, graphiti,
amem) register their own preparer here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph.store import EventStore

MemoryPreparer = Callable[[EventStore, Any, str], dict[str, int]]

MEMORY_PREPARERS: dict[str, MemoryPreparer] = {}


def register_memory_preparer(system: str, preparer: MemoryPreparer) -> None:
    MEMORY_PREPARERS[system] = preparer


def prepare_memory(system: str, store: EventStore, retriever: Any, profile_id: str) -> dict[str, int]:
    """Build what is missing of `system`'s memory for one profile (incremental: existing cards are kept)."""
    preparer = MEMORY_PREPARERS.get(system)
    if preparer is None:
        raise ValueError(
            f"no memory preparer for memory system {system!r}; known: {', '.join(sorted(MEMORY_PREPARERS))}"
        )
    return preparer(store, retriever, profile_id)


def _prepare_raw_turns(store: EventStore, retriever: Any, profile_id: str) -> dict[str, int]:
    from query.memory import update_profile_memory

    counts: dict[str, int] = update_profile_memory(store, retriever, profile_id, system="raw_turns")
    return counts


register_memory_preparer("raw_turns", _prepare_raw_turns)
