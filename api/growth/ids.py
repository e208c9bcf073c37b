"""Deterministic ids for appended sessions and turns, so that sending the same content twice is a no-op."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from api.growth.models import TurnIn


def _digest(parts: Any) -> str:
    data = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def turn_content(turn: TurnIn) -> list[Any]:
    """The fields that identify a turn's content (tool calls included)."""
    return [turn.role, turn.speaker, turn.at, turn.text, [c.model_dump(mode="json") for c in turn.tool_calls]]


def derive_turn_ids(session_id: str, turns: list[TurnIn]) -> list[str]:
    """Client ids where given; otherwise `<session>-t<hash>` of the session, the turn's content and how many
    identical turns precede it in the same request (so a request may repeat a message on purpose)."""
    seen: dict[str, int] = {}
    ids: list[str] = []
    for turn in turns:
        if turn.turn_id:
            ids.append(turn.turn_id)
            continue
        content = _digest(turn_content(turn))
        occurrence = seen.get(content, 0)
        seen[content] = occurrence + 1
        ids.append(f"{session_id}-t{_digest([session_id, content, occurrence])[:12]}")
    return ids


def derive_session_id(profile_id: str, started_at: str | None, turns: list[TurnIn]) -> str:
    """`<profile>-s<hash>` of the profile, the start time and the session's turns."""
    return f"{profile_id}-s{_digest([profile_id, started_at, [turn_content(t) for t in turns]])[:12]}"
