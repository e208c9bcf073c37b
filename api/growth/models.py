"""What a client may append to a profile's history: new sessions and new turns (pydantic, validated up front).

The same records arrive through the GraphQL mutations and through `colabench profile append FILE`. Turns carry
only public history (text, role, speaker, time, the assistant's tool calls and the document spans they
returned); nothing gold (facts, requirements) can be appended this way.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graph.json_values import require_json_value
from ingest.bundle.models import LineSpan

# Client-chosen ids stay URL- and log-friendly (they appear in browser links such as /browser#node=<id>).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$"
MAX_TURNS_PER_REQUEST = 500
MAX_TEXT_CHARS = 50_000


class GrowthRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _survives_canonical_json(cls, value: Any) -> Any:
        # The event models' check, run on the request so the error names the record and field.
        return require_json_value(value)


def _check_timestamp(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO 8601 timestamp (e.g. 2025-06-02T18:00:00Z)") from exc
    return value


class SpanIn(LineSpan):
    """A document line range a tool call returned (inclusive, lines numbered from 1)."""

    model_config = GrowthRecord.model_config

    doc_id: str = Field(min_length=1, max_length=300)


class ToolCallIn(GrowthRecord):
    """A public tool call of the assistant: what it searched or read, and which spans came back."""

    tool: Literal["search", "read"]
    arguments: dict[str, Any] = Field(default_factory=dict)
    returned: list[SpanIn] = Field(default_factory=list, max_length=100)


class TurnIn(GrowthRecord):
    """One message to append. Without `turn_id` the id is derived from the session and the turn's content."""

    turn_id: str | None = Field(default=None, pattern=ID_PATTERN)
    role: Literal["user", "assistant"]
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    speaker: str | None = Field(default=None, max_length=200)
    at: str | None = None
    tool_calls: list[ToolCallIn] = Field(default_factory=list, max_length=20)

    _at = field_validator("at")(_check_timestamp)

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text must not be blank")
        return value

    @model_validator(mode="after")
    def _tools_are_assistant_only(self) -> TurnIn:
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant turns carry tool calls")
        return self


class TurnsAppend(GrowthRecord):
    """Append turns to an existing session; their ordinals continue the session's."""

    session_id: str = Field(min_length=1, max_length=300)
    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_TURNS_PER_REQUEST)


class SessionAppend(GrowthRecord):
    """Start a session of a profile with its first turns. Without `session_id` the id is derived from the
    profile, start time and turns, so sending the same session twice appends it once."""

    profile_id: str = Field(min_length=1, max_length=300)
    session_id: str | None = Field(default=None, pattern=ID_PATTERN)
    topic_id: str | None = Field(default=None, max_length=300)
    started_at: str | None = None
    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_TURNS_PER_REQUEST)

    _started = field_validator("started_at")(_check_timestamp)


def growth_json_schema() -> dict[str, Any]:
    """JSON Schema of the records `colabench profile append` reads (one per JSONL line, or a JSON list)."""
    return {
        "title": "colabench profile append",
        "description": "Each record is either a new session of a profile (has profile_id) or turns to append to "
        "an existing session (session_id without profile_id).",
        "oneOf": [SessionAppend.model_json_schema(), TurnsAppend.model_json_schema()],
    }
