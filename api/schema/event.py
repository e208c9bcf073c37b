"""Event: one record of the hash-chained event log, and a page of them."""

from __future__ import annotations

import json
from typing import Any

import strawberry
from strawberry.scalars import JSON

from api.redaction import redact_event
from api.schema.context import Info, context_of, loaders_of
from api.schema.values import to_json


@strawberry.type(
    description="One immutable event of the log. Gold fields of the payload are redacted (and listed) unless the "
    "request may see them; the hash covers the unredacted payload."
)
class Event:
    seq: int
    event_id: str = strawberry.field(description="content hash of type + payload")
    type: str
    occurred_at: str
    recorded_at: str
    actor: str
    prev_hash: str
    hash: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Event:
        return cls(
            seq=int(row["seq"]),
            event_id=row["event_id"],
            type=row["type"],
            occurred_at=row["occurred_at"],
            recorded_at=row["recorded_at"],
            actor=row["actor"],
            prev_hash=row["prev_hash"],
            hash=row["hash"],
        )

    async def _visible_payload(self, info: Info) -> tuple[Any, list[str]]:
        raw = await loaders_of(info).event_payloads.load(self.seq)
        payload = json.loads(raw) if isinstance(raw, str) else raw
        redacted: list[str] = []
        if not context_of(info).gold_visible:
            payload = redact_event(self.type, payload, redacted)
        return payload, redacted

    @strawberry.field(description="the event's payload (read only when asked for: document events are large)")
    async def payload(self, info: Info) -> JSON:
        payload, _ = await self._visible_payload(info)
        return to_json(payload)

    @strawberry.field(description="payload fields hidden from this request (gold)")
    async def redacted_fields(self, info: Info) -> list[str]:
        _, redacted = await self._visible_payload(info)
        return redacted


@strawberry.type(description="A page of the event log; pass `endCursor` as `after` to read the next page.")
class EventPage:
    events: list[Event]
    head_seq: int = strawberry.field(description="seq of the newest event in the log")
    end_cursor: int = strawberry.field(description="seq of the last event on this page (or `after` when empty)")
    has_next_page: bool
