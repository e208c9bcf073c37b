"""Topic: a planned conversation theme of a profile and the facts it concerns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of

if TYPE_CHECKING:
    from api.schema.fact import Fact
    from api.schema.session import Session


@strawberry.type(description="A conversation theme of a profile and the personal facts it concerns.")
class Topic:
    id: strawberry.ID
    profile_id: str
    title: str
    intent: str
    seq: int

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Topic:
        return cls(
            id=strawberry.ID(node["id"]),
            profile_id=node["profile_id"],
            title=node.get("title") or "",
            intent=node.get("intent") or "",
            seq=int(node.get("seq") or 0),
        )

    @strawberry.field
    async def facts(self, info: Info) -> list[Annotated[Fact, strawberry.lazy("api.schema.fact")]]:
        from api.schema.fact import Fact

        rows = await loaders_of(info).related("topic_facts").load(str(self.id))
        return [Fact.from_node(r["node"]) for r in rows]

    @strawberry.field
    async def sessions(self, info: Info) -> list[Annotated[Session, strawberry.lazy("api.schema.session")]]:
        from api.schema.session import Session

        rows = await loaders_of(info).related("topic_sessions").load(str(self.id))
        return [Session.from_node(r["node"]) for r in rows]
