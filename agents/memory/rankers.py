"""Opening the SDK rankers of memory systems whose `memory_search` ranks with the system's own search
(`MemorySystem.ranks_with_sdk`, e.g. Graphiti) and registering them with query.memory_rankers for as long as a
command runs. The SDK is opened on the first search that needs it (so a command whose recipes never reach
such memories pays nothing, and memories built during the command are found) and closed at the end.
Searching needs no LLM: only the system's store and the project's encoder."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from agents.memory.registry import BuildContext, get_memory_system
from graph.store import EventStore
from query.memory_rankers import register_memory_ranker, unregister_memory_ranker


class _LazyRanker:
    """Opens the system on first use; one search at a time (the SDK's event loop serves one caller)."""

    def __init__(self, store: EventStore, name: str) -> None:
        self.store = store
        self.name = name
        self.system: Any = None
        self.lock = threading.Lock()

    def __call__(self, profile_id: str, query: str, k: int) -> list[str]:
        with self.lock:
            if self.system is None:
                self.system = get_memory_system(self.name)(BuildContext(store=self.store))
            return list(self.system.sdk_search(profile_id, query, k))

    def close(self) -> None:
        with self.lock:
            if self.system is not None:
                self.system.close()
                self.system = None


@contextmanager
def sdk_rankers(store: EventStore, systems: Iterable[str | None]) -> Iterator[list[str]]:
    """Register a ranker for every named system that ranks with its SDK; yields their names."""
    registered: list[str] = []
    with ExitStack() as stack:
        for name in sorted({s for s in systems if s}):
            if not get_memory_system(name).ranks_with_sdk:
                continue
            ranker = _LazyRanker(store, name)
            register_memory_ranker(name, ranker)
            stack.callback(ranker.close)
            stack.callback(unregister_memory_ranker, name)
            registered.append(name)
        yield registered
