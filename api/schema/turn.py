"""Turn: one message of a session, with what it disclosed, exposed, and what was derived from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.redaction import states_reference_answer
from api.schema.context import Info, context_of, loaders_of
from api.schema.values import json_value

if TYPE_CHECKING:
    from api.schema.exposure import Exposure
    from api.schema.fact import Fact
    from api.schema.memory import Memory
    from api.schema.requirement import Requirement
    from api.schema.session import Session
    from api.schema.state import State


@strawberry.type(description="One message of a session (user or assistant), in the public interaction history.")
class Turn:
    id: strawberry.ID
    session_id: str
    profile_id: str
    ordinal: int = strawberry.field(description="position in its session, from 0")
    role: str = strawberry.field(description="user or assistant")
    raw_text: strawberry.Private[str]
    speaker: str | None
    at: str | None = strawberry.field(description="timestamp of the message, when known")
    seq: int = strawberry.field(description="seq of the TurnAppended event that made this node")
    raw_tool_calls: strawberry.Private[Any]
    raw_metadata: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Turn:
        return cls(
            id=strawberry.ID(node["id"]),
            session_id=node["session_id"],
            profile_id=node["profile_id"],
            ordinal=int(node["ordinal"]),
            role=node["role"],
            raw_text=node["text"],
            speaker=node.get("speaker"),
            at=node.get("at"),
            seq=int(node.get("seq") or 0),
            raw_tool_calls=node.get("tool_calls"),
            raw_metadata=node.get("metadata"),
        )

    def _gold(self, info: Info) -> bool:
        """True when this turn states an item's reference answer and the request may not see gold."""
        return not context_of(info).gold_visible and states_reference_answer({"metadata": self.raw_metadata})

    @strawberry.field(
        description="the message; null when it states an item's reference answer (an iKAT canonical response: "
        "public history of the later turns, gold for its own item) unless the request may see gold"
    )
    def text(self, info: Info) -> str | None:
        return None if self._gold(info) else self.raw_text

    @strawberry.field(description="gold fields of this turn hidden from this request")
    def redacted_fields(self, info: Info) -> list[str]:
        return ["text"] if self._gold(info) else []

    @strawberry.field(description="the assistant's public tool calls in this turn (tool, arguments, returned ids)")
    def tool_calls(self) -> JSON:
        return json_value(self.raw_tool_calls, [])

    @strawberry.field(description="adapter metadata of the turn (may hold dataset annotations)")
    def metadata(self) -> JSON:
        return json_value(self.raw_metadata, {})

    @strawberry.field
    async def session(self, info: Info) -> Annotated[Session, strawberry.lazy("api.schema.session")] | None:
        from api.schema.session import Session

        node = await loaders_of(info).node("session").load(self.session_id)
        return Session.from_node(node) if node else None

    @strawberry.field(description="document spans this turn exposed (search results and reads)")
    async def exposures(self, info: Info) -> list[Annotated[Exposure, strawberry.lazy("api.schema.exposure")]]:
        from api.schema.exposure import Exposure

        rows = await loaders_of(info).related("turn_exposures").load(str(self.id))
        return [Exposure.from_row(r["rel"]) for r in rows]

    @strawberry.field(description="personal facts this turn disclosed")
    async def disclosed_facts(self, info: Info) -> list[Annotated[Fact, strawberry.lazy("api.schema.fact")]]:
        from api.schema.fact import Fact

        rows = await loaders_of(info).related("turn_facts").load(str(self.id))
        return [Fact.from_node(r["node"]) for r in rows]

    @strawberry.field(description="memory cards derived from this turn (every memory system)")
    async def memories(self, info: Info) -> list[Annotated[Memory, strawberry.lazy("api.schema.memory")]]:
        from api.schema.memory import Memory

        rows = await loaders_of(info).related("turn_memories").load(str(self.id))
        return [Memory.from_node(r["node"]) for r in rows]

    @strawberry.field(description="state summaries derived from this turn")
    async def states(self, info: Info) -> list[Annotated[State, strawberry.lazy("api.schema.state")]]:
        from api.schema.state import State

        rows = await loaders_of(info).related("turn_states").load(str(self.id))
        return [State.from_node(r["node"]) for r in rows]

    @strawberry.field(description="answer requirements that cite this turn as a user statement")
    async def stated_requirements(
        self, info: Info
    ) -> list[Annotated[Requirement, strawberry.lazy("api.schema.requirement")]]:
        from api.schema.requirement import Requirement

        rows = await loaders_of(info).related("turn_requirements").load(str(self.id))
        return [Requirement.from_node(r["node"]) for r in rows]

    @strawberry.field(description="the previous turn of the same session")
    async def previous(self, info: Info) -> Turn | None:
        rows = await loaders_of(info).related("turn_previous").load(str(self.id))
        return Turn.from_node(rows[0]["node"]) if rows else None

    @strawberry.field(description="the next turn of the same session")
    async def next(self, info: Info) -> Turn | None:
        rows = await loaders_of(info).related("turn_next").load(str(self.id))
        return Turn.from_node(rows[0]["node"]) if rows else None
