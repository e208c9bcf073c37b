"""The `graphiti` memory system: the real graphiti-core SDK on the suite's Neo4j, its prompts answered by the
scripted fake OpenAI server (tests/fake_openai/graphiti_script.py: one fact edge per pair whose fact is the
user turn's text).

The module builds one profile of the bundled sample once; the tests after it read that build, the rebuild
test replays the projection (same content), and the resume test builds a second profile through failures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from agents.history import load_public_history
from agents.llm.roles import LLMRoles
from agents.memory.graphiti.ids import episode_uuid, group_id
from agents.memory.pairs import HistoryPair, history_pairs
from agents.memory.prepare import open_memory_system, prepare_memory
from agents.memory.rankers import sdk_rankers
from agents.memory.registry import BuildReport, get_memory_system
from graph.fingerprint import compute_fingerprint
from graph.replay import drop_projection, replay
from graph.store import EventStore
from query.memory_rankers import RankerUnavailableError
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.graphiti_script import GraphitiScript

pytestmark = pytest.mark.neo4j

PROFILE = "p-owen"
RESUMED = "p-lena"


@pytest.fixture(scope="module")
def script() -> GraphitiScript:
    return GraphitiScript()


@pytest.fixture(scope="module")
def llm(graphiti_env: None, script: GraphitiScript, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with FakeOpenAI(script) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 10.0,
                "max_retries": 0}
        roles = LLMRoles(overrides={"memory": base}, cache_path=tmp_path_factory.mktemp("llm") / "cache.sqlite")
        yield roles.client("memory")
        roles.close()


@pytest.fixture(scope="module")
def built(sample_store: EventStore, llm: Any, script: GraphitiScript) -> BuildReport:
    report = prepare_memory("graphiti", sample_store, None, PROFILE, llm=llm)
    assert not script.unknown, [b.get("response_format") for b in script.unknown]
    return report


@pytest.fixture(scope="module")
def retriever(sample_store: EventStore) -> Iterator[Any]:
    from query.retriever import Retriever

    r = Retriever(sample_store.driver, sample_store.encoder)  # type: ignore[arg-type]
    yield r
    r.close()


def pairs_of(store: EventStore, profile_id: str) -> list[HistoryPair]:
    return history_pairs(load_public_history(store.driver, store.database, profile_id))


def rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [r.data() for r in session.run(query, **params)]


MEMORIES = """
MATCH (:Profile {id: $pid})-[:HAS_MEMORY]->(m:Memory {system: 'graphiti'})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
RETURN m.id AS id, m.text AS text, m.metadata AS metadata, collect(t.id) AS turns
"""
GRAPHITI_COUNTS = """
MATCH (n) WHERE n.group_id = $group AND (n:Episodic OR n:Entity)
WITH count(CASE WHEN n:Episodic THEN 1 END) AS episodes, count(CASE WHEN n:Entity THEN 1 END) AS entities
OPTIONAL MATCH ()-[r:RELATES_TO {group_id: $group}]->()
RETURN episodes, entities, count(r) AS facts
"""


def graphiti_counts(store: EventStore, profile_id: str) -> dict[str, int]:
    return rows(store, GRAPHITI_COUNTS, group=group_id(profile_id))[0]


def test_registered_as_an_llm_built_system_searched_by_the_graphiti_recipe() -> None:
    cls = get_memory_system("graphiti")
    assert (cls.name, cls.needs_llm, cls.search_recipe, cls.memkb_cards) == ("graphiti", True, "GRAPHITI", False)
    assert cls.builder


def test_group_ids_are_graphiti_safe_deterministic_and_distinct() -> None:
    import re

    ids = ["p-owen", "p owen", "p/owen", "p.owen", "ünï", "x" * 300]
    groups = [group_id(i) for i in ids]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", g) for g in groups)
    assert len(set(groups)) == len(groups)
    assert groups == [group_id(i) for i in ids]
    assert episode_uuid("p", "t1") == episode_uuid("p", "t1") != episode_uuid("p", "t2")


def test_build_adds_one_episode_per_pair_and_every_fact_is_a_memory_of_its_pair_turns(
    built: BuildReport, sample_store: EventStore
) -> None:
    import json

    pairs = pairs_of(sample_store, PROFILE)
    assert built.pairs_total == built.pairs_built == len(pairs)
    assert built.llm_calls > 0 and built.memories_added == len(pairs)
    counts = graphiti_counts(sample_store, PROFILE)
    assert counts["episodes"] == len(pairs)
    assert counts["facts"] == built.memories_added
    by_episode = {episode_uuid(PROFILE, p.pair_id): p for p in pairs}
    memories = rows(sample_store, MEMORIES, pid=PROFILE)
    assert len(memories) == len(pairs)
    for memory in memories:
        assert memory["id"].startswith("graphiti:")
        metadata = json.loads(memory["metadata"])
        pair = by_episode[metadata["episode_uuid"]]
        assert sorted(memory["turns"]) == sorted(pair.turn_ids)
        assert memory["text"] == pair.user_text()
        assert metadata["source_entity"] == "user" and metadata["edge_name"]
    facts = rows(
        sample_store,
        "MATCH ()-[r:RELATES_TO {group_id: $g}]->() RETURN 'graphiti:' + r.uuid AS id, r.fact AS fact",
        g=group_id(PROFILE),
    )
    assert {(f["id"], f["fact"]) for f in facts} == {(m["id"], m["text"]) for m in memories}


def test_a_second_build_of_a_built_profile_skips_every_pair(
    built: BuildReport, sample_store: EventStore, llm: Any
) -> None:
    again = prepare_memory("graphiti", sample_store, None, PROFILE, llm=llm)
    assert again.pairs_built == 0 and again.pairs_skipped == built.pairs_total and again.llm_calls == 0


def test_memory_search_with_the_graphiti_recipe_returns_the_facts_with_their_turns(
    built: BuildReport, sample_store: EventStore, retriever: Any
) -> None:
    memories = {m["id"]: m for m in rows(sample_store, MEMORIES, pid=PROFILE)}
    target = next(iter(sorted(memories.values(), key=lambda m: m["id"])))
    # Without Graphiti's search open, the recipe that ranks with it refuses instead of ranking another way.
    with pytest.raises(RankerUnavailableError, match="GRAPHITI"):
        retriever.search("GRAPHITI", target["text"], profile_id=PROFILE, k=5)
    with sdk_rankers(sample_store, ["graphiti"]) as opened:
        assert opened == ["graphiti"]
        result = retriever.search("GRAPHITI", target["text"], profile_id=PROFILE, k=5)
        # The memory_search order is Graphiti's own search order, over the profile's visible cards.
        system = open_memory_system("graphiti", sample_store, llm=object())
        try:
            queries = [m["text"] for m in memories.values()] + ["family health", "a question about exercise"]
            for q in queries:
                ours = [h.memory_id for h in retriever.search_memories("GRAPHITI", q, profile_id=PROFILE, k=5).memories]
                assert ours == system.sdk_search(PROFILE, q, 5), q
        finally:
            system.close()
    assert result.memories and result.memories[0].memory_id == target["id"]
    for hit in result.memories:
        assert hit.system == "graphiti" and hit.memory_id in memories
        assert sorted(hit.source_turn_ids) == sorted(memories[hit.memory_id]["turns"])
    assert not result.documents
    rrf = retriever.search("GRAPHITI_RRF", target["text"], profile_id=PROFILE, k=5)  # the approximation needs no SDK
    assert rrf.memories and all(h.memory_id in memories for h in rrf.memories)


def test_graphiti_own_search_stays_in_the_profile_group_and_names_our_memory_ids(
    built: BuildReport, sample_store: EventStore, llm: Any
) -> None:
    ours = {m["id"]: m["text"] for m in rows(sample_store, MEMORIES, pid=PROFILE)}
    text = sorted(ours.values())[0]
    system = open_memory_system("graphiti", sample_store, llm=llm)
    try:
        facts = system.search_facts(PROFILE, text, limit=5)
        other = system.search_facts("p-daniel", text, limit=5)  # a profile without a Graphiti build
    finally:
        system.close()
    assert facts and facts[0].fact == text
    assert all(f.memory_id in ours and ours[f.memory_id] == f.fact for f in facts)
    assert other == []


def test_rebuild_keeps_graphiti_store_out_of_the_fingerprint_and_its_search_working(
    built: BuildReport, sample_store: EventStore, llm: Any
) -> None:
    before = compute_fingerprint(sample_store.driver)
    counts = graphiti_counts(sample_store, PROFILE)
    assert not any(label in before.labels for label in ("Entity", "Episodic", "Community", "Saga"))
    assert "RELATES_TO" not in before.relationship_types and "MENTIONS" not in before.relationship_types
    drop_projection(sample_store)
    assert graphiti_counts(sample_store, PROFILE) == counts  # Graphiti's nodes are not part of the projection
    replay(sample_store)
    after = compute_fingerprint(sample_store.driver)
    assert after.digest == before.digest, before.differences(after)
    ours = {m["id"] for m in rows(sample_store, MEMORIES, pid=PROFILE)}
    text = rows(sample_store, MEMORIES, pid=PROFILE)[0]["text"]
    system = open_memory_system("graphiti", sample_store, llm=llm)
    try:
        facts = system.search_facts(PROFILE, text, limit=5)
    finally:
        system.close()
    assert facts and {f.memory_id for f in facts} <= ours


class FailingAppend:
    """Stands in for EventStore.append: fails the `fail_at`-th call (Graphiti has written that pair's episode,
    our events are not written), as a process killed between the two writes would."""

    def __init__(self, store: EventStore, fail_at: int) -> None:
        self.store, self.fail_at, self.calls = store, fail_at, 0
        self.original = store.append

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyboardInterrupt("killed between Graphiti's write and the events")
        return self.original(*args, **kwargs)


def test_builds_interrupted_inside_and_after_an_episode_resume_without_duplicates(
    built: BuildReport, sample_store: EventStore, llm: Any, script: GraphitiScript, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = pairs_of(sample_store, RESUMED)
    # 1. the LLM fails inside the second pair's episode (its entities are extracted, its edges are not)
    script.fail_once("ExtractedEdges", skip=1)
    with pytest.raises(Exception, match=r"scripted outage|500|failed"):
        prepare_memory("graphiti", sample_store, None, RESUMED, llm=llm)
    assert len(rows(sample_store, MEMORIES, pid=RESUMED)) == 1
    # 2. the process dies after Graphiti wrote the third pair (second call to append in this run)
    failing = FailingAppend(sample_store, fail_at=2)
    monkeypatch.setattr(sample_store, "append", failing)
    with pytest.raises(KeyboardInterrupt):
        prepare_memory("graphiti", sample_store, None, RESUMED, llm=llm)
    monkeypatch.setattr(sample_store, "append", failing.original)
    assert len(rows(sample_store, MEMORIES, pid=RESUMED)) == 2
    assert graphiti_counts(sample_store, RESUMED)["episodes"] == 3  # one episode more than recorded pairs
    # 3. the rerun redoes the unrecorded pairs: every pair once, every fact once
    report = prepare_memory("graphiti", sample_store, None, RESUMED, llm=llm)
    assert report.pairs_skipped == 2 and report.pairs_built == len(pairs) - 2
    memories = rows(sample_store, MEMORIES, pid=RESUMED)
    counts = graphiti_counts(sample_store, RESUMED)
    assert counts["episodes"] == len(pairs)
    assert counts["facts"] == len(memories) == len(pairs)
    assert len({m["text"] for m in memories}) == len(memories)
    processed = rows(
        sample_store,
        "MATCH (s:MemoryBuildStep {system: 'graphiti', profile_id: $pid}) RETURN count(s) AS n",
        pid=RESUMED,
    )
    assert processed[0]["n"] == len(pairs)
    assert os.environ.get("GRAPHITI_TELEMETRY_ENABLED") == "false"


def test_without_an_llm_endpoint_the_system_says_it_needs_one(sample_store: EventStore) -> None:
    from agents.memory.errors import MemorySystemError

    with pytest.raises(MemorySystemError, match=r"no endpoint is configured"):
        prepare_memory("graphiti", sample_store, None, PROFILE, llm=None)

