"""Mem0's message history (the "Last k Messages" of its extraction prompt) read from the graph's history.

Mem0 keeps the messages of earlier `add()` calls in its SQLite database and shows the last ten in each
extraction prompt. Here they are the messages of the profile's earlier public pairs, so the prompt of a pair
is the same whether the build ran in one go or was resumed in a new process (and the LLM cache answers it).
Mem0's own history rows stay in an in-memory database: the graph's events are the history of record.
"""

from __future__ import annotations

from typing import Any

from mem0.memory.storage import SQLiteManager

from agents.memory.pair_time import iso_created_at
from agents.memory.pairs import HistoryPair


class PairHistory(SQLiteManager):
    """`SQLiteManager` in memory whose last messages are those of the pairs before the current one."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self._last: list[dict[str, Any]] = []

    def set_context(self, earlier_pairs: list[HistoryPair]) -> None:
        messages: list[dict[str, Any]] = []
        for pair in earlier_pairs:
            at = iso_created_at("mem0", pair)  # as Mem0's own history rows hold it
            messages += [{"role": m["role"], "content": m["content"], "name": None, "created_at": at}
                         for m in pair.messages()]
        self._last = messages

    def get_last_messages(self, session_scope: str, limit: int = 10) -> list[dict[str, Any]]:
        return list(self._last[-limit:]) if limit > 0 else []

    def save_messages(self, messages: list[dict[str, Any]], session_scope: str) -> None:
        return None  # the turns are in the graph already
