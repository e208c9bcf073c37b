"""A Neo4j-free check that an adapter's events would project: the rules of cypher/projection, replayed in Python.

`check_events` is shared by the adapter tests (ikat, locomo, longmemeval); the tests here prove it catches
the mistakes it is meant to catch.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from graph.events import (
    DocumentChunked,
    DocumentExposed,
    DocumentIngested,
    FactDisclosed,
    FactRecorded,
    ItemCreated,
    NewEvent,
    ProfileCreated,
    RequirementMapped,
    SessionStarted,
    TopicPlanned,
    TurnAppended,
    parse_event,
)
from ingest.adapters import AdapterResult


def check_events(events: list[NewEvent]) -> dict[str, int]:
    """Assert ids are globally unique, references resolve to earlier events of the right profile, turn
    ordinals run 0,1,2... per session, session ordinals are unique per profile, spans fit their documents,
    and every payload round-trips through its event model. Returns the number of events per type."""
    owner: dict[str, str] = {}  # id -> kind, over every kind (ids must be unique across kinds)
    profiles: set[str] = set()
    facts: dict[str, str] = {}  # fact -> profile
    topics: dict[str, str] = {}
    sessions: dict[str, str] = {}
    session_turns: dict[str, int] = {}
    session_ordinals: dict[str, set[int]] = {}
    turns: dict[str, str] = {}  # turn -> profile
    documents: dict[str, int] = {}  # doc -> number of lines
    chunked: set[str] = set()
    items: dict[str, str] = {}
    requirements: set[str] = set()
    disclosures: set[tuple[str, str]] = set()

    def define(kind: str, ident: str) -> None:
        assert ident, f"empty {kind} id"
        assert ident not in owner, f"{kind} id {ident!r} already used by a {owner[ident]}"
        owner[ident] = kind

    for new in events:
        event: Any = new.event
        assert parse_event(event.TYPE, event.payload()) == event, f"{event.TYPE} does not round-trip"
        if isinstance(event, DocumentIngested):
            define("document", event.doc_id)
            documents[event.doc_id] = event.text.count("\n") + 1
        elif isinstance(event, DocumentChunked):
            assert event.doc_id in documents and event.doc_id not in chunked, event.doc_id
            chunked.add(event.doc_id)
        elif isinstance(event, ProfileCreated):
            define("profile", event.profile_id)
            profiles.add(event.profile_id)
        elif isinstance(event, FactRecorded):
            define("fact", event.fact_id)
            assert event.profile_id in profiles, f"fact {event.fact_id}: unknown profile"
            facts[event.fact_id] = event.profile_id
        elif isinstance(event, TopicPlanned):
            define("topic", event.topic_id)
            assert event.profile_id in profiles, f"topic {event.topic_id}: unknown profile"
            assert all(facts.get(f) == event.profile_id for f in event.fact_ids), f"topic {event.topic_id} facts"
            topics[event.topic_id] = event.profile_id
        elif isinstance(event, SessionStarted):
            define("session", event.session_id)
            assert event.profile_id in profiles, f"session {event.session_id}: unknown profile"
            assert event.topic_id is None or topics.get(event.topic_id) == event.profile_id, event.session_id
            used = session_ordinals.setdefault(event.profile_id, set())
            assert event.ordinal not in used, f"session ordinal {event.ordinal} twice in {event.profile_id}"
            used.add(event.ordinal)
            sessions[event.session_id] = event.profile_id
            session_turns[event.session_id] = 0
        elif isinstance(event, TurnAppended):
            define("turn", event.turn_id)
            assert event.session_id in sessions, f"turn {event.turn_id}: unknown session"
            assert event.ordinal == session_turns[event.session_id], (
                f"turn {event.turn_id}: ordinal {event.ordinal}, expected {session_turns[event.session_id]}"
            )
            session_turns[event.session_id] += 1
            turns[event.turn_id] = sessions[event.session_id]
        elif isinstance(event, FactDisclosed):
            assert event.turn_id in turns, f"disclosure by unknown turn {event.turn_id}"
            assert facts.get(event.fact_id) == turns[event.turn_id], (
                f"fact {event.fact_id} disclosed by a turn of another profile ({event.turn_id})"
            )
            assert (event.fact_id, event.turn_id) not in disclosures, f"disclosed twice: {event.fact_id}"
            disclosures.add((event.fact_id, event.turn_id))
        elif isinstance(event, DocumentExposed):
            assert event.turn_id in turns and event.doc_id in documents
            assert 1 <= event.start_line <= event.end_line <= documents[event.doc_id]
        elif isinstance(event, ItemCreated):
            define("item", event.item_id)
            assert event.profile_id in profiles, f"item {event.item_id}: unknown profile"
            assert all(d in documents for d in [*event.support_doc_ids, *event.history_doc_ids]), event.item_id
            items[event.item_id] = event.profile_id
        elif isinstance(event, RequirementMapped):
            define("requirement", event.requirement_id)
            assert event.requirement_id not in requirements
            requirements.add(event.requirement_id)
            profile = items.get(event.item_id)
            assert profile is not None, f"requirement {event.requirement_id}: unknown item"
            for tid in event.turn_ids:
                assert turns.get(tid) == profile, f"requirement {event.requirement_id}: turn {tid} not of {profile}"
            for fid in event.fact_ids:
                assert facts.get(fid) == profile, f"requirement {event.requirement_id}: fact {fid} not of {profile}"
            for sid in event.session_ids:
                assert sessions.get(sid) == profile, f"requirement {event.requirement_id}: session {sid}"
            for span in event.spans:
                assert span.doc_id in documents, f"requirement {event.requirement_id}: document {span.doc_id}"
                assert 1 <= span.start_line <= span.end_line <= documents[span.doc_id], span
            assert len(set(event.turn_ids)) == len(event.turn_ids), f"repeated turn in {event.requirement_id}"
        else:  # pragma: no cover - adapters emit none of the other types
            raise AssertionError(f"unexpected event type {event.TYPE}")
    assert chunked == set(documents), "a document without its chunks"
    return dict(Counter(new.event.TYPE for new in events))


def event_ids(result: AdapterResult) -> list[str]:
    return [new.event.event_id() for new in result.events]


def assert_ids_prefixed(result: AdapterResult, prefixes: tuple[str, ...]) -> None:
    """Every id an adapter defines starts with its dataset prefix (ids are unique across datasets)."""
    for new in result.events:
        payload = new.event.payload()
        for key in (
            "profile_id",
            "fact_id",
            "topic_id",
            "session_id",
            "turn_id",
            "item_id",
            "requirement_id",
            "doc_id",
        ):
            if key in payload and payload[key] is not None:
                assert str(payload[key]).startswith(prefixes), f"{new.event.TYPE}.{key} = {payload[key]!r}"


# --- the checker itself -----------------------------------------------------------------------------


def _mini() -> list[NewEvent]:
    return [
        NewEvent(e, "test")
        for e in (
            ProfileCreated(profile_id="p", dataset="d"),
            FactRecorded(fact_id="f", profile_id="p", text="I am vegetarian."),
            SessionStarted(session_id="s", profile_id="p", ordinal=0),
            TurnAppended(turn_id="t0", session_id="s", ordinal=0, role="user", text="I am vegetarian."),
            FactDisclosed(fact_id="f", turn_id="t0"),
            ItemCreated(item_id="i", profile_id="p", dataset="d", question="q?"),
            RequirementMapped(requirement_id="r", item_id="i", ordinal=0, text="r", turn_ids=["t0"], fact_ids=["f"]),
        )
    ]


def test_checker_accepts_a_consistent_history() -> None:
    assert check_events(_mini())["TurnAppended"] == 1


def test_checker_rejects_a_gap_in_turn_ordinals() -> None:
    events = _mini()
    events.insert(4, NewEvent(TurnAppended(turn_id="t2", session_id="s", ordinal=2, role="user", text="x"), "test"))
    with pytest.raises(AssertionError, match="ordinal"):
        check_events(events)


def test_checker_rejects_a_reference_to_a_later_or_missing_turn() -> None:
    events = _mini()
    events[-1] = NewEvent(
        RequirementMapped(requirement_id="r", item_id="i", ordinal=0, text="r", turn_ids=["t9"]), "test"
    )
    with pytest.raises(AssertionError, match="t9"):
        check_events(events)


def test_checker_rejects_an_id_used_by_two_kinds() -> None:
    events = _mini()
    events[-1] = NewEvent(RequirementMapped(requirement_id="t0", item_id="i", ordinal=0, text="r"), "test")
    with pytest.raises(AssertionError, match="already used"):
        check_events(events)
