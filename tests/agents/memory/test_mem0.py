"""Mem0 (mem0ai 2.0.20) as a memory system on the real Neo4j, driven through the real SDK code against the fake
OpenAI server scripting Mem0's extraction (one memory per user turn): memories of a sample profile resolve to
its turns, the project's memory_search and Mem0's own search (through the graph vector store) agree, a build
killed mid-way resumes without duplicates and equals an uninterrupted build, replay reproduces the
fingerprint, and a write naming an unknown turn is refused with nothing of its pair left."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.memory.errors import MemoryBackendError, MemoryWriteError
from agents.memory.prepare import open_memory_system, prepare_memory
from graph.events import MemoryWritten
from graph.fingerprint import compute_fingerprint
from graph.replay import drop_projection, replay
from graph.store import EventStore
from query.recipes import get_recipe
from query.retriever import Retriever
from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.mem0_script import Mem0Script

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

PROFILE = "p-owen"
QUERIES = ["knee pain after running", "vaccination before travelling", "medication side effects", "sleep"]


def memory_client(fake: FakeOpenAI, cache_path: Path) -> tuple[LLMRoles, Any]:
    settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
    roles = LLMRoles(overrides={"memory": dict(settings)}, cache_path=cache_path)
    return roles, roles.client("memory")


def build(store: EventStore, retriever: Any, script: Mem0Script, cache_path: Path, profile: str = PROFILE) -> Any:
    with FakeOpenAI(script) as fake:
        roles, client = memory_client(fake, cache_path)
        try:
            return prepare_memory("mem0", store, retriever, profile, llm=client, links=False)
        finally:
            roles.close()


def memories(store: EventStore, profile: str = PROFILE) -> list[tuple[str, str, tuple[str, ...]]]:
    """(id, text, sources) of the profile's live Mem0 memories, sorted."""
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (:Profile {id: $p})-[:HAS_MEMORY]->(m:Memory {system: 'mem0'}) WHERE NOT m.deleted "
            "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) "
            "WITH m, t ORDER BY t.id RETURN m.id AS id, m.text AS text, collect(t.id) AS sources",
            p=profile,
        )
        return sorted((r["id"], r["text"], tuple(r["sources"])) for r in rows)


def pair_events(store: EventStore, profile: str = PROFILE) -> list[str]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (:Profile {id: $p})-[:HAS_BUILD_STEP]->(s:MemoryBuildStep {system: 'mem0'}) RETURN s.pair_id AS id",
            p=profile,
        )
        return sorted(r["id"] for r in rows)


def user_turns(store: EventStore, profile: str = PROFILE) -> dict[str, str]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (t:Turn {profile_id: $p, role: 'user'}) WHERE trim(t.text) <> '' RETURN t.id AS id, t.text AS text",
            p=profile,
        )
        return {r["id"]: r["text"] for r in rows}


