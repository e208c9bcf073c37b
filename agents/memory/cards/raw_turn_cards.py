"""The no-LLM memory builder: one card per memory-evidence turn, verbatim (turn granularity), system "raw_turns".

Memory-evidence turns are the user's turns; in a conversation between two people (datasets listed in
PEOPLE_DATASETS: LoCoMo, whose second speaker is stored with role "assistant") both speakers' turns are.

Each card is a MemoryWritten ADD event with id `raw_turns:<turn id>`, the turn's text, and DERIVED_FROM that
turn; its embedding is made by the projection. Only what a method may see is used: the turn's text, role,
speaker and time; never turn metadata (which can hold gold labels). Whitespace-only turns get no card.
"""

from __future__ import annotations

from collections.abc import Callable

from graph.cypher_files import load_cypher
from graph.events import MemoryWritten, NewEvent
from graph.store import EventStore
from query.memory.profiles import require_profiles

SYSTEM = "raw_turns"
BUILDER = "raw_turns/v1"
ACTOR = "memory:raw_turns"
# Datasets whose conversations are between two people: every speaker's turns are memory evidence.
PEOPLE_DATASETS = ("locomo",)


def raw_card_id(turn_id: str) -> str:
    return f"{SYSTEM}:{turn_id}"


def build_raw_turn_cards(
    store: EventStore,
    profile_id: str | None = None,
    *,
    profile_ids: list[str] | None = None,
    batch_size: int = 2000,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Write a card for every memory-evidence turn that has none yet (all profiles, one, or the listed ones).

    Idempotent and resumable: turns that already have a card are skipped; each batch is one transaction.
    Returns counts: cards_added, turns_skipped_empty. Raises UnknownProfileError for a named profile that
    does not exist."""
    require_profiles(store, [profile_id, *(profile_ids or [])])
    with store.driver.session(database=store.database) as session:
        rows = list(
            session.run(
                load_cypher("memory/user_turns_without_cards"),
                profile_id=profile_id,
                profile_ids=profile_ids,
                system=SYSTEM,
                people_datasets=list(PEOPLE_DATASETS),
            )
        )
    events: list[NewEvent] = []
    empty = 0
    for row in rows:
        text = row["text"] or ""
        if not text.strip():
            empty += 1
            continue
        metadata: dict[str, object] = {
            "builder": BUILDER,
            "role": row["role"] or "user",
            "session_id": row["session_id"],
        }
        if row["at"]:
            metadata["at"] = row["at"]
        if row["speaker"]:
            metadata["speaker"] = row["speaker"]
        events.append(
            NewEvent(
                MemoryWritten(
                    system=SYSTEM,
                    memory_id=raw_card_id(row["turn_id"]),
                    profile_id=row["profile_id"],
                    op="ADD",
                    text=text,
                    source_turn_ids=[row["turn_id"]],
                    metadata=metadata,
                ),
                ACTOR,
                row["at"],
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
    return {"cards_added": added, "turns_skipped_empty": empty}
