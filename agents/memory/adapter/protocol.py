"""The messages of the colabench memory adapter protocol, version 1 (docs/memory-adapter.md).

Every request and reply body is one JSON object validated by the models here, on both sides: the client
(agents.memory.adapter.client) and the reference server (agents.memory.adapter_server). Unknown fields in a reply
are ignored (an adapter may say more); a missing or mistyped field makes the reply garbage.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = 1

# The paths of version 1, by call name (the client names the call in every error line).
PATHS: dict[str, tuple[str, str]] = {
    "info": ("GET", "/v1/info"),
    "reset": ("POST", "/v1/reset"),
    "add": ("POST", "/v1/add"),
    "search": ("POST", "/v1/search"),
    "stats": ("GET", "/v1/stats"),
}

AdapterId = str


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore")


class InfoReply(_Message):
    """`GET /v1/info`: who answers and which protocol version it speaks."""

    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    protocol_version: int


class ResetRequest(_Message):
    """`POST /v1/reset`: forget everything held for this user (one profile or conversation)."""

    user_id: str = Field(min_length=1)


class ResetReply(_Message):
    removed: int = Field(default=0, ge=0)


class Turn(_Message):
    """One turn of a user's history, as the project holds it."""

    turn_id: str = Field(min_length=1)
    session_id: str
    role: Literal["user", "assistant", "system", "tool"] | str
    speaker: str | None = None
    text: str
    timestamp: str | None = None


class AddRequest(_Message):
    """`POST /v1/add`: a batch of turns in history order. `batch_id` names the batch: sending a batch again (a
    resumed build) must replace what the adapter wrote for it before, never add it twice."""

    user_id: str = Field(min_length=1)
    batch_id: str = Field(min_length=1)
    turns: list[Turn] = Field(min_length=1)


class WrittenMemory(_Message):
    """One memory an add created (ADD), rewrote (UPDATE) or removed (DELETE), naming the turns it came from."""

    id: AdapterId = Field(min_length=1, max_length=200)
    op: Literal["ADD", "UPDATE", "DELETE"] = "ADD"
    text: str = ""
    turn_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class AddReply(_Message):
    memories: list[WrittenMemory] = Field(default_factory=list)


class SearchRequest(_Message):
    """`POST /v1/search`: the user's memories best first, at most `k`."""

    user_id: str = Field(min_length=1)
    query: str
    k: int = Field(ge=1, le=1000)


class FoundMemory(_Message):
    id: AdapterId = Field(min_length=1, max_length=200)
    text: str
    score: float | None = None
    turn_ids: list[str] = Field(default_factory=list)


class SearchReply(_Message):
    memories: list[FoundMemory]


class StatsReply(_Message):
    """`GET /v1/stats` (optional; 404 when the adapter has none): what the adapter holds."""

    users: int = Field(ge=0)
    memories: int = Field(ge=0)
    details: dict[str, Any] = Field(default_factory=dict)
