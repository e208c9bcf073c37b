"""The stored envelope: one record of the log as Neo4j holds it and a JSONL export carries it, read back as
today's event through the upcasters (graph/upcasting.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graph.events import DomainEvent, parse_event
from graph.upcasting import upcast


class StoredEvent(BaseModel):
    """One record of the log as stored in Neo4j and exported to JSONL."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    event_id: str
    seq: int
    type: str
    occurred_at: str
    recorded_at: str
    actor: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str
    # The payload's schema version when it was written (1 for logs written before versions existed).
    schema_version: int = Field(default=1, ge=1)

    def chained_fields(self) -> dict[str, Any]:
        """The fields covered by the hash chain (everything but the hashes themselves). The schema version is
        covered when it is not 1, so logs written before versions existed verify unchanged."""
        fields = {
            "event_id": self.event_id,
            "seq": self.seq,
            "type": self.type,
            "occurred_at": self.occurred_at,
            "recorded_at": self.recorded_at,
            "actor": self.actor,
            "payload": self.payload,
        }
        if self.schema_version != 1:
            fields["schema_version"] = self.schema_version
        return fields

    def domain_event(self) -> DomainEvent:
        """The event as the current model reads it (upcast from an older schema version when needed)."""
        event_type, _version, payload = upcast(self.type, self.schema_version, self.payload)
        return parse_event(event_type, payload)
