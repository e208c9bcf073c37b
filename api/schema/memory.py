"""Memory: a memory card of some memory system, with its source turns and document links."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.values import json_value

if TYPE_CHECKING:
    from api.schema.memory_link import MemoryLink
    from api.schema.profile import Profile
    from api.schema.turn import Turn


@strawberry.type(description="A memory card written by a memory system (`colabench memory systems` lists them).")
class Memory:
    id: strawberry.ID
    system: str
    profile_id: str
    text: str
    deleted: bool
    seq: int
    updated_seq: int | None
    link_builder: str | None
    raw_metadata: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Memory:
        return cls(
            id=strawberry.ID(node["id"]),
            system=node["system"],
            profile_id=node["profile_id"],
            text=node.get("text") or "",
            deleted=bool(node.get("deleted")),
            seq=int(node.get("seq") or 0),
            updated_seq=node.get("updated_seq"),
            link_builder=node.get("link_builder"),
            raw_metadata=node.get("metadata"),
        )

    @strawberry.field
    def metadata(self) -> JSON:
        return json_value(self.raw_metadata, {})

    @strawberry.field(description="the turns this card was derived from")
    async def source_turns(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        from api.schema.turn import Turn

        rows = await loaders_of(info).related("memory_turns").load(str(self.id))
        return [Turn.from_node(r["node"]) for r in rows]

    @strawberry.field(description="linked documents: semantic neighbours first, then history reads, each by rank")
    async def links(self, info: Info) -> list[Annotated[MemoryLink, strawberry.lazy("api.schema.memory_link")]]:
        from api.schema.memory_link import MemoryLink

        rows = await loaders_of(info).related("memory_links").load(str(self.id))
        return [MemoryLink.from_row(str(self.id), r["rel"]) for r in rows]

    @strawberry.field
    async def profile(self, info: Info) -> Annotated[Profile, strawberry.lazy("api.schema.profile")] | None:
        from api.schema.profile import Profile

        node = await loaders_of(info).node("profile").load(self.profile_id)
        return Profile.from_node(node) if node else None
