"""Requirement: one answer requirement e = (r, U, F, K, a) with its user statements, facts and knowledge spans."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, context_of, loaders_of
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
    seq: int
    gold_text: strawberry.Private[str]
    gold_action: strawberry.Private[str | None]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Requirement:
        return cls(
            id=strawberry.ID(node["id"]),
            item_id=node["item_id"],
            ordinal=int(node.get("ordinal") or 0),
            seq=int(node.get("seq") or 0),
            gold_text=node["text"],
            gold_action=node.get("action"),
        )

    @strawberry.field(
        description="r: what a passing answer must do (gold): null unless the request carries the API token or "
        "the server reveals gold (see redactedFields); ids and structure stay public"
    )
    def text(self, info: Info) -> str | None:
        return self.gold_text if context_of(info).gold_visible else None

    @strawberry.field(description="a: the required judgment or action (gold, hidden like `text`)")
    def action(self, info: Info) -> str | None:
        return self.gold_action if context_of(info).gold_visible else None

    @strawberry.field(description="gold fields of this requirement hidden from this request")
    def redacted_fields(self, info: Info) -> list[str]:
        if context_of(info).gold_visible:
            return []
        return ["text"] + (["action"] if self.gold_action is not None else [])

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
