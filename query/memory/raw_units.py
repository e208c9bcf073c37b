"""No-LLM memory cards at round and session granularity (LongMemEval's retrieval units), beside the turn
cards of `query.memory.raw_turns`.

- round (system "raw_rounds"): a user turn with the assistant turns that answer it (every turn up to the
  next user turn), text verbatim, one line per turn; card id `raw_rounds:<first turn id>`, DERIVED_FROM every
  turn of the round (so a round resolves to both the user turn and the reply). Assistant turns before a
  session's first user turn form a round of their own.
- session (system "raw_sessions"): one card per session, the text of its memory-evidence turns (user turns;
  both speakers where both are people, `PEOPLE_DATASETS`), one line per turn, as LongMemEval's whole-session
  unit joins the user turns; card id `raw_sessions:<session id>`, DERIVED_FROM those turns.

Only what a method may see is read: text, role, speaker, time and the session; never turn metadata. Cards
with only whitespace are not written. Building is idempotent: a unit that already has its card is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from graph.cypher_files import load_cypher
from graph.events import MemoryWritten, NewEvent
from graph.store import EventStore
from query.memory.profiles import require_profiles
from query.memory.raw_turns import PEOPLE_DATASETS

ROUND_SYSTEM = "raw_rounds"
SESSION_SYSTEM = "raw_sessions"
BUILDERS = {ROUND_SYSTEM: "raw_rounds/v1", SESSION_SYSTEM: "raw_sessions/v1"}
ACTOR = "memory:raw_units"


@dataclass
class Unit:
    """One retrieval unit before it becomes a card."""

    unit_id: str
    profile_id: str
    session_id: str
    turn_ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    speakers: list[str] = field(default_factory=list)
    at: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(t for t in self.texts if t.strip())


def rounds_of(rows: Iterable[dict[str, Any]]) -> list[Unit]:
    """Rounds from turn rows in history order (profile, session, ordinal): a round opens at each user turn."""
    units: list[Unit] = []
    current: Unit | None = None
    for row in rows:
        opens = current is None or current.session_id != row["session_id"] or row["role"] == "user"
        if opens:
            current = Unit(
                unit_id=f"{ROUND_SYSTEM}:{row['turn_id']}",
                profile_id=row["profile_id"],
                session_id=row["session_id"],
                at=row["at"],
            )
            units.append(current)
        assert current is not None
        _add(current, row)
    return units


def sessions_of(rows: Iterable[dict[str, Any]]) -> list[Unit]:
    """One unit per session, holding its memory-evidence turns."""
    units: dict[str, Unit] = {}
    for row in rows:
        if row["role"] != "user" and row["dataset"] not in PEOPLE_DATASETS:
            continue
        unit = units.get(row["session_id"])
        if unit is None:
            unit = units[row["session_id"]] = Unit(
                unit_id=f"{SESSION_SYSTEM}:{row['session_id']}",
                profile_id=row["profile_id"],
                session_id=row["session_id"],
                at=row["at"],
            )
        _add(unit, row)
    return list(units.values())


def _add(unit: Unit, row: dict[str, Any]) -> None:
    unit.turn_ids.append(row["turn_id"])
    unit.texts.append(row["text"] or "")
    unit.roles.append(row["role"])
    if row["speaker"]:
        unit.speakers.append(row["speaker"])


def build_unit_cards(
    store: EventStore,
    system: str,
    profile_ids: list[str],
    *,
    batch_size: int = 1000,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Write the round or session cards (`system` = raw_rounds | raw_sessions) the listed profiles lack.

    Returns counts: cards_added, units_skipped_empty. Raises ValueError for another system and
    UnknownProfileError for a profile that does not exist."""
    if system not in BUILDERS:
        raise ValueError(f"unit cards are built for {sorted(BUILDERS)}, not {system!r}")
    require_profiles(store, profile_ids)
    with store.driver.session(database=store.database) as session:
        rows = [dict(r) for r in session.run(load_cypher("memory/turns_for_units"), profile_ids=profile_ids)]
        have = {
            r["memory_id"] for r in session.run(load_cypher("memory/card_ids"), system=system, profile_ids=profile_ids)
        }
    units = rounds_of(rows) if system == ROUND_SYSTEM else sessions_of(rows)
    events: list[NewEvent] = []
    empty = 0
    for unit in units:
        if unit.unit_id in have:
            continue
        text = unit.text
        if not text.strip():
            empty += 1
            continue
        metadata: dict[str, object] = {
            "builder": BUILDERS[system],
            "granularity": "round" if system == ROUND_SYSTEM else "session",
            "roles": unit.roles,
            "session_id": unit.session_id,
        }
        if unit.at:
            metadata["at"] = unit.at
        if unit.speakers:
            metadata["speakers"] = list(dict.fromkeys(unit.speakers))
        events.append(
            NewEvent(
                MemoryWritten(
                    system=system,
                    memory_id=unit.unit_id,
                    profile_id=unit.profile_id,
                    op="ADD",
                    text=text,
                    source_turn_ids=unit.turn_ids,
                    metadata=metadata,
                ),
                ACTOR,
                unit.at,
            )
        )
    added = 0
    if progress:
        progress(0, len(events))
    for start in range(0, len(events), batch_size):
        result = store.append(events[start : start + batch_size])
        added += result.appended
        if progress:
            progress(min(start + batch_size, len(events)), len(events))
    return {"cards_added": added, "units_skipped_empty": empty}
