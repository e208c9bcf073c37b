"""Graphiti builds are reproducible and resume exactly: the ids Graphiti gives what it creates derive from the
profile, the pair and the order of creation (agents.memory.graphiti.pair_ids), and a pair stopped after
Graphiti's write and before its events is undone from its undo record (agents.memory.graphiti.undo) instead of
Graphiti's `remove_episode`, whose rewrite of shared entities' summaries changed the redone pair's requests
and added an exchange to its record. Each build starts from the mini bundle in an emptied database, with a
response cache of its own (so every build asks the endpoint)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.memory.graphiti.ids import group_id
from agents.memory.prepare import prepare_memory
from graph.store import EventStore
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.graphiti_script import GraphitiScript
from tests.paths import FIXTURES

pytestmark = pytest.mark.neo4j

PROFILE = "mini-p-sam"


@dataclass
class Build:
    """What one build sent and left: the requests in order, the memory ids, each pair's recorded exchanges,
    and Graphiti's own store (entities with their summaries, facts with their episodes)."""

    requests: list[str]
    memory_ids: list[str]
    exchanges: dict[str, list[str]]
    entities: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    undo_records: int


class FailingAppend:
    """Stands in for EventStore.append: the `fail_at`-th call raises, as a process killed after Graphiti wrote
    that pair's episode and before its events were appended would stop."""

    def __init__(self, store: EventStore, fail_at: int) -> None:
        self.store, self.fail_at, self.calls = store, fail_at, 0
        self.original = store.append

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyboardInterrupt("killed between Graphiti's write and the events")
        return self.original(*args, **kwargs)


def rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [r.data() for r in session.run(query, **params)]


def failing_hook(fail_at: int) -> Any:
    """Stands in for GraphitiMemory.pair_written: the `fail_at`-th call raises, as a process killed after a
    pair's events were appended and before its undo record was dropped would stop."""
    from agents.memory.graphiti.system import GraphitiMemory

    original = GraphitiMemory.pair_written
    calls = [0]

    def pair_written(system: Any, profile_id: str, pair: Any) -> None:
        calls[0] += 1
        if calls[0] == fail_at:
            raise KeyboardInterrupt("killed between the events and the undo record's removal")
        original(system, profile_id, pair)

    return pair_written


def build_mini(
    driver: Any,
    encoder: Any,
    cache: Path,
    *,
    stop_after_pair: int | None = None,
    stop_after_record: int | None = None,
    monkeypatch: Any = None,
) -> Build:
    """Ingest the mini bundle into the emptied database and build Graphiti's memory of PROFILE; with
    `stop_after_pair=k`, the first build stops once Graphiti has written pair k (1-based), with
    `stop_after_record=k` once pair k's events are written, and a second build resumes it."""
    from agents.memory.graphiti.system import GraphitiMemory
    from ingest.pipeline import load_input, write_events

    store = emptied_store(driver, encoder)
    write_events(store, load_input(FIXTURES / "mini_bundle"))
    with FakeOpenAI(GraphitiScript()) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 30.0,
                "max_retries": 0}
        roles = LLMRoles(overrides={"memory": base}, cache_path=cache)
        try:
            llm = roles.client("memory")
            if stop_after_pair is not None:
                failing = FailingAppend(store, fail_at=stop_after_pair)
                monkeypatch.setattr(store, "append", failing)
                with pytest.raises(KeyboardInterrupt):
                    prepare_memory("graphiti", store, None, PROFILE, llm=llm)
                monkeypatch.setattr(store, "append", failing.original)
            if stop_after_record is not None:
                original = GraphitiMemory.pair_written
                monkeypatch.setattr(GraphitiMemory, "pair_written", failing_hook(stop_after_record))
                with pytest.raises(KeyboardInterrupt):
                    prepare_memory("graphiti", store, None, PROFILE, llm=llm)
                monkeypatch.setattr(GraphitiMemory, "pair_written", original)
                left = rows(store, "MATCH (u:GraphitiUndo {undo_kind: 'written'}) RETURN count(u) AS n")[0]["n"]
                assert left == 1  # the stopped pair's record is still there
            prepare_memory("graphiti", store, None, PROFILE, llm=llm)
        finally:
            roles.close()
        requests = [json.dumps(body, sort_keys=True) for body in fake.requests]
    group = group_id(PROFILE)
    steps = rows(
        store,
        "MATCH (s:MemoryBuildStep {system: 'graphiti', profile_id: $pid}) RETURN s.pair_id AS pair, s.details AS d",
        pid=PROFILE,
    )
    return Build(
        requests=requests,
        memory_ids=[r["id"] for r in rows(
            store, "MATCH (m:Memory {system: 'graphiti', profile_id: $pid}) RETURN m.id AS id ORDER BY id", pid=PROFILE
        )],
        exchanges={s["pair"]: json.loads(s["d"] or "{}").get("exchanges", []) for s in steps},
        entities=rows(
            store,
            "MATCH (n:Entity {group_id: $g}) RETURN n.uuid AS uuid, n.name AS name, n.summary AS summary, "
            "labels(n) AS labels, n.name_embedding IS NOT NULL AS embedded ORDER BY uuid",
            g=group,
        ),
        facts=rows(
            store,
            "MATCH (s:Entity)-[e:RELATES_TO {group_id: $g}]->(t:Entity) RETURN e.uuid AS uuid, s.uuid AS source, "
            "t.uuid AS target, e.fact AS fact, e.episodes AS episodes, e.invalid_at AS invalid_at, "
            "e.fact_embedding IS NOT NULL AS embedded ORDER BY uuid",
            g=group,
        ),
        undo_records=rows(store, "MATCH (u:GraphitiUndo) RETURN count(u) AS n")[0]["n"],
    )


