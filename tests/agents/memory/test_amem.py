"""A-MEM through its SDK (agentic_memory 0.2.6) against the fake OpenAI server: notes built pair by pair,
evolutions recorded as updates, every note tied to its turns, searched through the graph with link
expansion and the 5,120-token cap, resumed without duplicates, and stopped loudly by a server that rejects
or ignores `json_schema`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from agents.history import load_public_history
from agents.llm.roles import LLMRoles
from agents.memory import history_pairs, prepare_memory
from agents.memory.errors import MemoryBackendError
from graph.store import EventStore
from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai import FakeOpenAI, Fault, Reply
from tests.fake_openai.amem_script import AmemScript, is_amem_request, prose_responder

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

PROFILE = "p-daniel"


@pytest.fixture(scope="module")
def sample(driver: Driver, encoder: Any) -> EventStore:
    """The bundled sample, freshly ingested for this module (each test builds a different profile)."""
    store: EventStore = _load_bundle(driver, encoder, SAMPLE_BUNDLE)
    return store


def memory_client(fake: FakeOpenAI, cache: Path, **settings: Any) -> tuple[LLMRoles, Any]:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0, **settings}
    roles = LLMRoles(overrides={"memory": base}, cache_path=cache)
    return roles, roles.client("memory")


def build(store: EventStore, responder: Any, cache: Path, profile: str = PROFILE, **settings: Any) -> Any:
    with FakeOpenAI(responder) as fake:
        roles, llm = memory_client(fake, cache, **settings)
        try:
            return prepare_memory("amem", store, None, profile, llm=llm)
        finally:
            roles.close()


def rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


def amem_events(store: EventStore, profile: str) -> list[dict[str, Any]]:
    out = []
    for r in rows(store, "MATCH (e:Event {type: 'MemoryWritten'}) RETURN e.payload AS p ORDER BY e.seq"):
        payload = json.loads(r["p"])
        if payload["system"] == "amem" and payload["profile_id"] == profile:
            out.append(payload)
    return out


def snapshot(store: EventStore, profile: str) -> list[tuple[str, str, list[str]]]:
    return [
        (r["id"], r["text"], sorted(r["turns"]))
        for r in rows(
            store,
            "MATCH (:Profile {id: $p})-[:HAS_MEMORY]->(m:Memory {system: 'amem'}) "
            "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) RETURN m.id AS id, m.text AS text, collect(t.id) AS turns "
            "ORDER BY id",
            p=profile,
        )
    ]


@pytest.fixture(scope="module")
def built(sample: EventStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EventStore, Any, AmemScript]]:
    script = AmemScript()
    tmp = tmp_path_factory.mktemp("amem")
    with pytest.MonkeyPatch.context() as mp:
        (tmp / "empty.toml").write_text("")
        mp.setenv("COLABENCH_CONFIG", str(tmp / "empty.toml"))
        mp.setenv("COLABENCH_DATA_DIR", str(tmp / "data"))
        report = build(sample, script, tmp / "cache.sqlite")
    yield sample, report, script


def test_each_pair_becomes_one_note_tied_to_its_turns(built: tuple[EventStore, Any, AmemScript]) -> None:
    store, report, script = built
    pairs = history_pairs(load_public_history(store.driver, store.database, PROFILE))
    assert report.pairs_built == len(pairs) == report.memories_added
    # one analysis per note, one evolution request per note after the first (A-MEM's own flow), all counted
    assert script.seen["analysis"] == len(pairs) and script.seen["evolution"] == len(pairs) - 1
    assert report.llm_calls == 2 * len(pairs) - 1
    adds = [e for e in amem_events(store, PROFILE) if e["op"] == "ADD"]
    assert [e["source_turn_ids"] for e in adds] == [p.turn_ids for p in pairs]
    assert [e["memory_id"] for e in adds] == [f"amem:{p.pair_id}" for p in pairs]
    first = adds[0]
    assert first["metadata"]["keywords"] and first["metadata"]["tags"] and first["metadata"]["context"]
    assert " keywords: " in first["text"] and " tags: " in first["text"]
    # every Memory {system: 'amem'} derives from turns of its own profile, and only from those
    orphans = rows(
        store,
        "MATCH (m:Memory {system: 'amem'}) "
        "WHERE NOT EXISTS { MATCH (m)-[:DERIVED_FROM]->(:Turn {profile_id: m.profile_id}) } "
        "OR EXISTS { MATCH (m)-[:DERIVED_FROM]->(t:Turn) WHERE t.profile_id <> m.profile_id } RETURN count(m) AS n",
    )
    assert orphans[0]["n"] == 0


def test_an_evolution_is_an_update_of_the_earlier_note_keeping_its_own_turns(
    built: tuple[EventStore, Any, AmemScript],
) -> None:
    store, report, script = built
    pairs = history_pairs(load_public_history(store.driver, store.database, PROFILE))
    assert script.seen["evolved"] == 1 and report.memories_updated == 2
    events = amem_events(store, PROFILE)
    updates = [e for e in events if e["op"] == "UPDATE"]
    evolving = pairs[2]  # the third note sees two neighbours: the script evolves it
    assert {u["memory_id"] for u in updates} == {f"amem:{pairs[0].pair_id}", f"amem:{pairs[1].pair_id}"}
    by_pair = {p.pair_id: p for p in pairs}
    for u in updates:
        assert u["metadata"]["evolved_by_pair"] == evolving.pair_id
        assert u["metadata"]["evolved_by_memory"] == f"amem:{evolving.pair_id}"
        assert u["source_turn_ids"] == by_pair[u["metadata"]["note_id"]].turn_ids
        assert "(evolved)" in u["metadata"]["context"] and "evolved" in u["metadata"]["tags"]
        assert "(evolved)" in u["text"]
    added = next(e for e in events if e["memory_id"] == f"amem:{evolving.pair_id}")
    assert added["metadata"]["links"] and added["metadata"]["tags"] == ["personal", "linked"]
    # the graph's node carries the evolved text, and still only its own turns
    snap = dict((mid, (text, turns)) for mid, text, turns in snapshot(store, PROFILE))
    text, turns = snap[f"amem:{pairs[0].pair_id}"]
    assert "(evolved)" in text and turns == sorted(pairs[0].turn_ids)


def test_memory_search_returns_notes_expanded_through_links_within_the_token_cap(
    built: tuple[EventStore, Any, AmemScript], monkeypatch: pytest.MonkeyPatch
) -> None:
    from query import linked_memory_response
    from query.retriever import Retriever

    store, _, _ = built
    assert store.encoder is not None
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    pairs = history_pairs(load_public_history(store.driver, store.database, PROFILE))
    evolving = f"amem:{pairs[2].pair_id}"
    query = pairs[2].user_text()
    result = retriever.search("AMEM", query, profile_id=PROFILE, k=1)
    ids = [m.memory_id for m in result.memories]
    # the best note, then the note it links to (outside the top 1), each with its turns of the profile
    linked = next(e for e in amem_events(store, PROFILE) if e["memory_id"] == evolving)["metadata"]["links"]
    assert ids == [evolving, linked[0]] and linked[0] != evolving
    known = {mid for mid, _, _ in snapshot(store, PROFILE)}
    turns = {t.turn_id for t in load_public_history(store.driver, store.database, PROFILE)}
    for hit in result.memories:
        assert hit.memory_id in known and hit.system == "amem"
        assert hit.source_turn_ids and set(hit.source_turn_ids) <= turns
    # the whole response stays under the cap; a tight cap keeps the first note whole and says so
    big = retriever.search("AMEM", query, profile_id=PROFILE, k=20)
    body = json.dumps({"memories": [
        {"memory_id": m.memory_id, "text": m.text, "source_turn_ids": m.source_turn_ids} for m in big.memories
    ]})
    from query.tokens import count_tokens

    assert count_tokens([body])[0] <= 5120
    assert len({m.memory_id for m in big.memories}) == len(big.memories)
    first = linked_memory_response.LinkExpandedResponse().cap(result.memories[:1])
    one = count_tokens([json.dumps({"memories": [
        {"memory_id": m.memory_id, "text": m.text, "source_turn_ids": m.source_turn_ids} for m in first
    ]})])[0]
    shaper = linked_memory_response.LinkExpandedResponse(one)
    monkeypatch.setitem(linked_memory_response.RESPONSES, "link_expanded", shaper)
    tight = retriever.search("AMEM", query, profile_id=PROFILE, k=1)
    assert [m.memory_id for m in tight.memories] == [evolving] and tight.memories[0].text == result.memories[0].text
    assert any("capped at" in n for n in tight.notes)
    # evaluation rankings (search_memories) stay plain rankings of every note
    assert len(retriever.search_memories("AMEM", query, profile_id=PROFILE, k=100).memories) == len(known)


def test_an_interrupted_build_resumes_from_the_graph_without_duplicates(sample: EventStore, tmp_path: Path) -> None:
    profile = "p-lena"
    pairs = history_pairs(load_public_history(sample.driver, sample.database, profile))
    cut = pairs[3].user_text()[:60]
    script = AmemScript()

    def dies_at_fourth_pair(body: dict[str, Any]) -> Reply:
        if cut in json.dumps(body["messages"]):
            raise RuntimeError("killed")
        return script(body)

    with pytest.raises(MemoryBackendError, match="A-MEM"):
        build(sample, dies_at_fourth_pair, tmp_path / "cache.sqlite", profile, max_retries=0)
    assert len(snapshot(sample, profile)) == 3
    with FakeOpenAI(script) as fake:
        roles, llm = memory_client(fake, tmp_path / "cache.sqlite")
        try:
            report = prepare_memory("amem", sample, None, profile, llm=llm)
        finally:
            roles.close()
        first = [b for b in fake.requests if is_amem_request(b)]
    assert (report.pairs_skipped, report.pairs_built) == (3, len(pairs) - 3)
    # the resumed A-MEM saw the earlier notes (rebuilt from the graph) as neighbours of the fourth
    evolution = next(b for b in first if "should_evolve" in json.dumps(b["response_format"]))
    assert f"memory_id:{pairs[0].pair_id}" in evolution["messages"][-1]["content"]
    adds = [e["memory_id"] for e in amem_events(sample, profile) if e["op"] == "ADD"]
    assert adds == [f"amem:{p.pair_id}" for p in pairs]
    assert len(snapshot(sample, profile)) == len(pairs)
    again = prepare_memory("amem", sample, None, profile, llm=object())
    assert again.pairs_built == 0 and len(snapshot(sample, profile)) == len(pairs)


def test_a_server_that_rejects_or_ignores_json_schema_stops_the_build_loudly(
    sample: EventStore, tmp_path: Path
) -> None:
    profile = "p-owen"
    with FakeOpenAI(AmemScript()) as fake:
        fake.inject(Fault.http(400))
        roles, llm = memory_client(fake, tmp_path / "c1.sqlite")
        try:
            with pytest.raises(MemoryBackendError, match="json_schema") as refused:
                prepare_memory("amem", sample, None, profile, llm=llm)
        finally:
            roles.close()
    assert "HTTP 400" in str(refused.value) and "nothing of this pair is written" in str(refused.value)
    assert snapshot(sample, profile) == []
    with pytest.raises(MemoryBackendError, match="does not match the `json_schema`"):
        build(sample, prose_responder, tmp_path / "c2.sqlite", profile)
    assert snapshot(sample, profile) == []
    steps = rows(
        sample, "MATCH (:Profile {id: $p})-[:HAS_BUILD_STEP]->(s {system: 'amem'}) RETURN count(s) AS n", p=profile
    )
    assert steps[0]["n"] == 0


def test_amem_own_search_and_the_graph_rank_the_same_notes(built: tuple[EventStore, Any, AmemScript]) -> None:
    """A-MEM's Chroma, rebuilt from the graph, and the AMEM recipe over the graph's Memory nodes give the same top 5
    (same encoder, same text: A-MEM's retrieval serialisation is the Memory text)."""
    from agents.memory.amem.system import AmemSystem, memory_id_of
    from agents.memory.registry import BuildContext
    from query.retriever import Retriever

    store, _, _ = built
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    system = AmemSystem(BuildContext(store=store, llm=object()))
    try:
        system._load(PROFILE)
        pairs = history_pairs(load_public_history(store.driver, store.database, PROFILE))
        queries = [p.user_text()[:200] for p in pairs] + ["family health worries", "travel plans"]
        for q in queries:
            sdk = [memory_id_of(m["id"]) for m in system._sdk.search(q, 5)]
            ours = [m.memory_id for m in retriever.search_memories("AMEM", q, profile_id=PROFILE, k=5).memories]
            assert sdk == ours, q
    finally:
        system.close()
