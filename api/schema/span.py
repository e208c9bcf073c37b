"""KnowledgeSpan: a document line range a requirement is grounded in, with the text of those lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of

if TYPE_CHECKING:
    from api.schema.document import Document


@strawberry.type(description="A knowledge rule of a requirement: document, inclusive line range and its text.")
class KnowledgeSpan:
    doc_id: str
    doc_title: str
    start_line: int
    end_line: int
    lines: list[str] = strawberry.field(description="the lines of the span (cut at the document's last line)")

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> KnowledgeSpan:
        return cls(
            doc_id=row["doc_id"],
            doc_title=row.get("doc_title") or "",
            start_line=int(row["start_line"]),
            end_line=int(row["end_line"]),
            lines=list(row.get("lines") or []),
        )

    @strawberry.field(description="the lines joined with newlines")
    def text(self) -> str:
        return "\n".join(self.lines)

    @strawberry.field
    async def document(self, info: Info) -> Annotated[Document, strawberry.lazy("api.schema.document")] | None:
        from api.schema.document import Document

        node = await loaders_of(info).node("document").load(self.doc_id)
        return Document.from_node(node) if node else None
