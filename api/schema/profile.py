"""Profile: a person of the benchmark, their facts, topics, history, memories and states."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.values import json_value, page_size

if TYPE_CHECKING:
    from api.schema.exposure import Exposure
    from api.schema.fact import Fact
    from api.schema.item import Item
    from api.schema.memory import Memory
    from api.schema.session import Session
    from api.schema.state import State
    from api.schema.topic import Topic


@strawberry.type(description="A person of the benchmark with a public interaction history and private facts.")
class Profile:
    id: strawberry.ID
    dataset: str
    name: str | None
    description: str | None
    seq: int
    raw_attributes: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Profile:
        return cls(
            id=strawberry.ID(node["id"]),
            dataset=node.get("dataset") or "",
            name=node.get("name"),
            description=node.get("description"),
            seq=int(node.get("seq") or 0),
            raw_attributes=node.get("attributes"),
        )

    @strawberry.field
    def attributes(self) -> JSON:
        return json_value(self.raw_attributes, {})

    @strawberry.field(description="personal facts, each with the turns that disclosed it (`disclosedIn`)")
    async def facts(self, info: Info, first: int = 500) -> list[Annotated[Fact, strawberry.lazy("api.schema.fact")]]:
        from api.schema.fact import Fact

        size = page_size(first, "Profile.facts")
        rows = await loaders_of(info).related("profile_facts").load(str(self.id))
        return [Fact.from_node(r["node"]) for r in rows[:size]]

    @strawberry.field
    async def topics(self, info: Info) -> list[Annotated[Topic, strawberry.lazy("api.schema.topic")]]:
        from api.schema.topic import Topic

        rows = await loaders_of(info).related("profile_topics").load(str(self.id))
        return [Topic.from_node(r["node"]) for r in rows]

    @strawberry.field(description="sessions in order; each has its turns")
    async def sessions(
        self, info: Info, first: int = 200
    ) -> list[Annotated[Session, strawberry.lazy("api.schema.session")]]:
        from api.schema.session import Session

        size = page_size(first, "Profile.sessions")
        rows = await loaders_of(info).related("profile_sessions").load(str(self.id))
        return [Session.from_node(r["node"]) for r in rows[:size]]

    @strawberry.field(description="every document span exposed in the profile's history, in order")
    async def exposures(
        self, info: Info, first: int = 500
    ) -> list[Annotated[Exposure, strawberry.lazy("api.schema.exposure")]]:
        from api.schema.exposure import Exposure

        size = page_size(first, "Profile.exposures")
        rows = await loaders_of(info).related("profile_exposures").load(str(self.id))
        return [Exposure.from_row(r["rel"]) for r in rows[:size]]

    @strawberry.field(description="memory cards, optionally of one system; deleted cards only when asked")
    async def memories(
        self, info: Info, system: str | None = None, include_deleted: bool = False, first: int = 500
    ) -> list[Annotated[Memory, strawberry.lazy("api.schema.memory")]]:
        from api.schema.memory import Memory

        size = page_size(first, "Profile.memories")
        rows = await loaders_of(info).related("profile_memories").load(str(self.id))
        cards = [Memory.from_node(r["node"]) for r in rows]
        kept = [m for m in cards if (system is None or m.system == system) and (include_deleted or not m.deleted)]
        return kept[:size]

    @strawberry.field(description="state entries, optionally of one system; superseded ones only when asked")
    async def states(
        self, info: Info, system: str | None = None, include_superseded: bool = False
    ) -> list[Annotated[State, strawberry.lazy("api.schema.state")]]:
        from api.schema.state import State

        rows = await loaders_of(info).related("profile_states").load(str(self.id))
        states = [State.from_node(r["node"]) for r in rows]
        return [s for s in states if (system is None or s.system == system) and (include_superseded or s.active)]

    @strawberry.field(description="benchmark items asked for this profile")
    async def items(self, info: Info) -> list[Annotated[Item, strawberry.lazy("api.schema.item")]]:
        from api.schema.item import Item

        rows = await loaders_of(info).related("profile_items").load(str(self.id))
        return [Item.from_node(r["node"]) for r in rows]
