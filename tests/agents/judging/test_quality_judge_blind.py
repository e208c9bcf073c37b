"""The answer-quality judge is blind (App. D.2, issue 22 item 5): its requests for two methods' attempts at one
item (MemKB, with S(H) in its prompt and memkb_search, and Mem0 + Hybrid, with memory_search then kb_search, on
Mem0's memories; and the same pair on raw-turn cards) carry no method marker: no tool, method or memory-system
name, no S(H) text or state id, no linked document ids, no memory id; and the tool calls come in the same shape
for both. The accuracy judge of the same MemKB attempt still gets the S(H) block and the returns as the agent
saw them (App. D.1)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.judging.blind_evidence import blind_error, render_blind_evidence
from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.plan import RunOptions, plan_batch
from agents.runs.runner import execute_batch
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.mem0_script import Mem0Script
from tests.fake_openai.policy import AutoPolicy, schema_title

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

MARKERS = re.compile(
    r"memkb|mem0|raw_turns|raw turns|graphiti|a-mem|kb_search|memory_search|linked_doc_ids|state_id|"
    r"state summary|state list|round \d+, call|\"states\"",
    re.IGNORECASE,
)
ENTRY = re.compile(r"^\d+\. (search of the user's memories|search of the knowledge base|read)\b", re.MULTILINE)


def _text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"])


# Each pair: MemKB and the baseline over the same memories (the paper's headline pair, on Mem0's memories built
# through the scripted extractor; and the pair on raw-turn cards, which needs no extraction).
PAIRS = {"mem0": "MEMKB,MEM0", "raw_turns": "MEMKB_RAW_TURNS,RAW_TURNS"}


@pytest.fixture(scope="module", params=list(PAIRS))
def requests(
    request: pytest.FixtureRequest,
    mini_store: EventStore,
    mini_retriever: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Any]:
    cache = tmp_path_factory.mktemp("blind") / "cache.sqlite"
    with FakeOpenAI(Mem0Script(fallback=AutoPolicy())) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 30.0}
        roles = LLMRoles(
            overrides={r: dict(base) for r in ("answerer", "judge", "state", "memory")}, cache_path=cache
        )
        prompts = PromptSet()
        assert mini_store.encoder is not None
        try:
            plan = plan_batch(
                mini_store,
                parse_methods(PAIRS[request.param]),
                RunOptions(dataset="mini", judges=("accuracy", "quality"), fresh=True, items=1),
                roles,
                prompts,
                encoder_id=mini_store.encoder.encoder_id,
            )
            execute_batch(mini_store, mini_retriever, plan, roles, prompts, concurrency=1)
        finally:
            roles.close()
        yield list(fake.requests)


def test_quality_judge_requests_of_two_methods_carry_no_method_marker(
    requests: list[dict[str, Any]], mini_store: EventStore
) -> None:
    quality = [_text(b) for b in requests if schema_title(b) == "QualityOut"]
    assert len(quality) == 10  # five dimensions, two methods, one item
    with mini_store.driver.session() as session:
        memory_ids = session.run("MATCH (m:Memory) RETURN collect(m.id) AS ids").single()["ids"]
        state_ids = session.run("MATCH (s:State) RETURN collect(s.id) AS ids").single()["ids"]
    assert memory_ids and state_ids  # the methods did read memories and S(H) exists
    for text in quality:
        assert MARKERS.findall(text) == [], MARKERS.findall(text)
        assert not [m for m in memory_ids if m in text] and not [s for s in state_ids if s in text]
        assert "[memory 1]" in text  # memories were shown, under neutral labels


def test_quality_judge_sees_the_same_shape_of_tool_calls_for_both_methods(requests: list[dict[str, Any]]) -> None:
    quality = [_text(b) for b in requests if schema_title(b) == "QualityOut"]
    shapes = {tuple(ENTRY.findall(text.split("## The assistant's answer")[0])) for text in quality}
    # memkb_search (one call: memories and documents) + read, and memory_search + kb_search + read, read alike
    assert shapes == {("search of the user's memories", "search of the knowledge base", "read")}
    answer_requests = [b for b in requests if schema_title(b) is None and b.get("tools")]
    tools_offered = {t["function"]["name"] for b in answer_requests for t in b["tools"]}
    assert {"memkb_search", "memory_search", "kb_search"} <= tools_offered  # the two methods did differ


def test_the_accuracy_judge_keeps_the_state_block_and_the_returns_as_seen(requests: list[dict[str, Any]]) -> None:
    accuracy = [_text(b) for b in requests if schema_title(b) == "AccuracyOut"]
    assert len(accuracy) == 2
    memkb = [t for t in accuracy if "linked_doc_ids" in t]
    assert len(memkb) == 1 and "(the assistant was shown no state summary)" not in memkb[0]
    assert "## The state summary the assistant was shown" in memkb[0]


def test_blind_rendering_names_no_tool_in_errors_and_caps_entries_under_a_budget() -> None:
    calls = [
        {"tool": "memkb_search", "arguments": '{"query": "q", "k": 30}', "ok": False,
         "error": "unknown tool 'memkb_search'; available: memkb_search, read", "response": ""},
        {"tool": "read", "arguments": '{"doc_id": "d1"}', "ok": True, "error": None,
         "response": '{"doc_id": "d1", "title": "T", "start_line": 1, "end_line": 2, "text": "1: aaaa\\n2: bbbb"}'},
    ]
    text = render_blind_evidence(calls, max_response_chars=5)
    assert "memkb" not in text.lower() and "available" not in text
    assert '1. search for "q" (failed)' in text and "2. read [d1] T, lines 1-2" in text
    assert "characters left out: judge context budget" in text
    assert blind_error("no memory cards of system 'mem0'") == "no memory cards of system '(system)'"


def test_quality_prompts_have_no_state_placeholder_and_others_keep_it(tmp_path: Path) -> None:
    prompts = PromptSet()
    for name in ("judge_quality_state_fidelity", "judge_quality_evidence_grounding"):
        assert "states" not in prompts[name].placeholders and "evidence" in prompts[name].placeholders
    assert "states" in prompts["judge_accuracy"].placeholders
