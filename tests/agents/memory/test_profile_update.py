"""Incremental memory upkeep: update_profile_memory only adds cards for new user turns and (re)links the
cards whose answering turns changed, as appending turns through the API needs."""

from __future__ import annotations

import pytest

from agents.memory.cards import build_document_links, build_raw_turn_cards, update_profile_memory
from graph.events import DocumentExposed, NewEvent, SessionStarted, ToolCallRecord, TurnAppended
from graph.store import EventStore
from query.retriever import Retriever

pytestmark = pytest.mark.neo4j


def _history_reads(store: EventStore, memory_id: str) -> list[str]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (:Memory {id: $m})-[l:LINKS_TO {kind: 'history_read'}]->(d) RETURN d.id AS d ORDER BY l.rank",
            m=memory_id,
        )
        return [r["d"] for r in rows]


def test_update_adds_cards_for_new_turns_and_relinks_answered_ones(mini_store: EventStore, encoder) -> None:  # type: ignore[no-untyped-def]
    retriever = Retriever(mini_store.driver, encoder)
    try:
        build_raw_turn_cards(mini_store)
        build_document_links(mini_store, retriever)
        assert update_profile_memory(mini_store, retriever, "mini-p-ravi")["cards_added"] == 0

        # A new session: the user asks; the card is made and linked before any answer exists.
        mini_store.append(
            [
                NewEvent(SessionStarted(session_id="ravi-s-new", profile_id="mini-p-ravi", ordinal=5), "test"),
                NewEvent(
                    TurnAppended(
                        turn_id="ravi-new-u", session_id="ravi-s-new", ordinal=0, role="user", text="Can I fly soon?"
                    ),
                    "test",
                ),
            ]
        )
        first = update_profile_memory(mini_store, retriever, "mini-p-ravi")
        assert first["cards_added"] == 1 and first["cards_linked"] == 1
        assert _history_reads(mini_store, "raw_turns:ravi-new-u") == []

        # The assistant answers by reading the travel leaflet: the card is re-linked with that history read.
        mini_store.append(
            [
                NewEvent(
                    TurnAppended(
                        turn_id="ravi-new-a",
                        session_id="ravi-s-new",
                        ordinal=1,
                        role="assistant",
                        text="Check the travel leaflet.",
                        tool_calls=[
                            ToolCallRecord(
                                tool="read",
                                arguments={"doc_id": "mini-travel-vaccines"},
                                returned_doc_ids=["mini-travel-vaccines"],
                            )
                        ],
                    ),
                    "test",
                ),
                NewEvent(
                    DocumentExposed(
                        turn_id="ravi-new-a", doc_id="mini-travel-vaccines", via="read", start_line=1, end_line=3
                    ),
                    "test",
                ),
            ]
        )
        second = update_profile_memory(mini_store, retriever, "mini-p-ravi")
        assert second["cards_added"] == 0 and second["cards_linked"] >= 1
        assert _history_reads(mini_store, "raw_turns:ravi-new-u") == ["mini-travel-vaccines"]
        # Other profiles are untouched, and a third call has nothing left to do.
        third = update_profile_memory(mini_store, retriever, "mini-p-ravi")
        assert third["cards_added"] == 0 and third["cards_linked"] == 0
    finally:
        retriever.close()


def test_building_memory_for_an_unknown_profile_is_a_clear_error(mini_store: EventStore, encoder) -> None:  # type: ignore[no-untyped-def]
    from query.errors import UnknownProfileError

    retriever = Retriever(mini_store.driver, encoder)
    with pytest.raises(UnknownProfileError, match="'nobody'"):
        update_profile_memory(mini_store, retriever, "nobody")
    with pytest.raises(UnknownProfileError, match="'ghost-2'"):
        build_raw_turn_cards(mini_store, profile_ids=["mini-p-sam", "ghost-2"])
