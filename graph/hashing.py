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


def content_event_id(event_type: str, payload: dict[str, Any]) -> str:
    """The content hash that identifies an event: the same type and payload always give the same id."""
    digest = hashlib.sha256(event_type.encode() + b"\n" + canonical_bytes(payload)).hexdigest()
    return f"ev_{digest[:40]}"


def chain_hash(prev_hash: str, record: dict[str, Any]) -> str:
    """Hash of one log record chained to its predecessor's hash."""
    return hashlib.sha256(prev_hash.encode() + b"\n" + canonical_bytes(record)).hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
