"""Inputs and result of the profile-growth mutations (appendSession, appendTurns)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.growth.append import AppendOutcome
from api.schema.context import Info, loaders_of
from api.schema.values import to_json

if TYPE_CHECKING:
    from api.schema.session import Session
    from api.schema.turn import Turn


@strawberry.input(description="A document line range a tool call returned (inclusive, lines from 1).")
class SpanInput:
    doc_id: str
    start_line: int
    end_line: int


@strawberry.input(description="A public tool call of the assistant (search or read) and the spans it returned.")
class ToolCallInput:
    tool: str
    arguments: JSON | None = None
    returned: list[SpanInput] = strawberry.field(default_factory=list)


@strawberry.input(
    description="A turn to append. Without turnId the id is derived from the session and the content, so "
    "re-sending the same turns is a no-op (give `at` or your own turnId to repeat a message later on purpose)."
)
class TurnInput:
    role: str = strawberry.field(description="user or assistant")
    text: str
    turn_id: str | None = None
    speaker: str | None = None
    at: str | None = strawberry.field(default=None, description="ISO 8601 timestamp")
    tool_calls: list[ToolCallInput] = strawberry.field(default_factory=list)

    def as_record(self) -> dict[str, Any]:
        """The turn as a plain record; the mutation validates the whole request with pydantic
        (api.growth.models), so errors name their path (turns.0.role)."""
        return {
            "turn_id": self.turn_id,
            "role": self.role,
            "text": self.text,
            "speaker": self.speaker,
            "at": self.at,
            "tool_calls": [
                {
                    "tool": c.tool,
                    "arguments": c.arguments if c.arguments is not None else {},
                    "returned": [
                        {"doc_id": s.doc_id, "start_line": s.start_line, "end_line": s.end_line} for s in c.returned
                    ],
                }
                for c in self.tool_calls
            ],
        }


@strawberry.type(description="What an append did: new turns, skipped duplicates, and the memory update.")
class AppendResult:
    profile_id: str
    session_id: str
    session_created: bool
    turn_ids: list[str] = strawberry.field(description="ids of every turn of the request, in order")
    appended_turn_ids: list[str] = strawberry.field(description="turns that were new (the others already existed)")
    events_appended: int
    events_skipped: int
    head_seq: int = strawberry.field(description="log head after the append")
    memory_system: str
    memory_updated: bool
    memory_counts: JSON = strawberry.field(description="what the incremental memory update wrote (cards, links)")
    memory_note: str | None = strawberry.field(description="why memory was not updated, when it was not")
    warnings: list[str]
    timings_ms: JSON

    @classmethod
    def from_outcome(cls, outcome: AppendOutcome) -> AppendResult:
        return cls(
            profile_id=outcome.profile_id,
            session_id=outcome.session_id,
            session_created=outcome.session_created,
            turn_ids=outcome.turn_ids,
            appended_turn_ids=outcome.appended_turn_ids,
            events_appended=outcome.events_appended,
            events_skipped=outcome.events_skipped,
            head_seq=outcome.head_seq,
            memory_system=outcome.memory_system,
            memory_updated=outcome.memory_counts is not None,
            memory_counts=to_json(outcome.memory_counts or {}),
            memory_note=outcome.memory_note,
            warnings=outcome.warnings,
            timings_ms=to_json({k: round(v * 1000, 2) for k, v in outcome.seconds.items()}),
        )

    @strawberry.field
    async def session(self, info: Info) -> Annotated[Session, strawberry.lazy("api.schema.session")] | None:
        from api.schema.session import Session

        node = await loaders_of(info).node("session").load(self.session_id)
        return Session.from_node(node) if node else None

    @strawberry.field(description="the request's turns as stored")
    async def turns(self, info: Info) -> list[Annotated[Turn, strawberry.lazy("api.schema.turn")]]:
        from api.schema.turn import Turn

        nodes = await loaders_of(info).node("turn").load_many(self.turn_ids)
        return [Turn.from_node(n) for n in nodes if n is not None]
