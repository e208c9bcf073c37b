"""`mem0`: Mem0 (`mem0ai` 2.0.20, the paper's version; the non-graph path) building a profile's memories, one
`add()` per public user-assistant pair in history order, `user_id` = the profile, the pair's turn ids as metadata.

Mem0's vector store is the evidence graph (agents.memory.mem0.vector_store): what Mem0 writes while it takes
in a pair is buffered and returned as MemoryWritten events (ADD / UPDATE / DELETE, ids `mem0:<uuid>`, Mem0's
memory text, the pair's turns as sources), which the build appends with the pair's step in one transaction.
Mem0's own `search()` runs Cypher over the same Memory nodes; the project's `memory_search` (recipe MEM0)
ranks them by the same cosine. MemKB's cards are these memories.
"""

from __future__ import annotations

from typing import Any

from agents.memory.cut_replies import CutReplyAbort
from agents.memory.errors import MemoryBackendError
from agents.memory.pair_time import iso_created_at
from agents.memory.pairs import HistoryPair
from agents.memory.registry import BuildContext, MemorySystem, register_memory_system
from graph.events import MemoryWritten

SDK_VERSION = "2.0.20"


@register_memory_system
class Mem0System(MemorySystem):
    name = "mem0"
    label = "Mem0"
    description = f"Mem0 (mem0ai {SDK_VERSION}, non-graph): LLM-extracted memories, one add() per public pair"
    needs_llm = True
    search_recipe = "MEM0"
    qa_k = 30
    qa_k_source = "Mem0's LoCoMo evaluation harness searches with top_k 30 (its Makefile's search targets)"
    memkb_cards = True
    builder = f"mem0ai-{SDK_VERSION}/v1"
    # Mem0 logs "Error parsing extraction response" (an unparseable reply: no memories) and goes on; its warnings
    # without a traceback (no keyword search, no spaCy) are configuration notes, not failures
    sdk_loggers = ("mem0",)

    @classmethod
    def deviations(cls) -> list[str]:
        """Mem0's search signals this install does not score (BM25, entity boost), the same on every store."""
        from agents.memory.mem0.search_signals import detect_search_signals

        return detect_search_signals().deviations()

    def __init__(self, ctx: BuildContext) -> None:
        super().__init__(ctx)
        self._handle: Any = None
        self._pairs: dict[str, list[HistoryPair]] = {}

    @property
    def sdk(self) -> Any:
        """The Mem0 handle (Memory, graph store, history), opened on first use."""
        if self._handle is None:
            from agents.memory.mem0.sdk import open_mem0

            self._handle = open_mem0(self.ctx.store, self.ctx.llm, system=self.name)
        return self._handle

    def _earlier_pairs(self, profile_id: str, pair: HistoryPair) -> list[HistoryPair]:
        if profile_id not in self._pairs:
            from agents.history import load_public_history
            from agents.memory.pairs import history_pairs

            store = self.ctx.store
            self._pairs[profile_id] = history_pairs(load_public_history(store.driver, store.database, profile_id))
        pairs = self._pairs[profile_id]
        ids = [p.pair_id for p in pairs]
        return pairs[: ids.index(pair.pair_id)] if pair.pair_id in ids else []

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        messages = pair.messages()
        if not messages:
            return []
        sdk = self.sdk
        sdk.history.set_context(self._earlier_pairs(profile_id, pair))
        metadata: dict[str, Any] = {"source_turn_ids": pair.turn_ids, "pair_id": pair.pair_id}
        created_at = iso_created_at(self.name, pair)  # Mem0 writes created_at as ISO 8601 (UTC) itself
        if created_at is not None:
            metadata["created_at"] = created_at
        with sdk.store.pair_scope(profile_id, pair) as scope:
            try:
                sdk.memory.add(messages, user_id=profile_id, metadata=metadata)
            except CutReplyAbort as abort:
                raise abort.error from None
            except Exception as exc:
                raise MemoryBackendError(
                    f"memory system {self.name!r}, profile {profile_id!r}: Mem0's add() failed on pair "
                    f"{pair.pair_id!r} ({type(exc).__name__}: {exc}); nothing of the pair was written"
                ) from exc
            return scope.writes()

    def sdk_search(self, profile_id: str, query: str, k: int = 5) -> list[str]:
        return [str(hit["id"]) for hit in self.search(profile_id, query, top_k=k)]

    def search(self, profile_id: str, query: str, top_k: int = 5) -> list[dict[str, Any]]:
        """Mem0's own `Memory.search()` over the profile's memories in the graph."""
        result = self.sdk.memory.search(query, top_k=top_k, filters={"user_id": profile_id})
        return list(result["results"])

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
