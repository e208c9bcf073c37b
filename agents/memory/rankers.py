"""Opening the SDK rankers of memory systems whose `memory_search` ranks with the system's own search
(`MemorySystem.ranks_with_sdk`, e.g. Graphiti) and registering them with query.memory_rankers for as long as a
command runs. Searching needs no LLM: only the system's store and the project's encoder."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from agents.memory.registry import BuildContext, get_memory_system
from graph.cypher_files import load_cypher
from graph.store import EventStore
from query.memory_rankers import register_memory_ranker, unregister_memory_ranker


@contextmanager
def sdk_rankers(store: EventStore, systems: Iterable[str | None]) -> Iterator[list[str]]:
    """Register a ranker for every named system that ranks with its SDK; yields their names."""
    opened: list[str] = []
    with ExitStack() as stack:
        for name in sorted({s for s in systems if s}):
            cls = get_memory_system(name)
            if not cls.ranks_with_sdk or not _has_memories(store, cls.name):
                continue
            system: Any = cls(BuildContext(store=store))
            stack.callback(system.close)
            lock = threading.Lock()  # the SDK's event loop serves one search at a time

            def rank(
                profile_id: str, query: str, k: int, system: Any = system, lock: threading.Lock = lock
            ) -> list[str]:
                with lock:
                    return list(system.sdk_search(profile_id, query, k))

            register_memory_ranker(name, rank)
            stack.callback(unregister_memory_ranker, name)
            opened.append(name)
        yield opened


def _has_memories(store: EventStore, system: str) -> bool:
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("memory/system_has_memories"), system=system).single()
    return bool(record and record["present"])
