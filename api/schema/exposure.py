"""Exposure: a document line range a turn showed to the user side, through a search result or a read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of
from api.schema.document_lines import DocumentLines, load_lines

if TYPE_CHECKING:
    from api.schema.document import Document
    from api.schema.turn import Turn


@strawberry.type(description="A document span exposed in a turn (search result or read), with the lines shown.")
class Exposure:
    turn_id: str
    doc_id: str
    doc_title: str
    via: str = strawberry.field(description="search or read")
    start_line: int
    end_line: int
    query: str | None = strawberry.field(description="the search query, for search exposures")
    rank: int | None = strawberry.field(description="rank in the search result, for search exposures")
    seq: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Exposure:
        return cls(
            turn_id=row["turn_id"],
            doc_id=row["doc_id"],
            doc_title=row.get("doc_title") or "",
            via=row["via"],
            start_line=int(row["start_line"]),
            end_line=int(row["end_line"]),
            query=row.get("query"),
            rank=row.get("rank"),
            seq=int(row.get("seq") or 0),
        )

    @strawberry.field(description="the exposed lines")
    async def lines(self, info: Info) -> DocumentLines:
        return await load_lines(loaders_of(info), self.doc_id, self.start_line, self.end_line)

    @strawberry.field
    async def turn(self, info: Info) -> Annotated[Turn, strawberry.lazy("api.schema.turn")] | None:
        from api.schema.turn import Turn

        node = await loaders_of(info).node("turn").load(self.turn_id)
        return Turn.from_node(node) if node else None

    @strawberry.field
    async def document(self, info: Info) -> Annotated[Document, strawberry.lazy("api.schema.document")] | None:
        from api.schema.document import Document

        node = await loaders_of(info).node("document").load(self.doc_id)
        return Document.from_node(node) if node else None
