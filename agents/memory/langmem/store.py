"""LangMem's store for one profile: LangGraph's `InMemoryStore` (the store LangMem's memory manager reads and
writes) indexing each memory's text with the project's encoder, rebuilt from the evidence graph, and recording
every put and delete LangMem makes while it takes in a pair (they become the pair's MemoryWritten events).

Mapping: namespace `("memories", <profile id>)`; key = LangMem's memory key (recorded in the event metadata as
`key`); value = LangMem's `{"kind": "Memory", "content": {"content": <text>}}`; indexed field `content.content`,
the text the graph's Memory node embeds, so LangMem's `store.search` and the `LANGMEM` recipe rank by the same
cosine of the same vectors."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from langgraph.store.base import Op, PutOp, Result
from langgraph.store.memory import InMemoryStore

INDEXED_FIELD = "content.content"


def namespace_of(profile_id: str) -> tuple[str, str]:
    return ("memories", profile_id)


def memory_text(value: dict[str, Any] | None) -> str:
    """The text of a LangMem memory value (its `content.content`; other schemas: the content as given)."""
    content = (value or {}).get("content")
    if isinstance(content, dict):
        text = content.get("content")
        return str(text) if text is not None else ""
    return "" if content is None else str(content)


class RecordingStore(InMemoryStore):
    """InMemoryStore whose puts and deletes (PutOp, value None for a delete) are recorded while `recording`."""

    def __init__(self, encoder: Any) -> None:
        def embed(texts: list[str]) -> list[list[float]]:
            return [[float(x) for x in row] for row in encoder.encode(list(texts))] if texts else []

        index: Any = {"dims": int(encoder.dim), "embed": embed, "fields": [INDEXED_FIELD]}
        super().__init__(index=index)
        self._lock = threading.Lock()
        self.recorded: list[PutOp] | None = None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        with self._lock:
            if self.recorded is not None:
                self.recorded.extend(op for op in ops if isinstance(op, PutOp))
        return super().batch(ops)

    def start_recording(self) -> None:
        with self._lock:
            self.recorded = []

    def stop_recording(self) -> list[PutOp]:
        with self._lock:
            recorded, self.recorded = self.recorded or [], None
        return recorded
