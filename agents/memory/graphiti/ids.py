"""Deterministic names for what colabench asks Graphiti to store: a profile's group id, a pair's episode
uuid and body, and the memory id of a fact edge."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime

from agents.memory.pair_time import pair_time
from agents.memory.pairs import HistoryPair

SYSTEM = "graphiti"
# uuid5 namespace of colabench's Graphiti episodes (fixed: changing it would orphan built episodes)
EPISODE_NAMESPACE = uuid.UUID("8f1f6d2e-3b0c-5c4e-9a57-6c6f6c616265")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def group_id(profile_id: str) -> str:
    """Graphiti's partition of one profile. Graphiti accepts only ASCII letters, digits, `-` and `_`: other
    characters become `_` and a short hash of the exact id keeps two ids that map alike apart."""
    digest = hashlib.sha256(profile_id.encode("utf-8")).hexdigest()[:10]
    return f"cb_{_UNSAFE.sub('_', profile_id)[:80]}_{digest}"


def episode_uuid(profile_id: str, pair_id: str) -> str:
    """The episode of one pair: the same uuid on every attempt, so a half-done attempt can be found."""
    return str(uuid.uuid5(EPISODE_NAMESPACE, f"{profile_id}\x1f{pair_id}"))


def episode_body(pair: HistoryPair) -> str:
    """The pair as Graphiti's message episode: one `role: text` line per non-empty turn."""
    return "\n".join(f"{m['role']}: {m['content']}" for m in pair.messages())


def reference_time(pair: HistoryPair) -> datetime:
    """When the pair happened (agents.memory.pair_time: ISO 8601 or a dataset's session date, UTC when no zone
    is given; the epoch when the history has no time)."""
    at = pair_time(SYSTEM, pair)
    return datetime(1970, 1, 1, tzinfo=UTC) if at is None else at


def memory_id(edge_uuid: str) -> str:
    return f"{SYSTEM}:{edge_uuid}"


def edge_uuid(memory_id_: str) -> str:
    prefix = f"{SYSTEM}:"
    if not memory_id_.startswith(prefix):
        raise ValueError(f"{memory_id_!r} is not a Graphiti memory id")
    return memory_id_[len(prefix):]
