"""Chunk: a line-addressed piece of a document (the unit of the vector and full-text indexes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of

if TYPE_CHECKING:
    from api.schema.document import Document


@strawberry.type(description="A run of whole lines of a document (at most 1,000 characters), as indexed.")
class Chunk:
    id: strawberry.ID
    doc_id: str
    ordinal: int
    start_line: int
    end_line: int
    start_char: int
    end_char: int
    text: str
    seq: int

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Chunk:
        return cls(
            id=strawberry.ID(node["id"]),
            doc_id=node["doc_id"],
            ordinal=int(node["ordinal"]),
            start_line=int(node["start_line"]),
            end_line=int(node["end_line"]),
            start_char=int(node["start_char"]),
            end_char=int(node["end_char"]),
            text=node["text"],
            seq=int(node.get("seq") or 0),
        )

    @strawberry.field
    async def document(self, info: Info) -> Annotated[Document, strawberry.lazy("api.schema.document")] | None:
        from api.schema.document import Document

        node = await loaders_of(info).node("document").load(self.doc_id)
        return Document.from_node(node) if node else None
