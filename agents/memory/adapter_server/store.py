"""The reference adapter's memory: one memory per turn (`speaker: text`), searched by keyword overlap weighted
by inverse document frequency over the user's memories. No LLM, no embedding: small enough to read whole."""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass

from agents.memory.adapter.protocol import FoundMemory, Turn, WrittenMemory

_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


@dataclass
class StoredMemory:
    id: str
    batch_id: str
    text: str
    turn_ids: list[str]
    terms: frozenset[str]


class KeywordMemory:
    """Memories per user, in the order they were added; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[str, list[StoredMemory]] = {}

    def reset(self, user_id: str) -> int:
        with self._lock:
            return len(self._users.pop(user_id, []))

    def add(self, user_id: str, batch_id: str, turns: list[Turn]) -> list[WrittenMemory]:
        """One memory per turn with text; a batch sent again replaces what it wrote before (same ids: UPDATE)."""
        with self._lock:
            memories = self._users.setdefault(user_id, [])
            before = {m.id for m in memories if m.batch_id == batch_id}
            memories[:] = [m for m in memories if m.batch_id != batch_id]
            written: list[WrittenMemory] = []
            for turn in turns:
                if not turn.text.strip():
                    continue
                text = f"{turn.speaker or turn.role}: {turn.text.strip()}"
                memory = StoredMemory(
                    id=f"m-{turn.turn_id}", batch_id=batch_id, text=text, turn_ids=[turn.turn_id],
                    terms=frozenset(tokens(text)),
                )
                memories.append(memory)
                written.append(
                    WrittenMemory(
                        id=memory.id, op="UPDATE" if memory.id in before else "ADD", text=text,
                        turn_ids=memory.turn_ids,
                    )
                )
            kept = {w.id for w in written}
            written += [WrittenMemory(id=gone, op="DELETE") for gone in sorted(before - kept)]
            return written

    def search(self, user_id: str, query: str, k: int) -> list[FoundMemory]:
        """The `k` memories sharing the most (idf-weighted) words with the query; none share none."""
        with self._lock:
            memories = list(self._users.get(user_id, []))
        wanted = set(tokens(query))
        if not memories or not wanted:
            return []
        df = {t: sum(1 for m in memories if t in m.terms) for t in wanted}
        n = len(memories)
        scored = []
        for order, memory in enumerate(memories):
            score = sum(math.log(1 + n / df[t]) for t in wanted if t in memory.terms)
            if score > 0:
                scored.append((-score, order, memory))
        scored.sort(key=lambda row: (row[0], row[1]))
        return [
            FoundMemory(id=m.id, text=m.text, score=round(-neg, 6), turn_ids=m.turn_ids)
            for neg, _, m in scored[:k]
        ]

    def stats(self) -> tuple[int, int, dict[str, int]]:
        with self._lock:
            per_user = {user: len(memories) for user, memories in self._users.items()}
        return len(per_user), sum(per_user.values()), per_user
