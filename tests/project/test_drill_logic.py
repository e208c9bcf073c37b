"""The comparison logic of the drills (bench/drill_*.py), without a server: Graphiti's random fact ids, log heads
and LLM exchanges that quote those ids are named by content in both logs, timings inside JSON properties are left
out, the fault drill's cut reply is never a whole reply, and the memory slope is a
least-squares slope."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agents.llm.exchanges import ExchangeStore
from bench.drill_common import ContentNames, RandomIds, stable_properties
from bench.drill_llm_faults import cut_reply
from bench.stats import slope_per_minute
from tests.fake_openai import Reply

A1, A2 = "0b7f6c2e-1111-4a2b-9c3d-000000000001", "0b7f6c2e-1111-4a2b-9c3d-000000000002"
B1, B2 = "5e5e5e5e-2222-4a2b-9c3d-000000000001", "5e5e5e5e-2222-4a2b-9c3d-000000000002"


@dataclass
class Event:
    type: str
    payload: dict[str, Any]


def _log(first: str, second: str) -> list[Event]:
    """Two Graphiti facts written in one build, with the edge uuids `first` and `second`, then an update of the
    first and a pair naming both."""
    return [
        Event("MemoryWritten", {"system": "graphiti", "memory_id": f"graphiti:{first}", "profile_id": "p",
                                "op": "ADD", "text": "likes tea", "source_turn_ids": ["t1"]}),
        Event("MemoryWritten", {"system": "graphiti", "memory_id": f"graphiti:{second}", "profile_id": "p",
                                "op": "ADD", "text": "lives in Oslo", "source_turn_ids": ["t2"]}),
        Event("MemoryWritten", {"system": "graphiti", "memory_id": f"graphiti:{first}", "profile_id": "p",
                                "op": "UPDATE", "text": "likes green tea", "source_turn_ids": ["t3"],
                                "metadata": {"edge_uuid": first}}),
        Event("MemoryPairProcessed", {"system": "graphiti", "memory_ids": [f"graphiti:{first}", f"graphiti:{second}"]}),
    ]


def _renamed(log: list[Event]) -> str:
    ids = RandomIds(log)
    return json.dumps([ids.rename(e.payload) for e in log], sort_keys=True)


def test_two_builds_of_the_same_facts_under_other_uuids_compare_equal() -> None:
    assert _renamed(_log(A1, A2)) == _renamed(_log(B1, B2))
    renamed = _renamed(_log(A1, A2))
    assert A1 not in renamed and A2 not in renamed  # every occurrence, also inside metadata and lists


def test_facts_that_differ_stay_different() -> None:
    swapped = _log(B1, B2)
    swapped[1].payload["text"] = "lives in Bergen"  # another fact: must not compare equal
    assert _renamed(_log(A1, A2)) != _renamed(swapped)
    # the same uuids naming the facts the other way round are a different log too
    assert _renamed(_log(A1, A2)) != _renamed(_log(A2, A1)[:2] + _log(A1, A2)[2:])


def test_other_systems_ids_are_compared_as_they_are() -> None:
    mem0 = [Event("MemoryWritten", {"system": "mem0", "memory_id": f"mem0:{A1}", "profile_id": "p", "op": "ADD",
                                    "text": "x", "source_turn_ids": ["t1"]})]
    assert RandomIds(mem0).rename({"id": f"mem0:{A1}"}) == {"id": f"mem0:{A1}"}


def test_a_cut_reply_is_a_strict_prefix_and_not_valid_json() -> None:
    whole = json.dumps({"verdict": "pass", "rationale": "cites the support document"})
    cut = cut_reply(Reply.text(whole))
    assert cut.content is not None and whole.startswith(cut.content) and len(cut.content) < len(whole)
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.content)
    tool = cut_reply(Reply.tools(("kb_search", {"query": "tea"})))
    assert tool.tool_calls == [] and tool.content is not None
    with pytest.raises(json.JSONDecodeError):
        json.loads(tool.content)


def test_slope_per_minute() -> None:
    assert slope_per_minute([(0.0, 100.0), (60.0, 102.0), (120.0, 104.0)]) == pytest.approx(2.0)
    assert slope_per_minute([(0.0, 5.0), (30.0, 5.0), (60.0, 5.0)]) == pytest.approx(0.0)
    # noise around a flat line: the fitted slope, not the last minus the first
    assert slope_per_minute([(0.0, 100.0), (10.0, 110.0), (20.0, 90.0), (30.0, 100.0)]) == pytest.approx(-12.0)
    assert slope_per_minute([(1.0, 3.0)]) != slope_per_minute([(1.0, 3.0)])  # NaN: one sample has no slope


@dataclass
class Stored:
    type: str
    payload: dict[str, Any]
    hash: str


def test_a_log_head_is_named_by_the_events_up_to_it_not_by_its_chain_hash() -> None:
    """Two logs of the same events (recorded at other times, so other chain hashes; concurrent work in another
    order) name the head after the same events alike, and a head after other events otherwise."""
    s1, s2 = ("StateSummarized", {"summary_id": "s1"}), ("StateSummarized", {"summary_id": "s2"})
    r1 = ("RunStarted", {"run_id": "r1"})
    first = [Stored(*s1, "a1"), Stored(*s2, "a2"), Stored(*r1, "a3")]
    second = [Stored(*s2, "b1"), Stored(*s1, "b2"), Stored(*r1, "b3")]
    one, two = ContentNames(first), ContentNames(second)
    assert one.rename({"dataset_fingerprint": "a2"}) == two.rename({"dataset_fingerprint": "b2"})
    assert one.rename("a3") == two.rename("b3")
    assert one.rename("a2") != one.rename("a3") and one.rename("a1") != two.rename("b1")
    assert one.rename("not a head") == "not a head"


def test_timings_inside_a_json_property_are_left_out_and_the_rest_kept() -> None:
    seen: set[str] = set()
    config = {"memory_build": {"total": {"pairs": 4, "seconds": 7.98, "seconds_per_pair": 1.99}}, "judges": ["a"]}
    kept = stable_properties({"config": json.dumps(config), "seq": 3, "method": "MEM0"}, seen)
    assert json.loads(kept["config"]) == {"memory_build": {"total": {"pairs": 4}}, "judges": ["a"]}
    assert kept["method"] == "MEM0" and "seq" not in kept
    assert {"seq", "config.memory_build.total.seconds", "config.memory_build.total.seconds_per_pair"} <= seen
    other = dict(config, memory_build={"total": {"pairs": 5, "seconds": 7.98, "seconds_per_pair": 1.99}})
    assert stable_properties({"config": json.dumps(other)}, set())["config"] != kept["config"]  # counts still count


def test_an_exchange_that_quotes_random_fact_ids_is_named_by_its_content(tmp_path: Path) -> None:
    store = ExchangeStore(tmp_path / "x.sqlite")

    def put(fact: str, answer: str) -> str:
        tool = {"role": "tool", "content": json.dumps({"memory_id": f"graphiti:{fact}"})}
        request = {"model": "m", "messages": [tool]}
        return store.put(role="answerer", request=request, reply={"content": answer})

    a, b, c = put(A1, "tea"), put(B1, "tea"), put(B1, "coffee")
    store.close()
    assert a != b  # the hashes differ only by the random id the request quotes
    path = tmp_path / "x.sqlite"
    one, two = ContentNames(_stored(A1, A2), path), ContentNames(_stored(B1, B2), path)
    try:
        named = one.properties({"answer_exchange": a}, set())
        assert named == two.properties({"answer_exchange": b}, set()) and named["answer_exchange"] != a
        assert two.properties({"exchange": c}, set()) != two.properties({"exchange": b}, set())
        assert one.properties({"exchange": "0" * 64}, set()) == {"exchange": "0" * 64}  # not stored: as it is
    finally:
        one.close()
        two.close()


def _stored(first: str, second: str) -> list[Stored]:
    return [Stored(e.type, e.payload, f"h{i}") for i, e in enumerate(_log(first, second))]
