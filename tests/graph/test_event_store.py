"""The event log on the real Neo4j: idempotent append, gap-free seq, hash chain, atomic projection."""

from __future__ import annotations

import itertools

import pytest

from graph.errors import ChainBrokenError
from graph.events import EVENT_TYPES, FactDisclosed, NewEvent, ProfileCreated
from graph.integrity import verify_chain
from graph.projection import ProjectionError, projected_types
from graph.store import EventStore
from tests.event_samples import all_type_events
from tests.graph_counts import count


def test_every_event_type_has_a_projection() -> None:
    assert set(EVENT_TYPES) <= set(projected_types())


def test_reappending_the_same_events_is_a_no_op(store: EventStore) -> None:
    events = all_type_events()
    first = store.append(events)
    second = store.append(events)
    assert first.appended == len(events)
    assert second.appended == 0 and second.skipped == len(events)
    assert second.head_seq == first.head_seq and second.head_hash == first.head_hash


def test_seq_is_gap_free_and_the_hash_chain_verifies(store: EventStore) -> None:
    events = all_type_events()
    store.append(events[:5])
    store.append(events[5:])
    stored = list(store.read())
    assert [e.seq for e in stored] == list(range(1, len(events) + 1))
    assert stored[0].prev_hash == "0" * 64
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(stored))
    assert verify_chain(stored, expected_head=store.head().hash).ok


def test_projection_builds_the_evidence_graph_of_every_event(store: EventStore) -> None:
    store.append(all_type_events())
    d = store.driver
    assert count(d, "MATCH (:Profile {id:'p1'})-[:HAS_FACT]->(f:Fact) RETURN count(f)") == 2
    assert count(d, "MATCH (:Profile {id:'p1'})-[:HAS_TOPIC]->(:Topic)-[:CONCERNS]->(f:Fact) RETURN count(f)") == 2
    assert count(d, "MATCH (:Session {id:'s1'})-[:ABOUT]->(:Topic {id:'tp1'}) RETURN count(*)") == 1
    assert count(d, "MATCH (:Turn {id:'t1'})-[:NEXT]->(:Turn {id:'t2'}) RETURN count(*)") == 1
    assert count(d, "MATCH (:Turn {id:'t1'})-[:DISCLOSES]->(f:Fact) RETURN count(f)") == 2
    assert (
        count(
            d,
            "MATCH (:Turn {id:'t2'})-[e:EXPOSED {via:'read', start_line:1, end_line:3}]->"
            "(:Document {id:'doc-kidney'}) RETURN count(e)",
        )
        == 1
    )
    assert (
        count(
            d,
            "MATCH (:Document {id:'doc-respite'})-[:HAS_CHUNK]->(c:Chunk) WHERE size(c.embedding) > 0 RETURN count(c)",
        )
        >= 1
    )
    assert count(d, "MATCH (:Document {id:'doc-respite'})-[:RELATED {weight: 0.4}]->(:Document) RETURN count(*)") == 1
    assert count(d, "MATCH (:Item {id:'i1'})-[:FOR_PROFILE]->(:Profile {id:'p1'}) RETURN count(*)") == 1
    assert count(d, "MATCH (:Item {id:'i1'})-[:SUPPORTED_BY]->(:Document {id:'doc-respite'}) RETURN count(*)") == 1
    assert count(d, "MATCH (:Item {id:'i1'})-[:USES_HISTORY_DOC]->(:Document {id:'doc-kidney'}) RETURN count(*)") == 1
    req = "MATCH (:Item {id:'i1'})-[:HAS_REQUIREMENT]->(r:Requirement {id:'i1-r0'}) "
    assert count(d, req + "MATCH (r)-[:STATED_IN]->(:Turn {id:'t1'}) RETURN count(*)") == 1
    assert count(d, req + "MATCH (r)-[:USES_FACT]->(f:Fact) RETURN count(f)") == 2
    assert count(d, req + "MATCH (r)-[:EVIDENCED_IN]->(:Session {id:'s1'}) RETURN count(*)") == 1
    assert (
        count(
            d,
            req + "MATCH (r)-[g:GROUNDED_IN {start_line:4, end_line:4}]->(:Document {id:'doc-respite'}) "
            "RETURN count(g)",
        )
        == 1
    )
    assert count(d, "MATCH (:Item {id:'i2'})-[:AUGMENTED_FROM]->(:Item {id:'i1'}) RETURN count(*)") == 1
    assert (
        count(
            d,
            "MATCH (m:Memory {id:'m1', text:'I look after my mum and live alone'})-[:DERIVED_FROM]->"
            "(:Turn {id:'t1'}) WHERE m.updated_seq > m.seq RETURN count(*)",
        )
        == 1
    )
    assert count(d, "MATCH (:Memory {id:'m1'})-[l:LINKS_TO]->(:Document) RETURN count(l)") == 2
    assert count(d, "MATCH (:Profile {id:'p1'})-[:HAS_STATE]->(s:State {active: true}) RETURN count(s)") == 1
    assert (
        count(d, "MATCH (s:State {id:'st1'}) WHERE s.active = false AND s.superseded_seq IS NOT NULL RETURN count(s)")
        == 1
    )