@pytest.fixture(scope="module")
def built(sample_store: EventStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The sample profile's Mem0 memories, built once for the module's read-only tests."""
    retriever = Retriever(sample_store.driver, sample_store.encoder)  # type: ignore[arg-type]
    script = Mem0Script()
    cache = tmp_path_factory.mktemp("mem0-cache") / "llm.sqlite"
    report = build(sample_store, retriever, script, cache)
    again = build(sample_store, retriever, Mem0Script(), cache)
    yield {"report": report, "again": again, "script": script, "retriever": retriever, "cache": cache}
    retriever.close()


def test_the_pinned_sdk_is_installed() -> None:
    assert importlib.metadata.version("mem0ai") == "2.0.20"  # the paper's version (App. B.1)


def test_one_memory_per_user_turn_each_derived_from_its_pair(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    report = built["report"]
    assert report.pairs_built == report.pairs_total > 0
    assert report.llm_calls == built["script"].extractions == report.pairs_total  # one extraction per pair
    assert report.tokens_in > 0
    turns = user_turns(sample_store)
    found = memories(sample_store)
    assert len(found) == report.memories_added == len(set(turns.values()))
    by_text = {text: sources for _, text, sources in found}
    for turn_id, text in turns.items():
        sources = by_text[text]
        assert turn_id in sources  # the memory derives from the pair of the user turn it was extracted from
    assert all(memory_id.startswith("mem0:") for memory_id, _, _ in found)


def test_every_memory_resolves_to_turns_of_its_profile(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    with sample_store.driver.session() as session:
        record = session.run(
            "MATCH (m:Memory {system: 'mem0'}) "
            "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) "
            "WITH m, collect(t) AS turns "
            "RETURN count(m) AS n, "
            "       sum(CASE WHEN size(turns) = 0 THEN 1 ELSE 0 END) AS orphans, "
            "       sum(size([t IN turns WHERE t.profile_id <> m.profile_id])) AS foreign"
        ).single()
    assert record["n"] > 0 and record["orphans"] == 0 and record["foreign"] == 0


def test_rebuilding_skips_every_pair_and_writes_nothing(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    again = built["again"]
    assert again.pairs_built == 0 and again.pairs_skipped == built["report"].pairs_total
    assert again.memories_added == 0 and again.llm_calls == 0
    assert len(pair_events(sample_store)) == built["report"].pairs_total


def test_mem0_sees_earlier_memories_and_messages_in_its_prompt(built) -> None:  # type: ignore[no-untyped-def]
    prompts = built["script"].prompts
    assert '## Existing Memories\n[]' in prompts[0]
    later = prompts[-1]
    assert '## Existing Memories\n[{"id": "0"' in later  # Mem0 searched the graph store before extracting
    assert "## Last k Messages\nuser: " in later


def test_memory_search_with_the_mem0_recipe_returns_memories_that_resolve(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    retriever = built["retriever"]
    ids = {memory_id for memory_id, _, _ in memories(sample_store)}
    recipe = get_recipe("MEM0")
    for query in QUERIES:
        result = retriever.search(recipe, query, profile_id=PROFILE, k=5)
        hits = result.memories
        assert hits, query
        for hit in hits:
            assert hit.memory_id in ids
            assert hit.source_turn_ids


def test_mem0_search_through_the_graph_store_matches_the_mem0_recipe(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    retriever = built["retriever"]
    system = open_memory_system("mem0", sample_store, retriever, llm=object())
    try:
        for query in QUERIES:
            sdk_hits = [h["id"] for h in system.search(PROFILE, query, top_k=5)]
            ours = [h.memory_id for h in retriever.search("MEM0", query, profile_id=PROFILE, k=5).memories]
            # Mem0 drops hits under its similarity threshold (0.1); the rest is the recipe's ranking, in order.
            assert sdk_hits and sdk_hits == ours[: len(sdk_hits)], query
    finally:
        system.close()


def test_mem0_on_the_graph_store_ranks_and_scores_as_mem0_on_its_local_qdrant(  # type: ignore[no-untyped-def]
    built, sample_store, tmp_path
) -> None:
    from agents.memory.mem0.qdrant_reference import open_qdrant_mem0
    from agents.memory.mem0.search_signals import ENTITY_BOOST_OFF

    system = open_memory_system("mem0", sample_store, built["retriever"], llm=object())
    qdrant = open_qdrant_mem0(tmp_path / "qdrant", sample_store.encoder)
    try:
        # the profile's Mem0 memories, as the build left them, into Mem0's own local Qdrant store
        for memory_id, text, _ in memories(sample_store):
            qdrant.add([{"role": "user", "content": text}], user_id=PROFILE, metadata={"graph_id": memory_id},
                       infer=False)
        assert qdrant.vector_store.keyword_search("knee pain", filters={"user_id": PROFILE}) is None
        assert system.sdk.store.keyword_search("knee pain") is None  # no BM25 on either store
        assert ENTITY_BOOST_OFF in system.deviations()
        for query in [*QUERIES, *user_turns(sample_store).values()]:
            theirs = qdrant.search(query, top_k=10, filters={"user_id": PROFILE}, explain=True)["results"]
            ours = system.sdk.memory.search(query, top_k=10, filters={"user_id": PROFILE}, explain=True)["results"]
            assert [h["metadata"]["graph_id"] for h in theirs] == [h["id"] for h in ours], query
            for q_hit, g_hit in zip(theirs, ours, strict=True):
                assert abs(q_hit["score"] - g_hit["score"]) <= 1e-6, query
                assert q_hit["score_details"]["max_possible_score"] == 1.0 == g_hit["score_details"][
                    "max_possible_score"]  # semantic only on both
    finally:
        qdrant.close()
        system.close()


def test_mem0_writes_outside_a_pair_are_refused(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    system = open_memory_system("mem0", sample_store, built["retriever"], llm=object())
    try:
        with pytest.raises(MemoryBackendError, match="outside a pair build"):
            system.sdk.store.insert(vectors=[[0.0] * sample_store.encoder.dim], payloads=[{"data": "x"}], ids=["u"])
    finally:
        system.close()


# --- interrupted builds, replay, refused writes (own databases) ------------------------------------


@pytest.fixture()
def fresh(driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


def test_a_build_killed_mid_way_resumes_without_duplicates_and_equals_an_uninterrupted_build(  # type: ignore[no-untyped-def]
    fresh, tmp_path
) -> None:
    retriever = Retriever(fresh.driver, fresh.encoder)  # type: ignore[arg-type]
    try:
        uninterrupted = build(fresh, retriever, Mem0Script(), tmp_path / "a.sqlite")
        expected_memories, expected_pairs = memories(fresh), pair_events(fresh)
        assert uninterrupted.pairs_built == len(expected_pairs)

        reloaded = _load_bundle(fresh.driver, fresh.encoder, SAMPLE_BUNDLE)
        with pytest.raises(MemoryBackendError, match="Mem0's add\\(\\) failed on pair"):
            build(reloaded, retriever, Mem0Script(fail_from=3), tmp_path / "b.sqlite")
        assert len(pair_events(reloaded)) == 2  # pairs 1 and 2 are in, pair 3 left nothing
        assert len(memories(reloaded)) == 2
        resumed = build(reloaded, retriever, Mem0Script(), tmp_path / "b.sqlite")
        assert resumed.pairs_skipped == 2 and resumed.pairs_built == len(expected_pairs) - 2
        assert pair_events(reloaded) == expected_pairs
        assert memories(reloaded) == expected_memories  # same ids, texts and sources: no duplicate
    finally:
        retriever.close()


def test_replay_reproduces_the_fingerprint_of_a_mem0_build(fresh, tmp_path) -> None:  # type: ignore[no-untyped-def]
    retriever = Retriever(fresh.driver, fresh.encoder)  # type: ignore[arg-type]
    try:
        build(fresh, retriever, Mem0Script(), tmp_path / "c.sqlite")
    finally:
        retriever.close()
    before = compute_fingerprint(fresh.driver)
    drop_projection(fresh)
    replay(fresh, page_size=50)
    after = compute_fingerprint(fresh.driver)
    assert after.digest == before.digest, before.differences(after)
    assert memories(fresh)


def test_a_write_naming_an_unknown_turn_is_refused_and_leaves_nothing_of_its_pair(  # type: ignore[no-untyped-def]
    fresh, tmp_path, monkeypatch
) -> None:
    from agents.memory.mem0.system import Mem0System

    real = Mem0System.build_pair

    def forged(self, profile_id, pair):  # type: ignore[no-untyped-def]
        writes: list[MemoryWritten] = real(self, profile_id, pair)
        if pair.pair_id == pair_ids[1]:
            writes[0] = writes[0].model_copy(update={"source_turn_ids": ["t-of-nobody"]})
        return writes

    from agents.history import load_public_history
    from agents.memory.pairs import history_pairs

    pair_ids = [p.pair_id for p in history_pairs(load_public_history(fresh.driver, fresh.database, PROFILE))]
    monkeypatch.setattr(Mem0System, "build_pair", forged)
    retriever = Retriever(fresh.driver, fresh.encoder)  # type: ignore[arg-type]
    try:
        with pytest.raises(MemoryWriteError) as refused:
            build(fresh, retriever, Mem0Script(), tmp_path / "d.sqlite")
    finally:
        retriever.close()
    message = str(refused.value)
    assert "'mem0'" in message and PROFILE in message and "t-of-nobody" in message
    assert pair_events(fresh) == sorted(pair_ids[:1])
    assert len(memories(fresh)) == 1


def test_mem0_grounds_relative_dates_on_the_build_day_not_the_conversation_date(built, sample_store) -> None:  # type: ignore[no-untyped-def]
    """An SDK limit, pinned: Mem0 2.0.20's OSS `Memory._add_to_vector_store` builds its extraction prompt with
    `generate_additive_extraction_prompt(...)` passing no date, so `_resolve_dates` makes the prompt's Observation
    Date the Current Date (the build day), and `Memory.add(timestamp=...)` is refused as platform-only. The
    request the endpoint gets carries none of the conversation's dates (docs/memory.md). A Mem0 that lets a caller
    pass the observation time fails this test: then the pair's time (agents.memory.pair_time) should be passed."""
    import re

    from agents.history import load_public_history
    from agents.memory import history_pairs
    from agents.memory.pair_time import pair_time

    pairs = history_pairs(load_public_history(sample_store.driver, sample_store.database, PROFILE))
    conversation_days = {at.date().isoformat() for at in (pair_time("mem0", p) for p in pairs) if at is not None}
    assert conversation_days and len(built["script"].prompts) == built["report"].pairs_total
    for prompt in built["script"].prompts:
        observed = re.search(r"^## Observation Date\n(\S+)$", prompt, re.MULTILINE)
        current = re.search(r"^## Current Date\n(\S+)$", prompt, re.MULTILINE)
        assert observed is not None and current is not None
        assert observed.group(1) == current.group(1) and observed.group(1) not in conversation_days
