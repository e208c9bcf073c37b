"""Incremental memory upkeep for one profile (used when turns are appended through the API)."""

from __future__ import annotations

from agents.memory.cards.document_links import build_document_links
from agents.memory.cards.raw_turn_cards import SYSTEM as RAW_TURNS
from agents.memory.cards.raw_turn_cards import build_raw_turn_cards
from graph.cypher_files import load_cypher
from graph.store import EventStore
from query.retriever import Retriever


def profile_memory_systems(store: EventStore, profile_id: str) -> list[str]:
    """The memory systems with live cards for the profile."""
    with store.driver.session(database=store.database) as session:
        rows = session.run(load_cypher("memory/profile_memory_systems"), profile_id=profile_id)
        return [r["system"] for r in rows]


def update_profile_memory(
    store: EventStore, retriever: Retriever, profile_id: str, system: str = RAW_TURNS
) -> dict[str, int]:
    """Give new user turns of the profile their raw-turn cards (system "raw_turns" only: other systems
    write cards themselves, with their LLM, at the next `memory build`), then re-link the cards of every
    memory system of the profile whose links are missing or stale, a neighbour the history has since exposed
    included. Returns the counts of both steps summed over systems (cards_added, cards_linked,
    neighbor_links, history_read_links, unresolved_history_reads...) and `systems_relinked`."""
    counts: dict[str, int] = {}  # (an unknown profile is refused by the first build step)
    if system == RAW_TURNS:
        counts.update(build_raw_turn_cards(store, profile_id))
    systems = sorted({system, *profile_memory_systems(store, profile_id)})
    relinked = 0
    for name in systems:
        step = build_document_links(store, retriever, name, profile_id)
        relinked += 1 if step.get("cards_linked", 0) else 0
        for key, value in step.items():
            counts[key] = counts.get(key, 0) + value
    counts["systems_relinked"] = relinked
    return counts
