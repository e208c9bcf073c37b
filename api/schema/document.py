"""Document: a knowledge-base document, its text by line range, and everything that points at it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.document_lines import DocumentLines, load_lines
from api.schema.values import json_value, page_size

if TYPE_CHECKING:
    from api.schema.chunk import Chunk
    from api.schema.exposure import Exposure
    from api.schema.item import Item
    from api.schema.memory_link import MemoryLink
    from api.schema.requirement import Requirement


@strawberry.type(description="A document related to another through a RELATED link (either direction).")
class RelatedDocument:
    description: str
    weight: float
    outgoing: bool = strawberry.field(description="true when the link goes from this document to the other")
    document: Annotated[Document, strawberry.lazy("api.schema.document")]


@strawberry.type(description="An answer requirement grounded in a line range of this document.")
class GroundedRequirement:
    start_line: int
    end_line: int
    requirement: Annotated[Requirement, strawberry.lazy("api.schema.requirement")]


@strawberry.type(description="A document of the frozen knowledge base; its lines are its text split on '\\n'.")
class Document:
    id: strawberry.ID
    title: str
    url: str | None
    source: str | None
    collection: str | None
    publisher: str | None
    n_lines: int
    n_chunks: int | None
    chunker: str | None
    seq: int
    raw_metadata: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Document:
        return cls(
            id=strawberry.ID(node["id"]),
            title=node.get("title") or "",
            url=node.get("url"),
            source=node.get("source"),
            collection=node.get("collection"),
            publisher=node.get("publisher"),
            n_lines=int(node.get("n_lines") or 0),
            n_chunks=node.get("n_chunks"),
            chunker=node.get("chunker"),
            seq=int(node.get("seq") or 0),
            raw_metadata=node.get("metadata"),
        )

    @strawberry.field
    def metadata(self) -> JSON:
        return json_value(self.raw_metadata, {})

    @strawberry.field(description="lines start_line..end_line (inclusive, at most 1,000 per request)")
    async def lines(self, info: Info, start_line: int = 1, end_line: int = 100) -> DocumentLines:
        return await load_lines(loaders_of(info), str(self.id), start_line, end_line)

    @strawberry.field(description="the document's chunks in order")
    async def chunks(self, info: Info, first: int = 100) -> list[Annotated[Chunk, strawberry.lazy("api.schema.chunk")]]:
        from api.schema.chunk import Chunk

        size = page_size(first, "Document.chunks")
        rows = await loaders_of(info).related("document_chunks").load(str(self.id))
        return [Chunk.from_node(r["node"]) for r in rows[:size]]

    @strawberry.field(description="turns that exposed this document, how (search or read) and which lines")
    async def exposures(
        self, info: Info, first: int = 100
    ) -> list[Annotated[Exposure, strawberry.lazy("api.schema.exposure")]]:
        from api.schema.exposure import Exposure

        size = page_size(first, "Document.exposures")
        rows = await loaders_of(info).related("document_exposures").load(str(self.id))
        return [Exposure.from_row(r["rel"]) for r in rows[:size]]

    @strawberry.field(description="documents linked to this one (RELATED, either direction), strongest first")
    async def related(self, info: Info, first: int = 50) -> list[RelatedDocument]:
        size = page_size(first, "Document.related")
        rows = await loaders_of(info).related("document_related").load(str(self.id))
        return [
            RelatedDocument(
                description=r["rel"].get("description") or "",
                weight=float(r["rel"].get("weight") or 0.0),
                outgoing=bool(r["rel"]["outgoing"]),
                document=Document.from_node(r["node"]),
            )
            for r in rows[:size]
        ]

    @strawberry.field(description="items this document supports (gold support documents)")
    async def supports_items(self, info: Info) -> list[Annotated[Item, strawberry.lazy("api.schema.item")]]:
        from api.schema.item import Item

        rows = await loaders_of(info).related("document_supports").load(str(self.id))
        return [Item.from_node(r["node"]) for r in rows]

    @strawberry.field(description="items that list this document among their history documents")
    async def history_for_items(self, info: Info) -> list[Annotated[Item, strawberry.lazy("api.schema.item")]]:
        from api.schema.item import Item

        rows = await loaders_of(info).related("document_history_items").load(str(self.id))
        return [Item.from_node(r["node"]) for r in rows]

    @strawberry.field(description="answer requirements grounded in this document, with their line ranges")
    async def grounded_requirements(self, info: Info) -> list[GroundedRequirement]:
        from api.schema.requirement import Requirement

        rows = await loaders_of(info).related("document_grounds").load(str(self.id))
        return [
            GroundedRequirement(
                start_line=int(r["rel"]["start_line"]),
                end_line=int(r["rel"]["end_line"]),
                requirement=Requirement.from_node(r["node"]),
            )
            for r in rows
        ]

    @strawberry.field(description="memory cards that link to this document")
    async def memory_links(
        self, info: Info, first: int = 100
    ) -> list[Annotated[MemoryLink, strawberry.lazy("api.schema.memory_link")]]:
        from api.schema.memory_link import MemoryLink

        size = page_size(first, "Document.memoryLinks")
        rows = await loaders_of(info).related("document_memory_links").load(str(self.id))
        return [MemoryLink.from_row(r["node"]["id"], r["rel"]) for r in rows[:size]]
