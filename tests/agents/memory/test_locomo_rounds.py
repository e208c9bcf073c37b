"""Round cards in a conversation between two people (LoCoMo): a round is an exchange (a turn with the other
speaker's reply) paired from the session's first turn whoever opens it, its lines led by the speakers' names;
a profile's round cards built under the earlier user-turn definition are deleted when the cards are built
again, so the two definitions never mix; LongMemEval's rounds keep their definition."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from agents.memory.cards.unit_cards import rounds_of
from agents.retrieval_eval.pipeline import run_retrieval_eval
from graph.events import MemoryWritten, NewEvent
from graph.store import EventStore
from query.recipes import KEYWORD
from query.retriever import Retriever
from tests.conftest import emptied_store
from tests.paths import FIXTURES

LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"


def _row(dataset: str, session: str, turn: str, role: str, speaker: str | None, text: str) -> dict[str, Any]:
    return {
        "profile_id": "p",
        "dataset": dataset,
        "session_id": session,
        "turn_id": turn,
        "role": role,
        "speaker": speaker,
        "text": text,
        "at": None,
    }


def test_two_person_rounds_pair_each_opening_turn_with_the_other_speakers_reply() -> None:
    rows = [
        _row("locomo", "s1", "s1:1", "assistant", "Mel", "Guess what, I painted a sunrise."),
        _row("locomo", "s1", "s1:2", "user", "Cat", "Lovely! I went to a support group."),
        _row("locomo", "s1", "s1:3", "assistant", "Mel", "How was it?"),
        _row("locomo", "s1", "s1:4", "assistant", "Mel", "Tell me everything."),
        _row("locomo", "s1", "s1:5", "user", "Cat", "Moving."),
        _row("locomo", "s2", "s2:1", "user", "Cat", "Hi again."),
    ]
    units = rounds_of(rows)
    assert [u.turn_ids for u in units] == [["s1:1", "s1:2"], ["s1:3", "s1:4", "s1:5"], ["s2:1"]]
    assert units[0].unit_id == "raw_rounds:exchange:s1:1"
    assert units[0].text == "Mel: Guess what, I painted a sunrise.\nCat: Lovely! I went to a support group."
    # a user/assistant conversation keeps LongMemEval's round: a user turn with the replies it got, verbatim
    lme = [
        _row("longmemeval", "s", "s:0", "assistant", None, "Welcome back."),
        _row("longmemeval", "s", "s:1", "user", None, "Recommend a trail?"),
        _row("longmemeval", "s", "s:2", "assistant", None, "Eagle Ridge Trail."),
    ]
    kept = rounds_of(lme)
    assert [u.turn_ids for u in kept] == [["s:0"], ["s:1", "s:2"]]
    assert kept[1].unit_id == "raw_rounds:s:1" and kept[1].text == "Recommend a trail?\nEagle Ridge Trail."


@pytest.fixture(scope="module")
def store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


@pytest.mark.neo4j
def test_locomo_round_cards_are_exchanges_and_replace_cards_of_the_earlier_definition(store: EventStore) -> None:
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    try:
        run_retrieval_eval(store, retriever, "locomo", LOCOMO, [KEYWORD], [1])  # ingest; turn cards only
        # a round card as the user-turn definition built it: Melanie's opening turn of session 2 on its own
        earlier = MemoryWritten(
            system="raw_rounds",
            memory_id="raw_rounds:locomo:conv-1:D2:1",
            profile_id="locomo:conv-1",
            op="ADD",
            text="an opening turn alone",
            source_turn_ids=["locomo:conv-1:D2:1"],
            metadata={"builder": "raw_rounds/v1"},
        )
        store.append([NewEvent(earlier, "test")])
        report = run_retrieval_eval(store, retriever, "locomo", LOCOMO, [KEYWORD], [1, 3], granularity="round")
    finally:
        retriever.close()
    assert report.memory_build["raw_rounds.stale_cards_deleted"] == 1
    with store.driver.session() as session:
        cards = session.run(
            "MATCH (m:Memory {system: 'raw_rounds', profile_id: 'locomo:conv-1'}) "
            "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) WITH m, t ORDER BY t.ordinal "
            "RETURN m.id AS id, m.deleted AS deleted, m.text AS text, collect(t.id) AS turns ORDER BY id"
        ).data()
    live = {c["id"]: c for c in cards if not c["deleted"]}
    assert [c["id"] for c in cards if c["deleted"]] == ["raw_rounds:locomo:conv-1:D2:1"]
    # session 1 opens with Caroline, session 2 with Melanie: each round is the opener and the reply
    assert {i: c["turns"] for i, c in live.items()} == {
        "raw_rounds:exchange:locomo:conv-1:D1:1": ["locomo:conv-1:D1:1", "locomo:conv-1:D1:2"],
        "raw_rounds:exchange:locomo:conv-1:D1:3": ["locomo:conv-1:D1:3"],
        "raw_rounds:exchange:locomo:conv-1:D2:1": ["locomo:conv-1:D2:1", "locomo:conv-1:D2:2"],
    }
    opening = live["raw_rounds:exchange:locomo:conv-1:D2:1"]["text"].split("\n")
    assert opening[0].startswith("Melanie: ") and opening[1].startswith("Caroline: ")
    # the round level scores the exchanges: "When did Melanie paint a sunrise?" has evidence in both sessions
    row = next(
        r
        for r in report.rows
        if r.item_id == "locomo:conv-1:qa:1" and r.recipe == "KEYWORD" and r.level == "round" and r.line == "memory"
    )
    assert sorted(row.gold) == ["raw_rounds:exchange:locomo:conv-1:D1:1", "raw_rounds:exchange:locomo:conv-1:D2:1"]
