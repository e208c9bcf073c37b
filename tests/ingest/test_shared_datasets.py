"""Ingest of the real shared data sets into Neo4j; counts must match each SOURCE.md (skipped without ../shared)."""

from __future__ import annotations

from pathlib import Path

from graph.store import EventStore
from ingest.pipeline import load_input, write_events
from tests.graph_counts import count


def test_sample_bundle_graph_matches_its_files(sample_store: EventStore) -> None:
    d = sample_store.driver
    assert count(d, "MATCH (n:Document) RETURN count(n)") == 1368
    assert count(d, "MATCH (n:Profile) RETURN count(n)") == 3
    assert count(d, "MATCH (n:Session) RETURN count(n)") == 19
    assert count(d, "MATCH (n:Turn) RETURN count(n)") == 80
    assert count(d, "MATCH (n:Item) RETURN count(n)") == 28
    assert count(d, "MATCH (n:Requirement) RETURN count(n)") == 89
    # the construction rule holds in the graph: no support document was exposed in its profile's history
    assert count(d, "MATCH (i:Item)-[:SUPPORTED_BY]->(doc:Document) "
                     "MATCH (i)-[:FOR_PROFILE]->(p:Profile)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(:Turn)"
                     "-[:EXPOSED]->(doc) RETURN count(*)") == 0


def test_locomo_counts_match_source(store: EventStore, shared_dir: Path) -> None:
    report = write_events(store, load_input(shared_dir / "data" / "locomo" / "locomo10.json"))
    d = store.driver
    assert report.appended > 0
    assert count(d, "MATCH (p:Profile {dataset:'locomo'}) RETURN count(p)") == 10
    assert count(d, "MATCH (s:Session) RETURN count(s)") == 272
    assert count(d, "MATCH (t:Turn) RETURN count(t)") == 5882
    assert count(d, "MATCH (i:Item {dataset:'locomo'}) RETURN count(i)") == 1986


def test_longmemeval_counts_match_source(store: EventStore, shared_dir: Path) -> None:
    write_events(store, load_input(shared_dir / "data" / "longmemeval_dev" / "longmemeval_s_dev.json.gz"))
    d = store.driver
    assert count(d, "MATCH (p:Profile {dataset:'longmemeval-s'}) RETURN count(p)") == 13
    assert count(d, "MATCH (t:Turn) RETURN count(t)") == 6428
    assert count(d, "MATCH (t:Turn) WHERE t.metadata CONTAINS '\"has_answer\":true' RETURN count(t)") == 24
    sessions = [r for r in store.driver.session().run(
        "MATCH (p:Profile)-[:HAS_SESSION]->(s) RETURN p.id AS p, count(s) AS n")]
    assert min(r["n"] for r in sessions) == 41 and max(r["n"] for r in sessions) == 57


def test_ikat_2023_test_counts_match_source(store: EventStore, shared_dir: Path) -> None:
    write_events(store, load_input(shared_dir / "data" / "trec_ikat" / "2023_test_topics.json"))
    d = store.driver
    assert count(d, "MATCH (p:Profile) RETURN count(p)") == 25
    assert count(d, "MATCH (f:Fact) RETURN count(f)") == 262
    assert count(d, "MATCH (d:Document) RETURN count(d)") == 700
    assert count(d, "MATCH (t:Turn) WHERE t.id ENDS WITH ':user' RETURN count(t)") == 332
    assert count(d, "MATCH (r:Requirement)-[u:USES_FACT]->() RETURN count(u)") == 182


def test_knowledge_base_file_validates_with_the_documentedcount(shared_dir: Path) -> None:
    result = load_input(shared_dir / "data" / "kb" / "documents.jsonl.gz")
    assert result.counts["documents"] == 6256
    assert result.counts["chunks"] > 25000
