"""No-LLM memory cards at round and session granularity (LongMemEval's retrieval units), beside the turn
cards of `agents.memory.cards.raw_turn_cards`.

- round (system "raw_rounds"): a user turn with the assistant turns that answer it (every turn up to the
  next user turn), text verbatim, one line per turn; card id `raw_rounds:<first turn id>`, DERIVED_FROM every
  turn of the round (so a round resolves to both the user turn and the reply). Assistant turns before a
  session's first user turn form a round of their own.
  Between two people (`PEOPLE_DATASETS`: LoCoMo, whose second speaker is stored with role "assistant") the
  roles say nothing about who asks and who answers, and half of LoCoMo's sessions open with the second
  speaker. There a round is an exchange (builder raw_rounds/v2): a turn with the other speaker's reply,
  pairing from the session's first turn whoever speaks first (the opener's consecutive turns, then the
  other's), each line led by its speaker's name (both say "I"); card id `raw_rounds:exchange:<first turn
  id>`.
- session (system "raw_sessions"): one card per session, the text of its memory-evidence turns (user turns;
  both speakers where both are people, `PEOPLE_DATASETS`), one line per turn, as LongMemEval's whole-session
  unit joins the user turns; card id `raw_sessions:<session id>`, DERIVED_FROM those turns.

Only what a method may see is read: text, role, speaker, time and the session; never turn metadata. Cards
with only whitespace are not written. Building is idempotent: a unit that already has its card is skipped;
a live card no current unit has (one built under an earlier definition, e.g. LoCoMo's rounds before
raw_rounds/v2) is deleted, so a profile's cards never mix two definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from agents.memory.cards.raw_turn_cards import PEOPLE_DATASETS
from graph.cypher_files import load_cypher
from graph.events import MemoryWritten, NewEvent
from graph.store import EventStore
from query.memory.profiles import require_profiles

ROUND_SYSTEM = "raw_rounds"
SESSION_SYSTEM = "raw_sessions"
BUILDERS = {ROUND_SYSTEM: "raw_rounds/v1", SESSION_SYSTEM: "raw_sessions/v1"}
EXCHANGE_BUILDER = "raw_rounds/v2"  # rounds between two people (PEOPLE_DATASETS)
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
    line_speakers: list[str] = field(default_factory=list)  # per turn: the speaker's name, else the role
    at: str | None = None
    named: bool = False  # lines led by the speaker's name (conversations between two people)

    @property
    def text(self) -> str:
        if self.named:
            return "\n".join(
                f"{speaker}: {t}" for t, speaker in zip(self.texts, self.line_speakers, strict=True) if t.strip()
            )
        return "\n".join(t for t in self.texts if t.strip())


def rounds_of(rows: Iterable[dict[str, Any]]) -> list[Unit]:
    """Rounds from turn rows in history order (profile, session, ordinal): a round opens at each user turn;
    between two people (PEOPLE_DATASETS) at the session's first turn and wherever its opener speaks again
    after the other speaker's reply."""
    units: list[Unit] = []
    current: Unit | None = None
    for row in rows:
        people = row["dataset"] in PEOPLE_DATASETS
        opens = current is None or current.session_id != row["session_id"]
        if not opens and people:
            assert current is not None
            opens = _speaker(row) == current.line_speakers[0] and _speaker(row) != current.line_speakers[-1]
        elif not opens:
            opens = row["role"] == "user"
        if opens:
            kind = "exchange:" if people else ""
            current = Unit(
                unit_id=f"{ROUND_SYSTEM}:{kind}{row['turn_id']}",
                profile_id=row["profile_id"],
                session_id=row["session_id"],
                at=row["at"],
                named=people,
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


def _speaker(row: dict[str, Any]) -> str:
    """Who said the turn: the speaker's name, else the role."""
    return str(row["speaker"] or row["role"])


def _add(unit: Unit, row: dict[str, Any]) -> None:
    unit.turn_ids.append(row["turn_id"])
    unit.texts.append(row["text"] or "")
    unit.roles.append(row["role"])
    unit.line_speakers.append(_speaker(row))
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
    """Write the round or session cards (`system` = raw_rounds | raw_sessions) the listed profiles lack, and
    delete their live cards that no current unit has (built under an earlier definition).

    Returns counts: cards_added, units_skipped_empty, stale_cards_deleted. Raises ValueError for another
    system and UnknownProfileError for a profile that does not exist."""
    if system not in BUILDERS:
        raise ValueError(f"unit cards are built for {sorted(BUILDERS)}, not {system!r}")
    require_profiles(store, profile_ids)
    with store.driver.session(database=store.database) as session:
        rows = [dict(r) for r in session.run(load_cypher("memory/turns_for_units"), profile_ids=profile_ids)]
        cards = [
            dict(r) for r in session.run(load_cypher("memory/card_ids"), system=system, profile_ids=profile_ids)
        ]
    have = {c["memory_id"] for c in cards}
    units = rounds_of(rows) if system == ROUND_SYSTEM else sessions_of(rows)
    current = {u.unit_id for u in units}
    events: list[NewEvent] = [
        NewEvent(MemoryWritten(system=system, memory_id=c["memory_id"], profile_id=c["profile_id"], op="DELETE"), ACTOR)
        for c in cards
        if not c["deleted"] and c["memory_id"] not in current
    ]
    stale = len(events)
    empty = 0
    for unit in units:
        if unit.unit_id in have:
            continue
        text = unit.text
        if not text.strip():
            empty += 1
            continue
        metadata: dict[str, object] = {
            "builder": EXCHANGE_BUILDER if unit.named else BUILDERS[system],
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
    appended = 0
    if progress:
        progress(0, len(events))
    for start in range(0, len(events), batch_size):
        result = store.append(events[start : start + batch_size])
        appended += result.appended
        if progress:
            progress(min(start + batch_size, len(events)), len(events))
    return {"cards_added": max(0, appended - stale), "units_skipped_empty": empty, "stale_cards_deleted": stale}