@pytest.fixture(scope="module")
def uninterrupted(graphiti_env: None, driver: Any, encoder: Any, tmp_path_factory: pytest.TempPathFactory) -> Build:
    return build_mini(driver, encoder, tmp_path_factory.mktemp("llm") / "cache.sqlite")


def test_two_builds_of_the_same_pairs_send_byte_identical_requests_and_store_the_same_ids(
    uninterrupted: Build, driver: Any, encoder: Any, tmp_path: Path
) -> None:
    again = build_mini(driver, encoder, tmp_path / "cache.sqlite")
    assert uninterrupted.memory_ids and len(uninterrupted.exchanges) >= 3
    assert again.memory_ids == uninterrupted.memory_ids
    assert again.entities == uninterrupted.entities and again.facts == uninterrupted.facts
    assert len(again.requests) == len(uninterrupted.requests)
    assert again.requests == uninterrupted.requests
    assert again.exchanges == uninterrupted.exchanges


@pytest.mark.parametrize("stop_after_pair", [2, 4])
def test_a_build_stopped_after_graphitis_write_resumes_to_the_uninterrupted_record_and_store(
    uninterrupted: Build,
    driver: Any,
    encoder: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_after_pair: int,
) -> None:
    resumed = build_mini(
        driver, encoder, tmp_path / "cache.sqlite", stop_after_pair=stop_after_pair, monkeypatch=monkeypatch
    )
    # the stopped pair was asked twice; every pair's record holds exactly the exchanges of an uninterrupted build
    assert len(resumed.requests) > len(uninterrupted.requests)
    assert resumed.exchanges == uninterrupted.exchanges
    assert resumed.memory_ids == uninterrupted.memory_ids
    assert resumed.entities == uninterrupted.entities
    assert resumed.facts == uninterrupted.facts
    assert resumed.undo_records == uninterrupted.undo_records == 0


def test_an_undo_record_left_by_a_stop_after_the_last_pairs_events_is_dropped_and_nothing_redone(
    uninterrupted: Build, driver: Any, encoder: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = len(uninterrupted.exchanges)
    resumed = build_mini(driver, encoder, tmp_path / "cache.sqlite", stop_after_record=last, monkeypatch=monkeypatch)
    assert resumed.requests == uninterrupted.requests  # every pair was written once: nothing asked again
    assert resumed.exchanges == uninterrupted.exchanges
    assert resumed.entities == uninterrupted.entities and resumed.facts == uninterrupted.facts
    assert resumed.undo_records == 0
