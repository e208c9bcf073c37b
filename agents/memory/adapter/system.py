"""`http:<name>`: a memory system behind the memory adapter protocol (docs/memory-adapter.md), one registered
class per named adapter (agents.memory.adapter.settings), made on first use.

Build: `GET /v1/info` checks the protocol version; a profile with no pair taken in yet is reset first
(`POST /v1/reset`); then each public pair not yet taken in is one `POST /v1/add` (batch id = the pair id, its
turns with ids, speaker, text, time), in history order, through agents.memory.build (resumable, a pair's writes
and step in one transaction). Each memory the reply names becomes a MemoryWritten event `http:<name>:<id>`
derived from the turns the adapter names; a memory naming a turn that was not sent for this profile (up to
and including this batch) refuses the whole batch: nothing of it is written. Search: `POST /v1/search`, the
project's memory ids best first (`sdk_search`; the recipe `HTTP:<NAME>` ranks with it).
"""

from __future__ import annotations

from typing import Any, ClassVar

from agents.llm.accounting import UsageLedger
from agents.memory.adapter.client import ROLE, AdapterClient
from agents.memory.adapter.protocol import PROTOCOL_VERSION, FoundMemory, Turn
from agents.memory.adapter.settings import adapter_settings
from agents.memory.errors import AdapterTraceError
from agents.memory.pairs import HistoryPair
from agents.memory.registry import (
    MEMORY_SYSTEMS,
    BuildContext,
    BuildReport,
    MemorySystem,
    register_memory_system,
)
from graph.events import MemoryWritten

BUILDER = f"http-adapter/p{PROTOCOL_VERSION}"


class HttpAdapterSystem(MemorySystem):
    """The base of every `http:<name>` class (never registered itself)."""

    name = "http_adapter"
    label = "HTTP memory adapter"
    description = "a memory system behind the colabench memory adapter protocol (JSON over HTTP)"
    needs_llm = False
    search_recipe = "HTTP:<NAME>"
    memkb_cards = False
    ranks_with_sdk = True
    builder = BUILDER
    adapter_name: ClassVar[str] = ""

    def __init__(self, ctx: BuildContext) -> None:
        super().__init__(ctx)
        self.settings = adapter_settings(self.adapter_name)
        ledger = ctx.ledger if ctx.ledger is not None else getattr(ctx.llm, "ledger", None)
        self.client = AdapterClient(self.settings, ledger if isinstance(ledger, UsageLedger) else None)
        self._pairs: dict[str, list[HistoryPair]] = {}

    # --- building --------------------------------------------------------------------------------

    def build(self, profile_id: str) -> BuildReport:
        from agents.memory.build import build_by_pairs, processed_pair_ids

        before = self._usage()
        info = self.client.check_info()
        self.builder = f"{BUILDER}/{info.name}-{info.version}"  # type: ignore[misc]  # known only now
        if not processed_pair_ids(self, profile_id):
            self.client.reset(profile_id)  # the adapter may hold an earlier, unrecorded build of this user
        self._pairs.pop(profile_id, None)
        report = build_by_pairs(self, profile_id)
        after = self._usage()
        report.add_counts(
            {
                "adapter_requests": after[0] - before[0],
                "adapter_retries": after[1] - before[1],
                "adapter_invalid_replies": after[2] - before[2],
            }
        )
        return report

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        turns = [
            Turn(
                turn_id=t.turn_id, session_id=t.session_id, role=t.role, speaker=t.speaker, text=t.text,
                timestamp=t.at or t.started_at,
            )
            for t in pair.turns
            if t.text.strip()
        ]
        if not turns:
            return []
        reply = self.client.add(profile_id, pair.pair_id, turns)
        sent = self._sent_turns(profile_id, pair)
        writes: list[MemoryWritten] = []
        for memory in reply.memories:
            for turn_id in memory.turn_ids:
                if turn_id not in sent:
                    raise AdapterTraceError(
                        f"{self.client.where('add')}: memory {memory.id!r} of batch {pair.pair_id!r} names turn "
                        f"{turn_id!r}, which is not a turn sent for profile {profile_id!r} so far; the batch is "
                        "refused: nothing of it was written"
                    )
            writes.append(
                MemoryWritten(
                    system=self.name,
                    memory_id=self.memory_id(memory.id),
                    profile_id=profile_id,
                    op=memory.op,
                    text=memory.text,
                    source_turn_ids=list(dict.fromkeys(memory.turn_ids)),
                    metadata={"adapter_id": memory.id, "batch_id": pair.pair_id, **memory.metadata},
                )
            )
        return writes

    def _sent_turns(self, profile_id: str, pair: HistoryPair) -> set[str]:
        """The turn ids of the profile's pairs up to and including `pair` (what the adapter has been sent)."""
        if profile_id not in self._pairs:
            from agents.history import load_public_history
            from agents.memory.pairs import history_pairs

            store = self.ctx.store
            self._pairs[profile_id] = history_pairs(load_public_history(store.driver, store.database, profile_id))
        sent: set[str] = set()
        for earlier in self._pairs[profile_id]:
            sent.update(earlier.turn_ids)
            if earlier.pair_id == pair.pair_id:
                break
        return sent

    # --- searching -------------------------------------------------------------------------------

    def memory_id(self, adapter_id: str) -> str:
        return f"{self.name}:{adapter_id}"

    def search_memories(self, profile_id: str, query: str, k: int = 5) -> list[FoundMemory]:
        """The adapter's own search, each memory under the project's memory id."""
        reply = self.client.search(profile_id, query, k)
        return [m.model_copy(update={"id": self.memory_id(m.id)}) for m in reply.memories[:k]]

    def sdk_search(self, profile_id: str, query: str, k: int = 5) -> list[str]:
        return [m.id for m in self.search_memories(profile_id, query, k)]

    def close(self) -> None:
        self.client.close()

    def _usage(self) -> tuple[int, int, int]:
        usage = self.client.ledger.snapshot().get(ROLE)
        if usage is None:
            return (0, 0, 0)
        return (usage.endpoint_requests, usage.retries, usage.invalid_replies)


def adapter_system(name: str) -> type[MemorySystem]:
    """The registered class of adapter `name` (made and registered on first use); AdapterConfigError says what
    to set when it is not configured."""
    settings = adapter_settings(name)
    system = settings.system
    existing = MEMORY_SYSTEMS.get(system)
    if existing is not None:
        return existing
    attrs: dict[str, Any] = {
        "name": system,
        "label": f"adapter {settings.name}",
        "description": f"the memory system behind the adapter {settings.name!r} (adapter protocol v{PROTOCOL_VERSION})",
        "search_recipe": f"HTTP:{settings.name.upper()}",
        "adapter_name": settings.name,
        "__module__": __name__,
    }
    return register_memory_system(type(f"HttpAdapter_{settings.name}", (HttpAdapterSystem,), attrs))
