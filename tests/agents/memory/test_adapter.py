"""The memory adapter protocol end to end: `http:<name>` systems built and searched through the reference
adapter server (real HTTP, real Neo4j), refusal of memories naming turns never sent, and the one-line failures
of an adapter that answers garbage, hangs, or speaks another protocol version, counted for the `memory` role."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agents.history import load_public_history
from agents.llm.accounting import UsageLedger
from agents.memory.adapter.protocol import PROTOCOL_VERSION, AddRequest, Turn
from agents.memory.adapter.settings import adapter_settings
from agents.memory.adapter_server import create_app, serve_in_thread
from agents.memory.adapter_server.app import UNSENT_TURN
from agents.memory.errors import AdapterConfigError, AdapterError, AdapterProtocolError, AdapterTraceError
from agents.memory.pairs import history_pairs
from agents.memory.prepare import build_profiles, open_memory_system, prepare_memory
from agents.memory.rankers import sdk_rankers
from agents.memory.registry import get_memory_system, memory_system_help, memory_system_names
from graph.store import EventStore
from query.memory_rankers import RankerUnavailableError
from query.recipes import get_recipe
from query.retriever import Retriever

pytestmark = pytest.mark.neo4j

PROFILE = "mini-p-sam"
SYSTEM = "http:ref"


@pytest.fixture()
def mini(driver: Any, encoder: Any) -> Iterator[tuple[EventStore, Retriever]]:
    """The mini bundle in a store of this test's own (each test builds memories from nothing)."""
    from tests.conftest import MINI_BUNDLE, _load_bundle

    store = _load_bundle(driver, encoder, MINI_BUNDLE)
    retriever = Retriever(store.driver, store.encoder)
    yield store, retriever
    retriever.close()


@pytest.fixture()
def adapter(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[str]:
    """The reference adapter configured as `http:ref`, in the test mode given by indirect parametrisation
    (default: behaving); yields its URL."""
    with serve_in_thread(create_app(test_mode=getattr(request, "param", "none"))) as url:
        monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_REF_URL", url)
        monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_REF_TIMEOUT", "0.5")
        monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_REF_RETRIES", "1")
        yield url


def _counts(store: EventStore) -> tuple[int, int, int]:
    """(Memory nodes, build steps, log events) of `http:ref`."""
    with store.driver.session() as session:
        record = session.run(
            "RETURN COUNT { MATCH (m:Memory {system: $s}) } AS memories, "
            "COUNT { MATCH (s:MemoryBuildStep {system: $s}) } AS steps, "
            "COUNT { MATCH (e:Event) WHERE e.type IN ['MemoryWritten', 'MemoryPairProcessed'] "
            "AND e.payload CONTAINS $s } AS events",
            s=SYSTEM,
        ).single()
    assert record is not None
    return int(record["memories"]), int(record["steps"]), int(record["events"])


def test_adapter_is_built_resumed_and_searched_through_the_reference_server(
    mini: tuple[EventStore, Retriever], adapter: str
) -> None:
    store, retriever = mini
    assert SYSTEM in memory_system_names() and "http:NAME" in memory_system_help()
    cls = get_memory_system(SYSTEM)
    assert (cls.name, cls.search_recipe, cls.needs_llm, cls.ranks_with_sdk) == (SYSTEM, "HTTP:REF", False, True)
    history = load_public_history(store.driver, store.database, PROFILE)
    with_text = [t for t in history if t.text.strip()]

    ledger = UsageLedger()
    report = build_profiles(SYSTEM, store, retriever, [PROFILE], ledger=ledger)[0]
    pairs = history_pairs(history)
    assert (report.pairs_built, report.memories_added) == (len(pairs), len(with_text))
    # info + reset + one add per pair, every one counted for the `memory` role
    assert report.counts["adapter_requests"] == 2 + len(pairs)
    assert ledger.snapshot()["memory"].endpoint_requests == 2 + len(pairs)

    # Every memory derives from exactly the turn the adapter named, of this profile.
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (m:Memory {system: $s})-[:DERIVED_FROM]->(t:Turn) RETURN m.id AS id, collect(t.id) AS turns, "
            "t.profile_id AS profile",
            s=SYSTEM,
        ).data()
    assert sorted(r["id"] for r in rows) == sorted(f"{SYSTEM}:m-{t.turn_id}" for t in with_text)
    assert all(r["turns"] == [r["id"].removeprefix(f"{SYSTEM}:m-")] and r["profile"] == PROFILE for r in rows)

    # A rerun takes in nothing again and sends no add.
    again = prepare_memory(SYSTEM, store, retriever, PROFILE)
    assert again.pairs_built == 0 and again.counts["adapter_requests"] == 1  # only the version check
    assert _counts(store)[:2] == (len(with_text), len(pairs))

    # The adapter's own search, as project memory ids; the HTTP:REF recipe ranks with it and only with it.
    system = open_memory_system(SYSTEM, store)
    try:
        found = system.search_memories(PROFILE, "asthma tattoo", 3)
        assert found and all(m.id.startswith(f"{SYSTEM}:") and m.turn_ids for m in found)
        assert "asthma" in found[0].text.lower()
        expected = system.sdk_search(PROFILE, "asthma tattoo", 5)
    finally:
        system.close()
    assert get_recipe("http:ref").memory_system == SYSTEM
    with pytest.raises(RankerUnavailableError, match="HTTP:REF"):
        retriever.search("HTTP:REF", "asthma tattoo", profile_id=PROFILE, k=5)
    with sdk_rankers(store, [SYSTEM]) as opened:
        assert opened == [SYSTEM]
        result = retriever.search_memories("HTTP:REF", "asthma tattoo", profile_id=PROFILE, k=5)
    assert [h.memory_id for h in result.memories] == expected


