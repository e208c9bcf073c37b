"""A profile's public interaction history H as the state summary and the judges see it: turn text, role,
speaker, time and the assistant's public tool calls. Never private facts, items, requirements or turn
metadata (which can carry gold labels)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from neo4j import Driver
from pydantic import BaseModel

from graph.cypher_files import load_cypher


class HistoryTurn(BaseModel):
    session_id: str
    session_ordinal: int
    started_at: str | None
    turn_id: str
    ordinal: int
    role: str
    speaker: str | None
    text: str
    at: str | None
    tool_calls: list[dict[str, Any]]


def load_public_history(driver: Driver, database: str, profile_id: str) -> list[HistoryTurn]:
    """Every turn of the profile, sessions in order, turns in order."""
    with driver.session(database=database) as session:
        records = list(session.run(load_cypher("agents/public_history"), profile_id=profile_id))
    turns: list[HistoryTurn] = []
    for r in records:
        calls = json.loads(r["tool_calls"]) if r["tool_calls"] else []
        turns.append(
            HistoryTurn(
                session_id=r["session_id"],
                session_ordinal=int(r["session_ordinal"]),
                started_at=r["started_at"],
                turn_id=r["turn_id"],
                ordinal=int(r["ordinal"]),
                role=r["role"],
                speaker=r["speaker"],
                text=r["text"],
                at=r["at"],
                tool_calls=calls if isinstance(calls, list) else [],
            )
        )
    return turns


def render_history(turns: list[HistoryTurn]) -> str:
    """Sessions with headers; each turn as `[turn_id] role (time): text`, public tool calls indented below."""
    lines: list[str] = []
    current = None
    for turn in turns:
        if turn.session_id != current:
            current = turn.session_id
            started = f", started {turn.started_at}" if turn.started_at else ""
            lines.append(f"\n### Session {turn.session_id}{started}")
        who = turn.role if not turn.speaker else f"{turn.role} ({turn.speaker})"
        when = f" at {turn.at}" if turn.at else ""
        lines.append(f"[{turn.turn_id}] {who}{when}: {turn.text}")
        for call in turn.tool_calls:
            args = json.dumps(call.get("arguments", {}), ensure_ascii=False, sort_keys=True)
            returned = call.get("returned_doc_ids") or []
            suffix = f" -> {', '.join(returned)}" if returned else ""
            lines.append(f"    tool call {call.get('tool', '?')} {args}{suffix}")
    return "\n".join(lines).strip()


def parse_time(value: str | None) -> datetime | None:
    """An ISO-8601 timestamp (a trailing Z allowed), or None when absent or unreadable."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def last_turn_before(turns: list[dict[str, Any]], asked_at: str | None) -> str | None:
    """The history cut-off for an item: None when every turn precedes the request (or times are unknown),
    else the id of the last turn at or before `asked_at`."""
    asked = parse_time(asked_at)
    if asked is None:
        return None
    last_visible: str | None = None
    later = False
    for turn in turns:
        at = parse_time(turn.get("at"))
        if at is not None and _comparable(at, asked) and at > asked:
            later = True
        else:
            last_visible = turn["id"]
    return last_visible if later else None


def _comparable(a: datetime, b: datetime) -> bool:
    return (a.tzinfo is None) == (b.tzinfo is None)
