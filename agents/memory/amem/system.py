"""`amem`: A-MEM (PyPI `a-mem` 0.2.6, module `agentic_memory`), the agentic memory of Xu et al., through its SDK.

One `add_note` per public user–assistant pair, in history order (content: the pair's messages as
`role: text` lines; time: the pair's time as A-MEM's YYYYMMDDHHMM). A-MEM's own code does the rest: the LLM
constructs the note (keywords, context, tags), finds its nearest notes, and decides the evolution
(`strengthen`: link the new note to neighbours and retag it; `update_neighbor`: rewrite neighbours' context
and tags). Every LLM call goes through the project's client (agents.memory.amem.controller, cached and
counted; a server that rejects or ignores `json_schema` stops the build with a MemoryBackendError), and
A-MEM's Chroma collection embeds with the project's encoder (agents.memory.amem.notes).

Events (returned to agents.memory.build, appended with the pair's MemoryPairProcessed in one transaction):
- the new note is an ADD of `amem:<note id>` (note id = the pair id), text = A-MEM's retrieval text (content,
  then ` context: ...`, ` keywords: ...`, ` tags: ...`, exactly as its ChromaRetriever embeds it), source turns =
  the pair's turns, metadata = keywords, context, tags, links (as `amem:<id>`), timestamp, category;
- an earlier note an evolution rewrote is an UPDATE of that note with its full new state. It keeps its *own*
  source turns (its content is still its own pair's text; the evolution only re-describes it) and records the
  evolving pair and note in metadata (`evolved_by_pair`, `evolved_by_memory`).

The graph is the source of truth: before the first pair of a profile (or after a failure, or when the last
pair's writes are not in the graph), A-MEM's collection and cache are rebuilt from the profile's
`Memory {system: 'amem'}` nodes and their latest events, so a killed build resumes with every earlier note
visible to evolution and writes no duplicate.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from agents.memory.build import processed_pair_ids
from agents.memory.errors import MemoryBackendError
from agents.memory.pair_time import amem_timestamp
from agents.memory.pairs import HistoryPair
from agents.memory.registry import MemorySystem, register_memory_system
from graph.cypher_files import load_cypher
from graph.events import MemoryWritten

SYSTEM = "amem"
PREFIX = f"{SYSTEM}:"
# the note fields a write records (retrieval_count and last_accessed change on every read: left out)
NOTE_FIELDS = ("keywords", "context", "tags", "links", "timestamp", "category")


def memory_id_of(note_id: str) -> str:
    return PREFIX + note_id


def note_id_of(memory_id: str) -> str:
    return memory_id[len(PREFIX):] if memory_id.startswith(PREFIX) else memory_id


def pair_content(pair: HistoryPair) -> str:
    """The text A-MEM takes in for a pair: its messages as `role: text` lines."""
    return "\n".join(f"{m['role']}: {m['content']}" for m in pair.messages())


@register_memory_system
class AmemSystem(MemorySystem):
    name = SYSTEM
    label = "A-MEM"
    description = "A-MEM notes (LLM-built keywords, context, tags; links and memory evolution), one note per pair"
    needs_llm = True
    search_recipe = "AMEM"
    qa_k = 10
    qa_k_source = "A-MEM's own LoCoMo evaluation retrieves 10 memories per question (its retrieve_k default)"
    memkb_cards = False
    builder = "a-mem-0.2.6/notes-v1"
    # A-MEM logs errors of related-note lookups and evolution and goes on without them
    sdk_loggers = ("agentic_memory",)

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._sdk: Any = None
        self._retriever: Any = None
        self._controller: Any = None
        self._profile: str | None = None
        self._last_pair: str | None = None
        # note id -> (recorded state, own source turns), as the graph has them
        self._notes: dict[str, tuple[dict[str, Any], list[str]]] = {}

    # --- state ----------------------------------------------------------------------------------------

    def _ensure_state(self, profile_id: str) -> None:
        stale = self._sdk is None or self._profile != profile_id
        if not stale and self._last_pair is not None:
            stale = self._last_pair not in processed_pair_ids(self, profile_id)
        if stale:
            self._load(profile_id)

    def _load(self, profile_id: str) -> None:
        """A fresh A-MEM holding exactly the profile's notes in the graph."""
        from agents.memory.amem.controller import RoutedController
        from agents.memory.amem.notes import new_note, open_amem, restore_note

        self._release()
        encoder = self.ctx.store.encoder
        if encoder is None:
            raise MemoryBackendError("A-MEM: the store has no encoder; A-MEM's notes are embedded by the project's")
        self._controller = RoutedController(self.ctx.llm)
        self._sdk, self._retriever = open_amem(encoder, self._controller, str(getattr(self.ctx.llm, "model", "")))
        self._notes = {}
        store = self.ctx.store
        with store.driver.session(database=store.database) as session:
            rows = list(session.run(load_cypher("memory/amem_notes"), profile_id=profile_id, system=SYSTEM))
        for row in rows:
            payload = json.loads(row["payload"])
            meta = payload.get("metadata") or {}
            note_id = str(meta.get("note_id") or note_id_of(row["memory_id"]))
            state = {name: meta.get(name) for name in NOTE_FIELDS}
            note = new_note(
                content=str(meta.get("content", "")),
                id=note_id,
                keywords=list(state["keywords"] or []),
                links=[note_id_of(link) for link in state["links"] or []],
                timestamp=state["timestamp"],
                context=state["context"],
                category=state["category"],
                tags=list(state["tags"] or []),
            )
            restore_note(self._sdk, self._retriever, note, str(row["text"] or ""), row["embedding"])
            self._notes[note_id] = (state, list(row["source_turn_ids"]))
        self._retriever.touched.clear()
        self._profile = profile_id
        self._last_pair = None

    def _release(self) -> None:
        if self._retriever is not None:
            self._retriever.drop()
        self._sdk = self._retriever = self._controller = None
        self._profile = None

    def close(self) -> None:
        self._release()

    def sdk_search(self, profile_id: str, query: str, k: int = 5) -> list[str]:
        """A-MEM's own search (its Chroma collection, rebuilt from the graph's notes), as memory ids."""
        if self._sdk is None or self._profile != profile_id:
            self._load(profile_id)
        return [memory_id_of(str(hit["id"])) for hit in self._sdk.search(query, k)]

    # --- building -------------------------------------------------------------------------------------

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        from agents.memory.amem.controller import AmemAbort

        self._ensure_state(profile_id)
        self._retriever.touched.clear()
        try:
            note_id = self._sdk.add_note(pair_content(pair), time=amem_timestamp(SYSTEM, pair), id=pair.pair_id)
        except AmemAbort as abort:
            self._release()  # A-MEM's state may hold part of the pair: rebuild it from the graph next time
            raise abort.error from None
        except BaseException:
            self._release()
            raise
        try:
            writes = self._writes(profile_id, pair, str(note_id))
        except BaseException:
            self._release()
            raise
        self._last_pair = pair.pair_id
        return writes

    def _writes(self, profile_id: str, pair: HistoryPair, note_id: str) -> list[MemoryWritten]:
        writes: list[MemoryWritten] = []
        known = set(self._notes) | {note_id}
        for touched in dict.fromkeys(self._retriever.touched):
            note = self._sdk.cache.get(touched)
            if note is None:
                raise MemoryBackendError(
                    f"A-MEM: note {touched!r} changed by pair {pair.pair_id!r} is not in its cache"
                )
            # links to notes that do not exist (an LLM may invent ids) are dropped, in A-MEM's state too
            note.links = [link for link in dict.fromkeys(note.links) if link in known and link != touched]
            state: dict[str, Any] = {
                "keywords": list(note.keywords), "context": note.context, "tags": list(note.tags),
                "links": [memory_id_of(link) for link in note.links], "timestamp": str(note.timestamp),
                "category": note.category,
            }
            text = self._retriever.document_text(touched) or note.content
            metadata: dict[str, Any] = {"note_id": touched, "content": note.content, **state}
            op: Literal["ADD", "UPDATE"]
            if touched == note_id and touched not in self._notes:
                op, sources = "ADD", pair.turn_ids
                metadata["pair_id"] = pair.pair_id
            else:
                previous, sources = self._notes[touched]
                if previous == state:
                    continue
                op = "UPDATE"
                metadata.update(evolved_by_pair=pair.pair_id, evolved_by_memory=memory_id_of(note_id))
            writes.append(
                MemoryWritten(
                    system=SYSTEM, memory_id=memory_id_of(touched), profile_id=profile_id, op=op, text=text,
                    source_turn_ids=list(sources), metadata=metadata,
                )
            )
            self._notes[touched] = (state, list(sources))
        return writes
