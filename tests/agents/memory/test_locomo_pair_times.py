"""LoCoMo keeps its session dates as written ("1:56 pm on 8 May, 2023") and its turns have no time of their own,
so a LoCoMo pair's time is that string. Built against the fake OpenAI server on the LoCoMo fixture, every SDK
gets it in its own form: A-MEM's note timestamp `YYYYMMDDHHMM` (not "unknown"), Mem0's `created_at` ISO 8601
(not the raw string); a time in no known form stops the build with a message naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from agents.history import HistoryTurn
from agents.llm.roles import LLMRoles
from agents.memory import HistoryPair, prepare_memory
from agents.memory.errors import MemoryBackendError
from agents.memory.pair_time import amem_timestamp, iso_created_at
from graph.store import EventStore
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.amem_script import AmemScript
from tests.fake_openai.mem0_script import Mem0Script
from tests.paths import FIXTURES

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"
PROFILE = "locomo:conv-1"
# conv-1's sessions: D1 "1:56 pm on 8 May, 2023", D2 "10:37 am on 27 June, 2023"
SESSION_TIMES = {"D1": (2023, 5, 8, 13, 56), "D2": (2023, 6, 27, 10, 37)}


@pytest.fixture(scope="module")
def store(driver: Driver, encoder: Any) -> EventStore:
    from ingest.pipeline import load_input, write_events

    store: EventStore = emptied_store(driver, encoder)
    write_events(store, load_input(LOCOMO, "locomo"))
    return store


def _build(store: EventStore, system: str, responder: Any, cache: Path) -> list[dict[str, Any]]:
    """Build `system` for conv-1 through the fake endpoint; its ADD events' payloads, in log order."""
    with FakeOpenAI(responder) as fake:
        settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 10.0}
        roles = LLMRoles(overrides={"memory": settings}, cache_path=cache)
        try:
            report = prepare_memory(system, store, None, PROFILE, llm=roles.client("memory"), links=False)
        finally:
            roles.close()
    assert report.pairs_built > 0
    with store.driver.session() as session:
        payloads = [json.loads(r["p"]) for r in session.run(
            "MATCH (e:Event {type: 'MemoryWritten'}) RETURN e.payload AS p ORDER BY e.seq")]
    return [p for p in payloads if p["system"] == system and p["profile_id"] == PROFILE and p["op"] == "ADD"]


def _session(payload: dict[str, Any]) -> str:
    return str(payload["source_turn_ids"][0]).split(":")[-2]  # locomo:conv-1:D2:1 -> D2


def test_amem_notes_carry_the_locomo_session_time_in_amem_form(store: EventStore, tmp_path: Path) -> None:
    adds = _build(store, "amem", AmemScript(), tmp_path / "amem.sqlite")
    assert {_session(a) for a in adds} == set(SESSION_TIMES)
    for add in adds:
        y, mo, d, h, mi = SESSION_TIMES[_session(add)]
        assert add["metadata"]["timestamp"] == f"{y:04d}{mo:02d}{d:02d}{h:02d}{mi:02d}"


def test_mem0_memories_are_created_at_the_locomo_session_time_in_iso_8601(store: EventStore, tmp_path: Path) -> None:
    from datetime import UTC, datetime

    adds = _build(store, "mem0", Mem0Script(), tmp_path / "mem0.sqlite")
    assert {_session(a) for a in adds} == set(SESSION_TIMES)
    for add in adds:
        created = add["metadata"]["created_at"]
        assert datetime.fromisoformat(created) == datetime(*SESSION_TIMES[_session(add)], tzinfo=UTC)


def _pair(started_at: str | None) -> HistoryPair:
    turn = HistoryTurn(session_id="s", session_ordinal=0, started_at=started_at, turn_id="t", ordinal=0,
                       role="user", speaker=None, text="hi", at=None, tool_calls=[])
    return HistoryPair("t", "s", 0, (turn,))


def test_each_sdk_form_of_a_pair_time_and_the_refusal_of_an_unreadable_one() -> None:
    assert amem_timestamp("amem", _pair("2023/05/30 (Tue) 23:40")) == "202305302340"
    assert amem_timestamp("amem", _pair("2024-01-02T03:04:05+02:00")) == "202401020304"  # the pair's own clock
    assert amem_timestamp("amem", _pair(None)) == "unknown"
    assert iso_created_at("mem0", _pair("1:56 pm on 8 May, 2023")) == "2023-05-08T13:56:00+00:00"
    assert iso_created_at("mem0", _pair(None)) is None
    for convert in (amem_timestamp, iso_created_at):
        with pytest.raises(MemoryBackendError, match="'sometime last spring' is neither ISO 8601"):
            convert("x", _pair("sometime last spring"))
