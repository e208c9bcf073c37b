"""Canonical JSON and the hashes of the event log (content ids and the chain)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8 kept as is."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def canonical_bytes(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


# Payload fields that record where an event came from, not what it says: left out of the event's identity, so
# the same fact reached through another LLM exchange (another request, the same answer) is still one event.
# They stay covered by the hash chain, which hashes the whole stored payload.
PROVENANCE_FIELDS = ("exchange",)


def content_event_id(event_type: str, payload: dict[str, Any]) -> str:
    """The content hash that identifies an event: the same type and payload (provenance fields aside) always
    give the same id."""
    if any(name in payload for name in PROVENANCE_FIELDS):
        payload = {k: v for k, v in payload.items() if k not in PROVENANCE_FIELDS}
    digest = hashlib.sha256(event_type.encode() + b"\n" + canonical_bytes(payload)).hexdigest()
    return f"ev_{digest[:40]}"


def chain_hash(prev_hash: str, record: dict[str, Any]) -> str:
    """Hash of one log record chained to its predecessor's hash."""
    return hashlib.sha256(prev_hash.encode() + b"\n" + canonical_bytes(record)).hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
