"""Rebuild, verify, export/import: the projection is a pure function of the log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neo4j import Driver

from graph.cypher_files import load_cypher
from graph.fingerprint import compute_fingerprint
from graph.integrity import verify_chain
from graph.replay import drop_projection, replay
from graph.store import EventStore
from graph.transfer import export_log, import_log
from tests.event_samples import all_type_events


@pytest.fixture()
def filled(empty_db: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    store = EventStore(empty_db, encoder=encoder)
    store.ensure_schema()
    events = all_type_events()
    # several appends so that replay pages differ from the original transactions
    store.append(events[:4])
    store.append(events[4:11])
    store.append(events[11:])
    return store


def test_replay_reproduces_projection_fingerprint(filled: EventStore) -> None:
    before = compute_fingerprint(filled.driver)
    drop_projection(filled)
    assert compute_fingerprint(filled.driver).nodes == 0
    result = replay(filled, page_size=3)
    after = compute_fingerprint(filled.driver)
    assert result.events == filled.head().seq
    assert after.digest == before.digest, before.differences(after)


SEARCH_INDEXES = {
    "chunk_embedding", "memory_embedding", "chunk_text", "chunk_text_plain", "document_title", "memory_text",
    "node_search",
}


def _online_indexes(driver: Driver) -> set[str]:
    records, _, _ = driver.execute_query("SHOW INDEXES YIELD name, state WHERE state = 'ONLINE' RETURN name")
    return {r["name"] for r in records}


def test_rebuild_drops_search_indexes_and_replay_brings_them_back_online(filled: EventStore) -> None:
    assert _online_indexes(filled.driver) >= SEARCH_INDEXES
    drop_projection(filled)
    assert not SEARCH_INDEXES & _online_indexes(filled.driver)
    replay(filled, page_size=5)
    assert _online_indexes(filled.driver) >= SEARCH_INDEXES
    records, _, _ = filled.driver.execute_query(
        "CALL db.index.fulltext.queryNodes('node_search', 'alone') YIELD node RETURN count(node) AS n"
    )
    assert records[0]["n"] > 0


def test_fingerprint_detects_a_changed_property(filled: EventStore) -> None:
    before = compute_fingerprint(filled.driver)
    with filled.driver.session() as session:
        session.run("MATCH (t:Turn {id:'t1'}) SET t.text = 'edited'").consume()
    assert compute_fingerprint(filled.driver).digest != before.digest


def test_events_verify_finds_a_tampered_payload(filled: EventStore) -> None:
    assert verify_chain(filled.read(), expected_head=filled.head().hash).ok
    victim = next(e for e in filled.read() if e.type == "FactRecorded")
    payload = dict(victim.payload, text="does not live alone")
    with filled.driver.session() as session:
        session.run(load_cypher("testing/tamper_payload"), seq=victim.seq, payload=json.dumps(payload)).consume()
    report = verify_chain(filled.read(), expected_head=filled.head().hash)
    assert not report.ok
    assert report.first_broken_seq == victim.seq


def test_events_verify_finds_a_deleted_event(filled: EventStore) -> None:
    with filled.driver.session() as session:
        session.run("MATCH (e:Event {seq: 5}) DETACH DELETE e").consume()
    report = verify_chain(filled.read(), expected_head=filled.head().hash)
    assert not report.ok and report.first_broken_seq == 5 and "missing" in (report.problem or "")


def test_events_verify_finds_events_lost_at_the_end(filled: EventStore) -> None:
    last = filled.head().seq
    with filled.driver.session() as session:
        session.run("MATCH (e:Event {seq: $seq}) DETACH DELETE e", seq=last).consume()
    report = verify_chain(filled.read(until=last), expected_head=filled.head().hash)
    assert not report.ok


def test_export_then_import_into_an_empty_database_gives_the_same_graph(filled: EventStore, tmp_path: Path) -> None:
    before = compute_fingerprint(filled.driver)
    head = filled.head()
    path = tmp_path / "log.jsonl"
    assert export_log(filled, path) == head.seq
    with filled.driver.session() as session:
        session.run(load_cypher("admin/delete_everything")).consume()
    filled.ensure_schema()
    imported, present = import_log(filled, path, batch_size=4)
    assert (imported, present) == (head.seq, 0)
    assert filled.head() == head
    assert compute_fingerprint(filled.driver).digest == before.digest
    # importing again is a no-op (resumable)
    assert import_log(filled, path) == (0, head.seq)
