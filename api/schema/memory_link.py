"""MemoryLink: a memory card's link to a document (semantic neighbour or history read), with its rank."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of

if TYPE_CHECKING:
    from api.schema.document import Document
    from api.schema.memory import Memory


@strawberry.type(description="A memory card's document link: kind `neighbor` or `history_read`, rank from 1.")
class MemoryLink:
    memory_id: str
    doc_id: str
    doc_title: str
    kind: str
    rank: int
    score: float | None
    builder: str | None

    @classmethod
    def from_row(cls, memory_id: str, row: dict[str, Any]) -> MemoryLink:
        return cls(
            memory_id=memory_id,
            doc_id=row["doc_id"],
            doc_title=row.get("doc_title") or "",
            kind=row["kind"],
            rank=int(row["rank"]),
            score=row.get("score"),
            builder=row.get("builder"),
        )

    @strawberry.field
    async def document(self, info: Info) -> Annotated[Document, strawberry.lazy("api.schema.document")] | None:
        from api.schema.document import Document

        node = await loaders_of(info).node("document").load(self.doc_id)
        return Document.from_node(node) if node else None

    @strawberry.field
    async def memory(self, info: Info) -> Annotated[Memory, strawberry.lazy("api.schema.memory")] | None:
        from api.schema.memory import Memory

        node = await loaders_of(info).node("memory").load(self.memory_id)
        return Memory.from_node(node) if node else None
