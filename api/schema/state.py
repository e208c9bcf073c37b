"""State: one entry of a profile's state summary S(H), with the turns it was derived from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, loaders_of
from api.schema.values import string_list

if TYPE_CHECKING:
    from api.schema.profile import Profile
    from api.schema.turn import Turn


@strawberry.type(description="An entry of a state summary S(H); a newer summary of the same system supersedes it.")
class State:
    id: strawberry.ID
    profile_id: str
    system: str
    summary_id: str
    text: str
    concerns: str
    time_context: str
    unresolved: list[str]
    active: bool
    model: str | None
    prompt_sha256: str | None
    seq: int
    superseded_seq: int | None
    turns_after: int = strawberry.field(description="turns of the profile appended after this summary")
    stale: bool = strawberry.field(
        description="an active state whose profile grew after it was summarised: stale until a new summary"
    )

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> State:
        return cls(
            id=strawberry.ID(node["id"]),
            profile_id=node["profile_id"],
            system=node.get("system") or "",
            summary_id=node.get("summary_id") or "",
            text=node.get("text") or "",
            concerns=node.get("concerns") or "",
            time_context=node.get("time_context") or "",
            unresolved=string_list(node.get("unresolved")),
            active=bool(node.get("active")),
            model=node.get("model"),
            prompt_sha256=node.get("prompt_sha256"),
            seq=int(node.get("seq") or 0),
            superseded_seq=node.get("superseded_seq"),
            turns_after=int(node.get("turns_after") or 0),
            stale=bool(node.get("active")) and int(node.get("turns_after") or 0) > 0,
        )

    @strawberry.field(description="the turns this state was derived from")
    async def source_turns(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        from api.schema.turn import Turn

        rows = await loaders_of(info).related("state_turns").load(str(self.id))
        return [Turn.from_node(r["node"]) for r in rows]

    @strawberry.field
    async def profile(self, info: Info) -> Annotated[Profile, strawberry.lazy("api.schema.profile")] | None:
        from api.schema.profile import Profile

        node = await loaders_of(info).node("profile").load(self.profile_id)
        return Profile.from_node(node) if node else None