@pytest.mark.parametrize("adapter", ["bad_turn"], indirect=True)
def test_memories_naming_a_turn_never_sent_refuse_the_batch_and_nothing_is_written(
    mini: tuple[EventStore, Retriever], adapter: str
) -> None:
    store, retriever = mini
    with pytest.raises(AdapterTraceError) as caught:
        prepare_memory(SYSTEM, store, retriever, PROFILE)
    line = str(caught.value)
    assert "\n" not in line and "'ref'" in line and adapter in line and "POST /v1/add" in line
    assert UNSENT_TURN in line and "nothing of it was written" in line
    assert _counts(store) == (0, 0, 0)


@pytest.mark.parametrize("adapter", ["garbage"], indirect=True)
def test_a_garbage_reply_is_one_line_naming_the_adapter_its_url_and_the_call(
    mini: tuple[EventStore, Retriever], adapter: str
) -> None:
    store, retriever = mini
    ledger = UsageLedger()
    with pytest.raises(AdapterError) as caught:
        build_profiles(SYSTEM, store, retriever, [PROFILE], ledger=ledger)
    line = str(caught.value)
    assert line == f"memory adapter 'ref' at {adapter}: POST /v1/add: the reply is not JSON: " + (
        "<html>upstream says hello</html>"
    )
    assert getattr(caught.value, "endpoint_failure", False) is True  # exit 3, EndpointFailed in a run
    usage = ledger.snapshot()["memory"]
    assert (usage.invalid_replies, usage.retries) == (1, 0)  # garbage is not asked again
    assert _counts(store) == (0, 0, 0)


@pytest.mark.parametrize("adapter", ["hang"], indirect=True)
def test_timeouts_are_tried_again_then_fail_counted_for_the_memory_role(
    mini: tuple[EventStore, Retriever], adapter: str
) -> None:
    store, retriever = mini
    ledger = UsageLedger()
    with pytest.raises(AdapterError, match=r"POST /v1/add failed: timed out after 0\.5 s \(2 tries\)") as caught:
        build_profiles(SYSTEM, store, retriever, [PROFILE], ledger=ledger)
    assert adapter in str(caught.value) and caught.value.retryable is True
    usage = ledger.snapshot()["memory"]
    assert (usage.endpoint_requests, usage.retries) == (4, 1)  # info, reset, add twice
    assert _counts(store) == (0, 0, 0)
    system = open_memory_system(SYSTEM, store, ledger=ledger)
    try:
        with pytest.raises(AdapterError, match=r"POST /v1/search failed: timed out"):
            system.sdk_search(PROFILE, "tattoo", 5)
    finally:
        system.close()
    assert ledger.snapshot()["memory"].retries == 2


@pytest.mark.parametrize("adapter", ["old_protocol"], indirect=True)
def test_another_protocol_version_is_one_clear_error(mini: tuple[EventStore, Retriever], adapter: str) -> None:
    store, retriever = mini
    with pytest.raises(AdapterProtocolError) as caught:
        prepare_memory(SYSTEM, store, retriever, PROFILE)
    assert str(caught.value) == (
        f"memory adapter 'ref' at {adapter}: GET /v1/info: the adapter (colabench-reference 1.0) speaks protocol "
        f"version 0, colabench speaks version {PROTOCOL_VERSION} (docs/memory-adapter.md)"
    )
    assert caught.value.retryable is False and _counts(store) == (0, 0, 0)


def test_an_unconfigured_adapter_says_which_variable_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLABENCH_MEMORY_ADAPTER_NOPE_URL", raising=False)
    with pytest.raises(AdapterConfigError, match="set COLABENCH_MEMORY_ADAPTER_NOPE_URL"):
        get_memory_system("http:nope")
    monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_NOPE_URL", "ftp://x")
    with pytest.raises(AdapterConfigError, match="not an http"):
        adapter_settings("nope")
    monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_NOPE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("COLABENCH_MEMORY_ADAPTER_NOPE_TIMEOUT", "-1")
    with pytest.raises(AdapterConfigError, match="COLABENCH_MEMORY_ADAPTER_NOPE_TIMEOUT"):
        adapter_settings("nope")
    with pytest.raises(AdapterConfigError, match="not valid"):
        adapter_settings("No Spaces")


def test_a_batch_sent_again_replaces_what_it_wrote() -> None:
    from agents.memory.adapter_server import KeywordMemory

    memory = KeywordMemory()
    turns = [Turn(turn_id="t1", session_id="s", role="user", text="green tea"),
             Turn(turn_id="t2", session_id="s", role="assistant", text="noted")]
    first = memory.add("u", "b1", turns)
    again = memory.add("u", "b1", turns[:1])
    assert [w.op for w in first] == ["ADD", "ADD"] and [(w.id, w.op) for w in again] == [("m-t1", "UPDATE"),
                                                                                         ("m-t2", "DELETE")]
    assert memory.stats()[1] == 1 and [m.id for m in memory.search("u", "tea", 5)] == ["m-t1"]
    with pytest.raises(ValueError):
        AddRequest.model_validate({"user_id": "u", "batch_id": "b", "turns": []})


