"""SearchResult: what a retrieval recipe returned, each hit resolvable in the graph (documents with line ranges,
memory cards with their source turns, states with theirs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.document_lines import DocumentLines, load_lines
from api.schema.values import to_json

if TYPE_CHECKING:
    from api.schema.document import Document
    from api.schema.memory import Memory
    from api.schema.state import State
    from api.schema.turn import Turn


async def _turns(info: Info, ids: list[str]) -> list[Turn]:
    from api.schema.turn import Turn

    nodes = await loaders_of(info).node("turn").load_many(ids)
    return [Turn.from_node(n) for n in nodes if n is not None]


@strawberry.type(description="A document snippet returned by a search, with the channel ranks that fused into it.")
class DocumentHit:
    doc_id: str
    title: str
    start_line: int
    end_line: int
    snippet: str
    score: float
    rank: int
    chunk_id: str | None
    channel_ranks: JSON = strawberry.field(description="rank of the document in each channel that found it")

    @strawberry.field(description="the hit's lines, read from the graph")
    async def lines(self, info: Info) -> DocumentLines:
        return await load_lines(loaders_of(info), self.doc_id, self.start_line, self.end_line)

    @strawberry.field
    async def document(self, info: Info) -> Annotated[Document, strawberry.lazy("api.schema.document")] | None:
        from api.schema.document import Document

        node = await loaders_of(info).node("document").load(self.doc_id)
        return Document.from_node(node) if node else None


@strawberry.type(description="A memory card matched by a search, with the turns it came from.")
class MemoryHit:
    memory_id: str
    system: str
    text: str
    source_turn_ids: list[str]
    score: float
    rank: int
    linked_doc_ids: list[str]
    channel_ranks: JSON = strawberry.field(description="rank of the card in each memory channel that found it")

    @strawberry.field
    async def memory(self, info: Info) -> Annotated[Memory, strawberry.lazy("api.schema.memory")] | None:
        from api.schema.memory import Memory

        node = await loaders_of(info).node("memory").load(self.memory_id)
        return Memory.from_node(node) if node else None

    @strawberry.field
    async def source_turns(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        return await _turns(info, self.source_turn_ids)


@strawberry.type(description="A state entry returned with a MemKB search, with the turns it came from.")
class StateHit:
    state_id: str
    text: str
    concerns: str
    time_context: str
    unresolved: list[str]
    source_turn_ids: list[str]

    @strawberry.field
    async def state(self, info: Info) -> Annotated[State, strawberry.lazy("api.schema.state")] | None:
        from api.schema.state import State

        node = await loaders_of(info).node("state").load(self.state_id)
        return State.from_node(node) if node else None

    @strawberry.field
    async def source_turns(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        return await _turns(info, self.source_turn_ids)


@strawberry.type(description="The result of running a named retrieval recipe.")
class SearchResult:
    recipe: str
    query: str
    profile_id: str | None
    k: int
    kappa: float | None = strawberry.field(description="the RRF constant used for fusion")
    documents: list[DocumentHit]
    memories: list[MemoryHit]
    states: list[StateHit]
    notes: list[str] = strawberry.field(description="what the recipe could not do (e.g. no state summary yet)")
    timings_ms: JSON
    keywords: list[str] | None
    before_turn_id: str | None

    @classmethod
    def from_result(cls, result: Any) -> SearchResult:
        """From query.results.SearchResult (read by attribute, so this module does not import the query room)."""
        return cls(
            recipe=str(result.recipe),
            query=result.query,
            profile_id=result.profile_id,
            k=int(result.k),
            kappa=float(result.kappa) if result.kappa is not None else None,
            documents=[
                DocumentHit(
                    doc_id=d.doc_id,
                    title=d.title,
                    start_line=int(d.start_line),
                    end_line=int(d.end_line),
                    snippet=d.snippet,
                    score=float(d.score),
                    rank=int(d.rank),
                    chunk_id=d.chunk_id,
                    channel_ranks=to_json(dict(d.channel_ranks)),
                )
                for d in result.documents
            ],
            memories=[
                MemoryHit(
                    memory_id=m.memory_id,
                    system=m.system,
                    text=m.text,
                    source_turn_ids=list(m.source_turn_ids),
                    score=float(m.score),
                    rank=int(m.rank),
                    linked_doc_ids=list(m.linked_doc_ids),
                    channel_ranks=to_json(dict(getattr(m, "channel_ranks", {}) or {})),
                )
                for m in result.memories
            ],
            states=[
                StateHit(
                    state_id=s.state_id,
                    text=s.text,
                    concerns=s.concerns,
                    time_context=s.time_context,
                    unresolved=list(s.unresolved),
                    source_turn_ids=list(s.source_turn_ids),
                )
                for s in result.states
            ],
            notes=list(result.notes),
            timings_ms=to_json(dict(result.timings_ms)),
            keywords=list(result.keywords) if getattr(result, "keywords", None) is not None else None,
            before_turn_id=getattr(result, "before_turn_id", None),
        )
