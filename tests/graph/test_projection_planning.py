"""Projection planned outside the transaction (graph/projection.py) and the replay pipeline built on it: pages
are read whole across record chunks, grouped statements keep each row's own
references, and list parameters pack as lists while formatting as their length."""

from __future__ import annotations

import pytest

from bench.bench_event_store import conversation_log
from graph.events import FactRecorded, NewEvent, ProfileCreated
from graph.projection import ProjectionError
from graph.quiet_params import QuietList
from graph.store import EventStore
from tests.graph_counts import count

pytestmark = pytest.mark.neo4j


def test_replay_pages_hold_every_event_once_in_seq_order_across_record_chunks(store: EventStore) -> None:
    store.append(conversation_log(1300))
    full = {e.seq: (e.type, e.payload) for e in store.read()}
    for page_size in (499, 700, 5000):
        pages = list(store.read_for_replay(page_size=page_size))
        assert [len(p) for p in pages[:-1]] == [page_size] * (len(pages) - 1)
        read = [(e.seq, e.type, e.payload) for page in pages for e in page]
        assert [seq for seq, _, _ in read] == list(range(1, 1301))
        assert {seq: (kind, payload) for seq, kind, payload in read} == full


def test_facts_of_interleaved_profiles_each_join_their_own_profile(store: EventStore) -> None:
    events = [NewEvent(ProfileCreated(profile_id=p, dataset="unit"), "test") for p in ("pa", "pb")]
    events += [
        NewEvent(FactRecorded(fact_id=f"f{i}", profile_id="pa" if i % 2 else "pb", text=f"fact {i}"), "test")
        for i in range(6)
    ]
    store.append(events)
    rows = store.driver.execute_query("MATCH (p:Profile)-[:HAS_FACT]->(f:Fact) RETURN p.id AS p, f.id AS f")[0]
    assert {(r["p"], r["f"]) for r in rows} == {("pa" if i % 2 else "pb", f"f{i}") for i in range(6)}


def test_a_fact_of_an_unknown_profile_fails_its_whole_batch(store: EventStore) -> None:
    store.append([NewEvent(ProfileCreated(profile_id="pa", dataset="unit"), "test")])
    bad = [
        NewEvent(FactRecorded(fact_id="f-ok", profile_id="pa", text="x"), "test"),
        NewEvent(FactRecorded(fact_id="f-lost", profile_id="no-such-profile", text="y"), "test"),
    ]
    with pytest.raises(ProjectionError, match="f-lost"):
        store.append(bad)
    assert count(store.driver, "MATCH (f:Fact) RETURN count(f)") == 0


def test_a_quiet_list_packs_as_its_items_and_formats_as_its_length(store: EventStore) -> None:
    rows = QuietList([{"n": i} for i in range(1000)])
    assert repr({"rows": rows}) == "{'rows': <1000 items>}"
    record = store.driver.execute_query("UNWIND $rows AS row RETURN count(row) AS c, sum(row.n) AS s", rows=rows)[0][0]
    assert (record["c"], record["s"]) == (1000, sum(range(1000)))
