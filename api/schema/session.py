"""Session: a conversation of a profile, its turns in order and the topic it was about."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.values import json_value, page_size

if TYPE_CHECKING:
    from api.schema.profile import Profile
    from api.schema.topic import Topic
    from api.schema.turn import Turn


@strawberry.type(description="A conversation of a profile; its turns are ordered by ordinal.")
class Session:
    id: strawberry.ID
    profile_id: str
    ordinal: int = strawberry.field(description="position among the profile's sessions, from 0")
    topic_id: str | None
    started_at: str | None
    source_id: str | None = strawberry.field(description="the session's id in its source dataset, when different")
    seq: int
    raw_metadata: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Session:
        return cls(
            id=strawberry.ID(node["id"]),
            profile_id=node["profile_id"],
            ordinal=int(node["ordinal"]),
            topic_id=node.get("topic_id"),
            started_at=node.get("started_at"),
            source_id=node.get("source_id"),
            seq=int(node.get("seq") or 0),
            raw_metadata=node.get("metadata"),
        )

    @strawberry.field(description="adapter metadata of the session (may hold dataset annotations)")
    def metadata(self) -> JSON:
        return json_value(self.raw_metadata, {})

    @strawberry.field(description="the session's turns in order")
    async def turns(self, info: Info, first: int = 500) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        from api.schema.turn import Turn

        size = page_size(first, "Session.turns")
        rows = await loaders_of(info).related("session_turns").load(str(self.id))
        return [Turn.from_node(r["node"]) for r in rows[:size]]

    @strawberry.field
    async def profile(self, info: Info) -> Annotated[Profile, strawberry.lazy("api.schema.profile")] | None:
        from api.schema.profile import Profile

        node = await loaders_of(info).node("profile").load(self.profile_id)
        return Profile.from_node(node) if node else None

    @strawberry.field
    async def topic(self, info: Info) -> Annotated[Topic, strawberry.lazy("api.schema.topic")] | None:
        from api.schema.topic import Topic

        if not self.topic_id:
            return None
        node = await loaders_of(info).node("topic").load(self.topic_id)
        return Topic.from_node(node) if node else None
