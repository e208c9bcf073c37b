"""Growth keeps links honest (issue 22, item 6): a document that an appended session exposes leaves every
card's unexposed-neighbour list for the profile, whatever the memory system, the lists are refilled, and the
state summary is reported stale until it is summarised again."""

from __future__ import annotations

import pytest

from agents.memory.cards import build_document_links, build_raw_turn_cards, update_profile_memory
from agents.memory.cards.document_links import N_NEIGHBORS
from agents.memory.cards.unit_cards import build_unit_cards
from graph.events import (
    DocumentExposed,
    NewEvent,
    SessionStarted,
    StateSpec,
    StateSummarized,
    ToolCallRecord,
    TurnAppended,
)
from graph.store import EventStore
from query.retriever import Retriever
from query.states import profile_states
from tests.conftest import MINI_BUNDLE, _load_bundle

pytestmark = pytest.mark.neo4j

PROFILE = "mini-p-ravi"


@pytest.fixture()
def grown_store(driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    """A fresh copy of the mini bundle per test: these tests grow a profile."""
    return _load_bundle(driver, encoder, MINI_BUNDLE)  # type: ignore[no-any-return]


def _neighbours(store: EventStore) -> dict[str, list[str]]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (:Profile {id: $p})-[:HAS_MEMORY]->(m:Memory) WHERE NOT coalesce(m.deleted, false) "
            "OPTIONAL MATCH (m)-[l:LINKS_TO {kind: 'neighbor'}]->(d:Document) "
            "WITH m, d, l ORDER BY l.rank RETURN m.id AS m, collect(d.id) AS docs",
            p=PROFILE,
        )
        return {r["m"]: r["docs"] for r in rows}


def _exposed(store: EventStore) -> set[str]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (:Profile {id: $p})-[:HAS_SESSION]->()-[:HAS_TURN]->()-[:EXPOSED]->(d:Document) "
            "RETURN DISTINCT d.id AS d",
            p=PROFILE,
        )
        return {r["d"] for r in rows}


def _n_documents(store: EventStore) -> int:
    with store.driver.session() as session:
        return int(session.run("MATCH (d:Document) RETURN count(d) AS n").single()["n"])  # type: ignore[index]


def _grow_by_reading(store: EventStore, doc_id: str) -> None:
    store.append(
        [
            NewEvent(SessionStarted(session_id="ravi-s-grow", profile_id=PROFILE, ordinal=9), "test"),
            NewEvent(
                TurnAppended(turn_id="ravi-grow-u", session_id="ravi-s-grow", ordinal=0, role="user", text="More?"),
                "test",
            ),
            NewEvent(
                TurnAppended(
                    turn_id="ravi-grow-a",
                    session_id="ravi-s-grow",
                    ordinal=1,
                    role="assistant",
                    text="Here is a leaflet.",
                    tool_calls=[ToolCallRecord(tool="read", arguments={"doc_id": doc_id}, returned_doc_ids=[doc_id])],
                ),
                "test",
            ),
            NewEvent(
                DocumentExposed(turn_id="ravi-grow-a", doc_id=doc_id, via="read", start_line=1, end_line=2), "test"
            ),
        ]
    )


def test_a_new_exposure_leaves_every_cards_neighbours_of_every_system_and_they_are_refilled(
    grown_store: EventStore,
    encoder,  # type: ignore[no-untyped-def]
) -> None:
    retriever = Retriever(grown_store.driver, encoder)
    try:
        build_raw_turn_cards(grown_store, PROFILE)
        build_unit_cards(grown_store, "raw_rounds", [PROFILE])
        build_document_links(grown_store, retriever, "raw_turns", PROFILE)
        build_document_links(grown_store, retriever, "raw_rounds", PROFILE)
        before = _neighbours(grown_store)
        assert before and all(before.values())
        probe = next(iter(before.values()))[0]  # a rank-1 unexposed neighbour of some card
        assert probe not in _exposed(grown_store)

        _grow_by_reading(grown_store, probe)
        counts = update_profile_memory(grown_store, retriever, PROFILE)

        exposed = _exposed(grown_store)
        assert probe in exposed
        after = _neighbours(grown_store)
        listing_exposed = {m: sorted(set(docs) & exposed) for m, docs in after.items() if set(docs) & exposed}
        assert listing_exposed == {}, f"cards still list exposed documents as neighbours: {listing_exposed}"
        assert {m.split(":")[0] for m in after} == {"raw_turns", "raw_rounds"}
        expected = min(N_NEIGHBORS, _n_documents(grown_store) - len(exposed))
        assert all(len(docs) == expected for docs in after.values()), {m: len(d) for m, d in after.items()}
        assert counts["systems_relinked"] == 2
        # The new turns got cards and links, and a second update has nothing left to do.
        assert "raw_turns:ravi-grow-u" in after
        again = update_profile_memory(grown_store, retriever, PROFILE)
        assert again["cards_added"] == 0 and again["cards_linked"] == 0
    finally:
        retriever.close()


def test_memory_build_alone_also_drops_a_neighbour_exposed_since(grown_store: EventStore, encoder) -> None:  # type: ignore[no-untyped-def]
    retriever = Retriever(grown_store.driver, encoder)
    try:
        build_raw_turn_cards(grown_store, PROFILE)
        build_document_links(grown_store, retriever, "raw_turns", PROFILE)
        probe = next(iter(_neighbours(grown_store).values()))[0]
        _grow_by_reading(grown_store, probe)
        build_document_links(grown_store, retriever, "raw_turns", PROFILE)
        assert all(probe not in docs for docs in _neighbours(grown_store).values())
    finally:
        retriever.close()


def test_the_state_summary_is_stale_after_growth_until_summarised_again(grown_store: EventStore) -> None:
    def summary(summary_id: str) -> NewEvent:
        return NewEvent(
            StateSummarized(
                profile_id=PROFILE,
                summary_id=summary_id,
                system="memkb",
                states=[
                    StateSpec(
                        state_id=f"{summary_id}-s01",
                        text="Knee replaced on 24 February.",
                        concerns="the user",
                        time_context="2025-02-24",
                        unresolved=[],
                        source_turn_ids=["mini-s-3-t0"],
                    )
                ],
            ),
            "test",
        )

    grown_store.append([summary("memkb-ravi-a")])
    _, notes = profile_states(grown_store.driver, grown_store.database, PROFILE, "memkb")
    assert not any("stale" in n for n in notes)
    _grow_by_reading(grown_store, "mini-clinic-hours")
    _, notes = profile_states(grown_store.driver, grown_store.database, PROFILE, "memkb")
    assert any("stale: 2 turn(s)" in n for n in notes), notes
    grown_store.append([summary("memkb-ravi-b")])
    _, notes = profile_states(grown_store.driver, grown_store.database, PROFILE, "memkb")
    assert not any("stale" in n for n in notes)
