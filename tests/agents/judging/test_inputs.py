"""Judge inputs and per-method prompts as the paper specifies (Sec. 4.1, 4.3, App. B.2, B.3, D.1), on the real
Neo4j with the `mini` bundle and the fake OpenAI-compatible server: a judge request holds a 9,000-character
read return whole and the S(H) block the method was shown; a judge context budget leaves material out only
by its rule and says so in the verdict; MemKB and its ablations get the source-attribution constraint and
HYBRID does not; memkb_search lists each card's linked documents; the per-round call cap is off by default."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.answerer import AgentTask, AnsweringAgent, Budget
from agents.judging.attempt_judge import with_context
from agents.judging.base import JudgeCall
from agents.judging.reference import NO_STATES, MaterialSource
from agents.judging.registry import get_judge
from agents.llm.roles import LLMRoles
from agents.methods import get_method, parse_methods
from agents.metrics.attempts import load_run_record
from agents.prompts.answering import ANSWER_ATTRIBUTION_BLOCK
from agents.prompts.registry import PromptSet
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import execute_batch
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy, schema_title

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

ATTRIBUTION = "Ground every statement about the user's communications and decisions"
END = "END-OF-THE-LONG-READ"


@pytest.fixture(scope="module")
def retriever(mini_store: EventStore) -> Iterator[Any]:
    from query.retriever import Retriever

    r = Retriever(mini_store.driver, mini_store.encoder)  # type: ignore[arg-type]
    yield r
    r.close()


def roles_for(fake: FakeOpenAI, cache: Path) -> LLMRoles:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
    return LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge", "state")}, cache_path=cache)


def run_batch(store: EventStore, retriever: Any, fake: FakeOpenAI, methods: str, cache: Path) -> BatchPlan:
    roles = roles_for(fake, cache)
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store,
        parse_methods(methods),
        RunOptions(dataset="mini", judges=("accuracy",), fresh=True, items=1),
        roles,
        prompts,
        encoder_id=store.encoder.encoder_id,
    )
    try:
        execute_batch(store, retriever, plan, roles, prompts, concurrency=1)
    finally:
        roles.close()
    return plan


def long_read() -> str:
    lines = "\n".join(f"{i}: line {i} of a long document " + "x" * 70 for i in range(1, 200))
    body = json.dumps({"doc_id": "mini-blood-donation", "text": lines}, ensure_ascii=False)
    return body[: 9_000 - len(END)] + END


def read_call(response: str) -> dict[str, Any]:
    return {"round": 1, "ordinal": 0, "tool": "read", "arguments": "{}", "ok": True, "error": None,
            "response": response}


def test_judge_request_holds_a_9000_character_read_return_whole_and_the_state_block(
    mini_store: EventStore, tmp_path: Path
) -> None:
    response = long_read()
    assert len(response) == 9_000
    states = "- [state-x] the user got a new tattoo on 1 March (concerns: the user; from turns t-1)"
    material = MaterialSource(mini_store.driver, "neo4j").material(
        "attempt-x", recorded=("i-mini-01", [read_call(response)], "an answer"), states=states
    )
    assert material.context is None
    with FakeOpenAI(AutoPolicy()) as fake:
        roles = roles_for(fake, tmp_path / "c.sqlite")
        try:
            call = JudgeCall("attempt-x", material, roles.client("judge"), PromptSet())
            verdicts = get_judge("accuracy").judge(call, ["accuracy"])
        finally:
            roles.close()
        requests = [b for b in fake.requests if schema_title(b) == "AccuracyOut"]
    assert verdicts[0].kind == "accuracy" and verdicts[0].prompt_name == "judge_accuracy"
    text = "\n".join(str(m.get("content") or "") for m in requests[0]["messages"])
    assert response in text  # whole, the last characters included
    assert states in text
    # the grader's documents come whole too
    with mini_store.driver.session() as session:
        doc = session.run("MATCH (d:Document {id: 'mini-blood-donation'}) RETURN d.text AS t").single()
    assert doc is not None
    last = doc["t"].split("\n")[-1]
    assert last.strip() and last in text


def test_judge_context_budget_leaves_out_by_its_rule_and_records_it(mini_store: EventStore) -> None:
    response = long_read()
    whole = MaterialSource(mini_store.driver, "neo4j").material(
        "attempt-y", recorded=("i-mini-01", [read_call(response)], "an answer")
    )
    budget = whole.size() - len(response) // 2
    cut = MaterialSource(mini_store.driver, "neo4j", context_budget=budget).material(
        "attempt-y", recorded=("i-mini-01", [read_call(response)], "an answer")
    )
    assert cut.context is not None and cut.size() <= budget
    assert cut.context["budget"] == budget and not cut.context["over_budget"]
    left = cut.context["documents_chars_left_out"] + cut.context["evidence_chars_left_out"]
    assert left >= whole.size() - budget
    # never shortened: the request, history, requirements, reference answer, S(H) and the answer
    for name in ("question", "history", "requirements", "reference_answer", "states", "answer"):
        assert getattr(cut, name) == getattr(whole, name)
    if cut.context["evidence_chars_left_out"]:
        assert "characters left out: judge context budget" in cut.evidence and END not in cut.evidence
        assert cut.context["returns_shortened"] == 1
    # a budget that fits changes nothing but still says so
    roomy = MaterialSource(mini_store.driver, "neo4j", context_budget=whole.size()).material(
        "attempt-y", recorded=("i-mini-01", [read_call(response)], "an answer")
    )
    assert roomy.evidence == whole.evidence and roomy.documents == whole.documents
    assert roomy.context is not None and roomy.context["evidence_chars_left_out"] == 0
    # the count travels with every verdict
    from graph.events import AnswerJudged

    verdict = AnswerJudged(
        judgment_id="j", attempt_id="attempt-y", kind="accuracy", judge_model="m", prompt_name="judge_accuracy",
        prompt_version="2", prompt_sha256="0" * 64, verdict="pass",
    )
    assert with_context(verdict, cut).details["judge_context"] == cut.context
    assert with_context(verdict, whole) is verdict


def test_attribution_constraint_is_in_memkb_and_its_ablations_prompts_only() -> None:
    prompts = PromptSet()
    task = AgentTask(item_id="i", profile_id="p", question="q?", asked_at=None)
    for name in ("MEMKB", "MEMKB_NO_STATE", "MEMKB_NO_LINKS", "MEMKB_RAW_TURNS", "HYBRID", "MEM0", "GRAPHITI", "AMEM"):
        method = get_method(name)
        agent = AnsweringAgent(method, None, None, prompts, Budget())  # type: ignore[arg-type]
        system = agent.first_messages(task)[0]["content"]
        assert (ATTRIBUTION in system) is name.startswith("MEMKB"), name
        assert method.source_attribution is name.startswith("MEMKB"), name
        # the shared instruction (App. B.2) is in every method's prompt
        assert "Keep unknown conditions unknown" in system and "Address every decision" in system
    assert Budget().max_calls_per_round is None


def test_memkb_run_records_flag_and_prompt_hashes_shows_links_and_gives_the_judge_its_state_block(
    mini_store: EventStore, retriever: Any, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        plan = run_batch(mini_store, retriever, fake, "MEMKB_RAW_TURNS,HYBRID", tmp_path / "c.sqlite")
        requests = list(fake.requests)
    memkb, hybrid = plan.runs
    record = load_run_record(mini_store.driver, "neo4j", memkb.run_id)
    assert record.config["method"]["source_attribution"] is True
    assert record.prompt_hashes["answer_attribution_block"]["sha256"] == ANSWER_ATTRIBUTION_BLOCK.sha256
    assert record.config["budget"]["max_calls_per_round"] is None
    other = load_run_record(mini_store.driver, "neo4j", hybrid.run_id)
    assert other.config["method"]["source_attribution"] is False
    assert "answer_attribution_block" not in other.prompt_hashes
    answer_requests = [b for b in requests if schema_title(b) is None and b.get("tools")]
    memkb_prompts = [b for b in answer_requests if "memkb_search" in json.dumps(b["tools"])]
    hybrid_prompts = [b for b in answer_requests if "memkb_search" not in json.dumps(b["tools"])]
    assert memkb_prompts and hybrid_prompts
    assert all(ATTRIBUTION in b["messages"][0]["content"] for b in memkb_prompts)
    assert not any(ATTRIBUTION in b["messages"][0]["content"] for b in hybrid_prompts)
    # memkb_search responses carry each matched card's linked document ids
    with mini_store.driver.session() as session:
        responses = [
            json.loads(r["response"])
            for r in session.run(
                "MATCH (c:ToolCall {tool: 'memkb_search'}) WHERE c.attempt_id STARTS WITH $run RETURN c.response "
                "AS response",
                run=memkb.run_id,
            )
        ]
    cards = [m for r in responses for m in r.get("memories", [])]
    assert cards and all("linked_doc_ids" in m for m in cards)
    assert any(m["linked_doc_ids"] for m in cards)
    # the judge of the MemKB attempt saw the S(H) block of its prompt; HYBRID's judge saw none
    judge_requests = [b for b in requests if schema_title(b) == "AccuracyOut"]
    texts = ["\n".join(str(m.get("content") or "") for m in b["messages"]) for b in judge_requests]
    state_line = memkb_prompts[0]["messages"][0]["content"].split("(state summary; each entry names the turns it")[1]
    first_state = next(line for line in state_line.split("\n") if line.startswith("- ["))
    assert sum(1 for t in texts if first_state in t) == 1
    assert sum(1 for t in texts if NO_STATES in t) == 1