def test_every_projected_node_and_relationship_carries_its_event_seq(store: EventStore) -> None:
    store.append(all_type_events())
    d = store.driver
    assert (
        count(
            d,
            "MATCH (n) WHERE NOT n:Event AND NOT n:LogHead AND NOT n:ProjectionMeta AND n.seq IS NULL RETURN count(n)",
        )
        == 0
    )
    assert count(d, "MATCH ()-[r]->() WHERE r.seq IS NULL RETURN count(r)") == 0
    # the seq points at an event of a type that creates that kind of element
    assert count(d, "MATCH (t:Turn) MATCH (e:Event {seq: t.seq}) WHERE e.type <> 'TurnAppended' RETURN count(t)") == 0


def test_an_event_with_an_unknown_reference_writes_nothing(store: EventStore) -> None:
    store.append(all_type_events())
    head = store.head()
    bad = [
        NewEvent(ProfileCreated(profile_id="p2", dataset="unit"), "test"),
        NewEvent(FactDisclosed(fact_id="no-such-fact", turn_id="t1"), "test"),
    ]
    with pytest.raises(ProjectionError, match="no-such-fact"):
        store.append(bad)
    assert store.head() == head
    assert count(store.driver, "MATCH (p:Profile {id:'p2'}) RETURN count(p)") == 0
    assert count(store.driver, "MATCH (e:Event) RETURN count(e)") == head.seq


def test_a_fact_cannot_be_disclosed_in_another_profiles_turn(store: EventStore) -> None:
    store.append(all_type_events())
    from graph.events import FactRecorded

    store.append(
        [
            NewEvent(ProfileCreated(profile_id="p2", dataset="unit"), "t"),
            NewEvent(FactRecorded(fact_id="f-p2", profile_id="p2", text="x"), "t"),
        ]
    )
    with pytest.raises(ProjectionError):
        store.append([NewEvent(FactDisclosed(fact_id="f-p2", turn_id="t1"), "t")])


def test_import_refuses_records_that_do_not_continue_the_chain(store: EventStore) -> None:
    store.append(all_type_events()[:3])
    stored = list(store.read())
    with pytest.raises(ChainBrokenError):
        store.import_stored(stored[1:2])


def test_an_event_referencing_what_a_later_event_creates_is_refused(store: EventStore) -> None:
    from graph.events import FactRecorded

    events = [
        NewEvent(ProfileCreated(profile_id="p9", dataset="unit"), "t"),
        NewEvent(FactDisclosed(fact_id="f9", turn_id="t1"), "t"),  # f9 is only created by the next event
        NewEvent(FactRecorded(fact_id="f9", profile_id="p9", text="x"), "t"),
    ]
    with pytest.raises(ProjectionError, match="later event"):
        store.append(events)
    assert store.head().seq == 0


def test_turn_neighbours_are_linked_whatever_order_they_arrive_in(store: EventStore) -> None:
    from graph.events import SessionStarted, TurnAppended

    store.append([NewEvent(ProfileCreated(profile_id="p1", dataset="unit"), "t"),
                  NewEvent(SessionStarted(session_id="s1", profile_id="p1", ordinal=0), "t")])
    store.append([NewEvent(TurnAppended(turn_id="b", session_id="s1", ordinal=1, role="assistant", text="b"), "t")])
    store.append([NewEvent(TurnAppended(turn_id="a", session_id="s1", ordinal=0, role="user", text="a"), "t"),
                  NewEvent(TurnAppended(turn_id="c", session_id="s1", ordinal=2, role="user", text="c"), "t")])
    with store.driver.session() as session:
        chain = session.run("MATCH p = (:Turn {id:'a'})-[:NEXT]->(:Turn {id:'b'})-[:NEXT]->(:Turn {id:'c'}) "
                            "RETURN count(p) AS n").single()
        total = session.run("MATCH ()-[r:NEXT]->() RETURN count(r) AS n").single()
    assert chain is not None and chain["n"] == 1
    assert total is not None and total["n"] == 2
