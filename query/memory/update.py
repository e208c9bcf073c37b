"""Incremental memory upkeep for one profile (used when turns are appended through the API)."""

from __future__ import annotations

from graph.store import EventStore
from query.memory.links import build_document_links
from query.memory.raw_turns import SYSTEM as RAW_TURNS
from query.memory.raw_turns import build_raw_turn_cards
from query.retriever import Retriever


def update_profile_memory(
    store: EventStore, retriever: Retriever, profile_id: str, system: str = RAW_TURNS
) -> dict[str, int]:
    """Give new user turns of the profile their raw-turn cards (system "raw_turns" only: other systems
    write cards themselves), then link the cards that have no links or stale ones. Returns the counts of
    both steps (cards_added, cards_linked, neighbor_links, history_read_links, unresolved_history_reads...)."""
    counts: dict[str, int] = {}
    if system == RAW_TURNS:
        counts.update(build_raw_turn_cards(store, profile_id))
    counts.update(build_document_links(store, retriever, system, profile_id))
    return counts
