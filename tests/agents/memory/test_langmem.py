"""LangMem through its SDK (langmem 0.0.30, its memory store manager) against the fake OpenAI server, on the LoCoMo
fixture: every memory LangMem extracts is a MemoryWritten traced to its pair's turns, a rewrite is an UPDATE that
keeps its turns and adds the rewriting pair's, LangMem's own store search and the LANGMEM recipe rank the same memories,
a rebuild sends the same prompts, and a failed extraction (endpoint error, or a tool call trustcall drops)
fails the pair instead of succeeding with fewer memories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from agents.history import load_public_history
from agents.llm.errors import LLMError
from agents.llm.roles import LLMRoles
from agents.memory import history_pairs, open_memory_system, prepare_memory
from agents.memory.errors import SdkSwallowedFailureError
from graph.store import EventStore
from query.retriever import Retriever
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.langmem_script import LangmemScript
from tests.paths import FIXTURES

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"
PROFILE = "locomo:conv-1"
OTHER = "locomo:conv-2"


@pytest.fixture(scope="module")
def store(driver: Driver, encoder: Any) -> EventStore:
    from ingest.pipeline import load_input, write_events

    store: EventStore = emptied_store(driver, encoder)
    write_events(store, load_input(LOCOMO, "locomo"))
    return store


def _build(store: EventStore, script: LangmemScript, cache: Path, profile: str = PROFILE, system: str = "langmem",
           **settings: Any) -> tuple[Any, Any]:
    """Build `system`'s memory of `profile`; (report or the error raised, the memory role's usage)."""
    with FakeOpenAI(script) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 10.0,
                "max_retries": 0, **settings}
        roles = LLMRoles(overrides={"memory": base}, cache_path=cache)
        client = roles.client("memory")
        try:
            try:
                outcome: Any = prepare_memory(system, store, None, profile, llm=client, links=False)
            except Exception as exc:  # the test asserts on it
                outcome = exc
            return outcome, client.ledger.snapshot().get("memory")
        finally:
            roles.close()


def _events(store: EventStore, profile: str, kind: str = "MemoryWritten", system: str = "langmem"
            ) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        rows = [json.loads(r["p"]) for r in session.run(
            "MATCH (e:Event {type: $t}) RETURN e.payload AS p ORDER BY e.seq", t=kind)]
    return [p for p in rows if p["system"] == system and p["profile_id"] == profile]


def _pairs(store: EventStore, profile: str) -> list[Any]:
    return history_pairs(load_public_history(store.driver, store.database, profile))


@pytest.fixture(scope="module")
def built(store: EventStore, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("langmem")
    with pytest.MonkeyPatch.context() as mp:
        (tmp / "empty.toml").write_text("")
        mp.setenv("COLABENCH_CONFIG", str(tmp / "empty.toml"))
        mp.setenv("COLABENCH_DATA_DIR", str(tmp / "data"))
        script = LangmemScript()
        report, usage = _build(store, script, tmp / "cache.sqlite")
        again, _ = _build(store, LangmemScript(), tmp / "cache.sqlite")
    assert not isinstance(report, Exception), report
    return {"report": report, "again": again, "script": script, "usage": usage}


def test_each_user_message_becomes_a_memory_traced_to_its_pair(store: EventStore, built: dict[str, Any]) -> None:
    report, script = built["report"], built["script"]
    pairs = _pairs(store, PROFILE)
    assert report.pairs_built == len(pairs) and script.extractions == len(pairs)  # one request per pair
    adds = [e for e in _events(store, PROFILE) if e["op"] == "ADD"]
    expected = [(p.user_text(), p.turn_ids) for p in pairs if p.user_text()]
    assert [(e["text"], e["source_turn_ids"]) for e in adds] == expected
    assert report.memories_added == len(expected) > 0
    assert all(e["memory_id"] == f"langmem:{e['metadata']['key']}" for e in adds)
    # LoCoMo's session date, as ISO 8601
    assert adds[0]["metadata"]["created_at"] == "2023-05-08T13:56:00+00:00"
    # later pairs were shown the memories LangMem's store found near them (trustcall's <existing> block)
    assert any("<existing>" in r["messages"][0]["content"] for r in script.requests[1:])
    with store.driver.session() as session:
        orphans = session.run(
            "MATCH (m:Memory {system: 'langmem'}) WHERE NOT EXISTS { MATCH (m)-[:DERIVED_FROM]->(:Turn) } "
            "OR EXISTS { MATCH (m)-[:DERIVED_FROM]->(t:Turn) WHERE t.profile_id <> m.profile_id } "
            "RETURN count(m) AS n").single()
    assert orphans is not None and orphans["n"] == 0


def test_a_rebuild_skips_every_pair(built: dict[str, Any]) -> None:
    again = built["again"]
    assert again.pairs_built == 0 and again.pairs_skipped == built["report"].pairs_total


def test_the_same_pair_sends_the_same_prompt(store: EventStore, built: dict[str, Any], tmp_path: Path) -> None:
    from agents.memory.langmem.pair_ids import install, pair_seed

    install()
    import langmem.knowledge.extraction as extraction

    with pair_seed("langmem", PROFILE, "p"):
        first = [extraction.uuid.uuid4() for _ in range(3)]
    with pair_seed("langmem", PROFILE, "p"):
        again = [extraction.uuid.uuid4() for _ in range(3)]
    assert first == again and len(set(first)) == 3
    assert extraction.uuid.uuid4() != extraction.uuid.uuid4()  # outside a pair: random, as LangMem has it
    # the session tag of the build's first prompt is the one derived for its pair
    pair = _pairs(store, PROFILE)[0]
    with pair_seed("langmem", PROFILE, pair.pair_id):
        tag = str(extraction.uuid.uuid4())
    assert f"<session_{tag}>" in built["script"].requests[0]["messages"][-1]["content"]


def test_langmem_store_search_and_the_langmem_recipe_rank_the_same_memories(
    store: EventStore, built: dict[str, Any]
) -> None:
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    system = open_memory_system("langmem", store, retriever, llm=object())
    try:
        queries = ["painting a sunrise", "support group", "what happened at the charity race", "adoption"]
        for query in queries:
            theirs = system.sdk_search(PROFILE, query, k=3)
            ours = [h.memory_id for h in retriever.search("LANGMEM", query, profile_id=PROFILE, k=3).memories]
            assert theirs and theirs == ours, query
    finally:
        system.close()
        retriever.close()


def _conversation(store: EventStore, folder: Path, sample_id: str, texts: list[str]) -> str:
    """Ingest a LoCoMo conversation of one session whose speaker A says `texts` (B answers "ok" to each)."""
    from ingest.pipeline import load_input, write_events

    turns = []
    for i, text in enumerate(texts):
        turns.append({"speaker": "Ann", "dia_id": f"D1:{2 * i + 1}", "text": text})
        turns.append({"speaker": "Bo", "dia_id": f"D1:{2 * i + 2}", "text": "ok"})
    sample = {"sample_id": sample_id, "qa": [], "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo", "session_1_date_time": "9:00 am on 1 March, 2024", "session_1": turns}}
    path = folder / f"{sample_id}.json"
    path.write_text(json.dumps([sample]))
    write_events(store, load_input(path, "locomo"))
    return f"locomo:{sample_id}"


def test_a_rewrite_is_an_update_keeping_its_turns(store: EventStore, tmp_path: Path) -> None:
    texts = ["I keep a cat named Tom.", "Correction: my cat is called Tim.", "I also keep two goldfish."]
    profile = _conversation(store, tmp_path, "lm-rewrite", texts)
    pairs = _pairs(store, profile)
    script = LangmemScript(patch_when="Correction")
    report, _ = _build(store, script, tmp_path / "c.sqlite", profile=profile)
    assert not isinstance(report, Exception), report
    events = _events(store, profile)
    # with LangMem's defaults its store manager offers `Memory` and `PatchDoc` only (no `RemoveDoc`)
    assert "RemoveDoc" not in {t["function"]["name"] for r in script.requests for t in r["tools"]}
    assert [e["op"] for e in events] == ["ADD", "UPDATE", "ADD"]
    add, update, later = events
    assert add["text"] == texts[0] and add["source_turn_ids"] == pairs[0].turn_ids
    assert update["memory_id"] == add["memory_id"] and update["text"] == texts[1]
    assert update["source_turn_ids"] == pairs[0].turn_ids + pairs[1].turn_ids  # its own turns, and the rewrite's
    assert later["text"] == texts[2] and later["source_turn_ids"] == pairs[2].turn_ids
    assert (report.memories_added, report.memories_updated, report.memories_deleted) == (2, 1, 0)


def test_an_endpoint_failure_fails_the_pair_and_writes_nothing_of_it(store: EventStore, tmp_path: Path) -> None:
    profile = _conversation(store, tmp_path, "lm-fail", ["I run on Sundays.", "I started learning Welsh."])
    script = LangmemScript(fail_from=2)
    error, _usage = _build(store, script, tmp_path / "c.sqlite", profile=profile)
    assert isinstance(error, LLMError) and error.role == "memory", error
    # trustcall would have retried the failed request as a "validation error" and ended with no memory
    assert script.extractions == 2
    processed = _events(store, profile, "MemoryPairProcessed")
    assert [p["pair_id"] for p in processed] == [_pairs(store, profile)[0].pair_id]
    assert [e["text"] for e in _events(store, profile)] == ["I run on Sundays."]
    # the rerun asks again from the failed pair on, with the same prompt, and finishes
    again = LangmemScript()
    report, _ = _build(store, again, tmp_path / "c.sqlite", profile=profile)
    assert not isinstance(report, Exception), report
    assert report.pairs_built == 1 and again.requests[0]["messages"] == script.requests[1]["messages"]
    assert [e["text"] for e in _events(store, profile)] == ["I run on Sundays.", "I started learning Welsh."]


def test_a_tool_call_trustcall_drops_fails_the_pair_for_the_memory_role(store: EventStore, tmp_path: Path) -> None:
    profile = _conversation(store, tmp_path, "lm-invalid", ["I grow tomatoes.", "I bake bread on Fridays."])
    script = LangmemScript(invalid_from=2)
    error, usage = _build(store, script, tmp_path / "c.sqlite", profile=profile)
    assert isinstance(error, SdkSwallowedFailureError), error
    assert script.repairs > 0  # trustcall asked for a repair, got none, dropped the call and logged it
    assert "LangMem logged" in str(error) and "pair" in str(error)
    assert usage is not None and usage.invalid_replies == 1
    assert [e["text"] for e in _events(store, profile)] == ["I grow tomatoes."]
    assert len(_events(store, profile, "MemoryPairProcessed")) == 1


def test_with_deletes_enabled_a_removal_is_a_delete_traced_to_its_pair_and_gone_from_search(
    store: EventStore, tmp_path: Path
) -> None:
    """`langmem_deletes` runs LangMem's store manager with enable_deletes=True (not its default): trustcall then
    offers `RemoveDoc`, the scripted model removes the memory a later message withdraws, and the graph follows."""
    texts = ["I keep a cat named Tom.", "Remove that: I gave Tom away.", "I also keep two goldfish."]
    profile = _conversation(store, tmp_path, "lm-remove", texts)
    pairs = _pairs(store, profile)
    script = LangmemScript(remove_when="Remove that")
    report, _ = _build(store, script, tmp_path / "c.sqlite", profile=profile, system="langmem_deletes")
    assert not isinstance(report, Exception), report
    assert "RemoveDoc" in {t["function"]["name"] for t in script.requests[1]["tools"]}
    events = _events(store, profile, system="langmem_deletes")
    assert [e["op"] for e in events] == ["ADD", "DELETE", "ADD"]
    cat, removal, fish = events
    assert cat["text"] == texts[0] and cat["source_turn_ids"] == pairs[0].turn_ids
    assert cat["memory_id"].startswith("langmem_deletes:")
    # the delete names the memory, the turns of the pair that withdrew it, and that pair
    assert removal["memory_id"] == cat["memory_id"] and removal["source_turn_ids"] == pairs[1].turn_ids
    assert removal["metadata"]["deleted_by_pair"] == pairs[1].pair_id
    assert removal["metadata"]["created_at"] == "2024-03-01T09:00:00+00:00"
    assert fish["text"] == texts[2] and fish["source_turn_ids"] == pairs[2].turn_ids
    assert (report.memories_added, report.memories_updated, report.memories_deleted) == (2, 0, 1)
    # LangMem's store no longer held the cat when the third pair came: no existing memory was shown
    assert "<existing>" not in script.requests[2]["messages"][0]["content"]
    processed = [p for p in _events(store, profile, "MemoryPairProcessed", system="langmem_deletes")]
    assert [p["memory_ids"] for p in processed] == [[cat["memory_id"]], [cat["memory_id"]], [fish["memory_id"]]]
    # neither LangMem's own store search (rebuilt from the graph) nor the recipe returns the removed memory
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    system = open_memory_system("langmem_deletes", store, retriever, llm=object())
    try:
        theirs = system.sdk_search(profile, "a cat named Tom", k=5)
        ours = [h.memory_id for h in retriever.search("LANGMEM_DELETES", "a cat named Tom", profile_id=profile,
                                                      k=5).memories]
        assert theirs == ours == [fish["memory_id"]]
    finally:
        system.close()
        retriever.close()
    with store.driver.session() as session:
        node = session.run("MATCH (m:Memory {id: $id}) RETURN m.deleted AS deleted", id=cat["memory_id"]).single()
    assert node is not None and node["deleted"] is True


def test_without_deletes_enabled_the_manager_offers_no_removal(store: EventStore, tmp_path: Path) -> None:
    """`langmem` keeps create_memory_store_manager's default (enable_deletes=False): the same conversation keeps
    the withdrawn memory, as LangMem itself would."""
    texts = ["I keep a cat named Tom.", "Remove that: I gave Tom away."]
    profile = _conversation(store, tmp_path, "lm-keep", texts)
    script = LangmemScript(remove_when="Remove that")
    report, _ = _build(store, script, tmp_path / "c.sqlite", profile=profile)
    assert not isinstance(report, Exception), report
    assert "<existing>" in script.requests[1]["messages"][0]["content"]
    assert "RemoveDoc" not in {t["function"]["name"] for r in script.requests for t in r["tools"]}
    assert [e["op"] for e in _events(store, profile)] == ["ADD", "ADD"] and report.memories_deleted == 0


@pytest.mark.parametrize(
    ("system", "known", "refusal"),
    [("langmem", True, "enable_deletes=False"), ("langmem_deletes", False, "not one of the profile's live memories")],
)
def test_an_unexpected_delete_fails_the_pair_instead_of_being_skipped(
    store: EventStore, built: dict[str, Any], system: str, known: bool, refusal: str
) -> None:
    """A delete LangMem's store saw that the system did not enable, or of a memory the profile does not hold, is
    refused with the pair named (a skipped delete would leave the graph holding a memory LangMem dropped)."""
    from langgraph.store.base import PutOp

    from agents.memory.errors import MemoryBackendError
    from agents.memory.langmem.store import namespace_of

    opened = open_memory_system(system, store, None, llm=object())
    try:
        opened._load(PROFILE)
        key = next(iter(opened._known)) if known else "no-such-key"
        pair = _pairs(store, PROFILE)[-1]
        with pytest.raises(MemoryBackendError, match=refusal) as raised:
            opened._writes(PROFILE, pair, [], [PutOp(namespace_of(PROFILE), key, None)])
        assert pair.pair_id in str(raised.value) and key in str(raised.value)
    finally:
        opened.close()


def test_a_removal_the_manager_does_not_offer_fails_the_pair_for_the_memory_role(
    store: EventStore, tmp_path: Path
) -> None:
    """With LangMem's defaults a model that calls `RemoveDoc` anyway gets trustcall's "Unrecognized tool name"
    repair; unrepaired, trustcall drops the call without a log and the pair would pass as if nothing was said."""
    texts = ["I keep a cat named Tom.", "Remove that: I gave Tom away."]
    profile = _conversation(store, tmp_path, "lm-unoffered", texts)
    script = LangmemScript(remove_when="Remove that", remove_unoffered=True)
    error, usage = _build(store, script, tmp_path / "c.sqlite", profile=profile)
    assert isinstance(error, SdkSwallowedFailureError), error
    assert "RemoveDoc" not in {t["function"]["name"] for r in script.requests for t in r["tools"]}
    assert script.repairs > 0  # trustcall asked for the name to be fixed and got no fix
    assert "['RemoveDoc']" in str(error) and "enable_deletes=False" in str(error)
    assert usage is not None and usage.invalid_replies == 1
    assert [e["text"] for e in _events(store, profile)] == [texts[0]]
    assert len(_events(store, profile, "MemoryPairProcessed")) == 1
