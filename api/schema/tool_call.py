"""ToolCall: one tool call of an attempt (round, tool, arguments) and what it returned, by rank."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.document_lines import DocumentLines, load_lines
from api.schema.values import json_value

if TYPE_CHECKING:
    from api.schema.document import Document
    from api.schema.memory import Memory
    from api.schema.state import State


@strawberry.type(description="Something a tool call returned: a document line range, a memory card or a state.")
class ReturnedEvidence:
    label: str = strawberry.field(description="Document, Memory or State")
    id: str
    rank: int | None
    start_line: int | None
    end_line: int | None

    @strawberry.field
    async def document(self, info: Info) -> Annotated[Document, strawberry.lazy("api.schema.document")] | None:
        from api.schema.document import Document

        if self.label != "Document":
            return None
        node = await loaders_of(info).node("document").load(self.id)
        return Document.from_node(node) if node else None

    @strawberry.field(description="the returned lines, for a document with a line range")
    async def lines(self, info: Info) -> DocumentLines | None:
        if self.label != "Document" or self.start_line is None or self.end_line is None:
            return None
        return await load_lines(loaders_of(info), self.id, self.start_line, self.end_line)

    @strawberry.field
    async def memory(self, info: Info) -> Annotated[Memory, strawberry.lazy("api.schema.memory")] | None:
        from api.schema.memory import Memory

        if self.label != "Memory":
            return None
        node = await loaders_of(info).node("memory").load(self.id)
        return Memory.from_node(node) if node else None

    @strawberry.field
    async def state(self, info: Info) -> Annotated[State, strawberry.lazy("api.schema.state")] | None:
        from api.schema.state import State

        if self.label != "State":
            return None
        node = await loaders_of(info).node("state").load(self.id)
        return State.from_node(node) if node else None


@strawberry.type(description="A tool call of an answering agent within an attempt.")
class ToolCall:
    id: strawberry.ID
    attempt_id: str
    round: int
    ordinal: int
    tool: str
    ok: bool
    error: str | None
    recipe: str | None = strawberry.field(description="the retrieval recipe a search ran, if any")
    response: str | None = strawberry.field(description="the text the agent was shown as the tool's result")
    n_returned: int | None
    seq: int
    raw_arguments: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> ToolCall:
        return cls(
            id=strawberry.ID(node["id"]),
            attempt_id=node.get("attempt_id") or "",
            round=int(node.get("round") or 0),
            ordinal=int(node.get("ordinal") or 0),
            tool=node.get("tool") or "",
            ok=bool(node.get("ok", True)),
            error=node.get("error"),
            recipe=node.get("recipe"),
            response=node.get("response"),
            n_returned=node.get("n_returned"),
            seq=int(node.get("seq") or 0),
            raw_arguments=node.get("arguments"),
        )

    @strawberry.field(description="the arguments the agent passed")
    def arguments(self) -> JSON:
        return json_value(self.raw_arguments, {})

    @strawberry.field(description="what the call returned, by rank (every id resolves in the graph)")
    async def returned(self, info: Info) -> list[ReturnedEvidence]:
        rows = await loaders_of(info).related("tool_call_returned").load(str(self.id))
        return [
            ReturnedEvidence(
                label=r["rel"]["label"],
                id=r["rel"]["id"],
                rank=r["rel"].get("rank"),
                start_line=r["rel"].get("start_line"),
                end_line=r["rel"].get("end_line"),
            )
            for r in rows
        ]
