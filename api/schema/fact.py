"""Fact: a personal condition of a profile, with the turns that disclosed it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of

if TYPE_CHECKING:
    from api.schema.profile import Profile
    from api.schema.requirement import Requirement
    from api.schema.topic import Topic
    from api.schema.turn import Turn


@strawberry.type(description="A personal condition of a profile (private: never shown to a method).")
class Fact:
    id: strawberry.ID
    profile_id: str
    text: str
    private: bool
    category: str | None
    seq: int

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Fact:
        return cls(
            id=strawberry.ID(node["id"]),
            profile_id=node["profile_id"],
            text=node["text"],
            private=bool(node.get("private", True)),
            category=node.get("category"),
            seq=int(node.get("seq") or 0),
        )

    @strawberry.field(description="the turns in which the user disclosed this fact")
    async def disclosed_in(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        from api.schema.turn import Turn

        rows = await loaders_of(info).related("fact_turns").load(str(self.id))
        return [Turn.from_node(r["node"]) for r in rows]

    @strawberry.field
    async def topics(self, info: Info) -> list[Annotated[Topic, strawberry.lazy("api.schema.topic")]]:
        from api.schema.topic import Topic

        rows = await loaders_of(info).related("fact_topics").load(str(self.id))
        return [Topic.from_node(r["node"]) for r in rows]

    @strawberry.field(description="answer requirements that use this fact")
    async def requirements(self, info: Info) -> list[Annotated[Requirement, strawberry.lazy("api.schema.requirement")]]:
        from api.schema.requirement import Requirement

        rows = await loaders_of(info).related("fact_requirements").load(str(self.id))
        return [Requirement.from_node(r["node"]) for r in rows]

    @strawberry.field
    async def profile(self, info: Info) -> Annotated[Profile, strawberry.lazy("api.schema.profile")] | None:
        from api.schema.profile import Profile

        node = await loaders_of(info).node("profile").load(self.profile_id)
        return Profile.from_node(node) if node else None
