"""Requirement: one answer requirement e = (r, U, F, K, a) with its user statements, facts and knowledge spans."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of
from api.schema.span import KnowledgeSpan

if TYPE_CHECKING:
    from api.schema.fact import Fact
    from api.schema.item import Item
    from api.schema.session import Session
    from api.schema.turn import Turn


@strawberry.type(
    description="An answer requirement: text r, verbatim user statements U (turns), personal conditions F (facts), "
    "knowledge rules K (document spans) and the required judgment or action a."
)
class Requirement:
    id: strawberry.ID
    item_id: str
    ordinal: int
    text: str
    action: str | None
    seq: int

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Requirement:
        return cls(
            id=strawberry.ID(node["id"]),
            item_id=node["item_id"],
            ordinal=int(node.get("ordinal") or 0),
            text=node["text"],
            action=node.get("action"),
            seq=int(node.get("seq") or 0),
        )

    @strawberry.field
    async def item(self, info: Info) -> Annotated[Item, strawberry.lazy("api.schema.item")] | None:
        from api.schema.item import Item

        node = await loaders_of(info).node("item").load(self.item_id)
        return Item.from_node(node) if node else None

    @strawberry.field(description="U: the user turns that state this requirement, verbatim")
    async def statements(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        from api.schema.turn import Turn

        rows = await loaders_of(info).related("requirement_statements").load(str(self.id))
        return [Turn.from_node(r["node"]) for r in rows]

    @strawberry.field(description="F: the personal facts this requirement uses")
    async def facts(self, info: Info) -> list[Annotated[Fact, strawberry.lazy("api.schema.fact")]]:
        from api.schema.fact import Fact

        rows = await loaders_of(info).related("requirement_facts").load(str(self.id))
        return [Fact.from_node(r["node"]) for r in rows]

    @strawberry.field(description="K: the document spans (with their text) this requirement is grounded in")
    async def spans(self, info: Info) -> list[KnowledgeSpan]:
        rows = await loaders_of(info).related("requirement_spans").load(str(self.id))
        return [KnowledgeSpan.from_row(r["rel"]) for r in rows]

    @strawberry.field(description="sessions given as evidence of this requirement (LongMemEval, LoCoMo)")
    async def evidence_sessions(self, info: Info) -> list[Annotated[Session, strawberry.lazy("api.schema.session")]]:
        from api.schema.session import Session

        rows = await loaders_of(info).related("requirement_sessions").load(str(self.id))
        return [Session.from_node(r["node"]) for r in rows]
