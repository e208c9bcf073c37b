"""`eval qa` (the LongMemEval reading line) on the real Neo4j with the fake OpenAI server as reader and judge:
every feeding mode answers and judges every question of a shipped fixture, the per-type rules decide the
verdicts, answers and verdicts are events a rerun skips, and without an LLM the command says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from agents.judging.lme_qa_judge import grading_rule
from agents.llm.roles import LLMRoles
from agents.qa.feeds import make_feed_config
from agents.qa.runner import QaRunOutcome, run_qa
from api.redaction import redact_event
from graph.store import EventStore
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.qa_script import QaScript
from tests.paths import FIXTURES

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

FIXTURE = FIXTURES / "longmemeval_qa_mini"
S_FILE = FIXTURE / "longmemeval_s_qa.json"
ORACLE_FILE = FIXTURE / "longmemeval_oracle_qa.json"
N_QUESTIONS = 6
SCRIPTED = {
    "jazz concert": "You attended the jazz concert 18 days ago.",  # reference 19 days: off by one passes
    "bikes": "You own three bikes.",  # the old value: a knowledge update needs the latest (four)
    "dinner recipe": "How about a creamy mushroom risotto? It is vegetarian.",
    "breed": "The dog you adopted is a beagle named Max.",
}


@pytest.fixture(scope="module")
def store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


@pytest.fixture()
def fake() -> Iterator[tuple[FakeOpenAI, QaScript]]:
    script = QaScript(answers=dict(SCRIPTED))
    with FakeOpenAI(script) as server:
        yield server, script


def _roles(base_url: str) -> LLMRoles:
    settings = {"base_url": base_url, "model": "fake-model", "max_retries": 0}
    return LLMRoles(overrides={"answerer": settings, "judge": settings, "memory": settings}, cache_mode="off")


def _run(store: EventStore, base_url: str, path: Path, reader: str = "direct", **options: Any) -> QaRunOutcome:
    opts = {
        "feed": "oracle",
        "recipe": "RAW_TURNS",
        "k": 3,
        "granularity": "round",
        "key_expansion": "none",
        "time_aware": "none",
        **options,
    }
    config = make_feed_config(**opts)
    roles = _roles(base_url)
    try:
        return run_qa(
            store,
            path,
            config,
            reader=reader,
            reader_llm=roles.client("answerer"),
            judge_llm=roles.client("judge"),
            fact_llm=roles.client("memory") if config.key_expansion == "facts" else None,
            say=lambda _: None,
        )
    finally:
        roles.close()


def _verdicts(store: EventStore, qa_run_id: str) -> dict[str, tuple[bool, str]]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (a:QaAnswer {qa_run_id: $id})-[:JUDGED_BY]->(j:QaJudgment) "
            "RETURN a.item_id AS item, j.correct AS correct, j.rule AS rule",
            id=qa_run_id,
        )
        return {r["item"].split(":")[1]: (r["correct"], r["rule"]) for r in rows}


def test_grading_rule_follows_abstention_id_then_question_type() -> None:
    assert grading_rule("e47becba_abs", "temporal-reasoning") == "abstention"
    assert grading_rule("x", "temporal-reasoning") == "temporal"
    assert grading_rule("x", "knowledge-update") == "knowledge_update"
    assert grading_rule("x", "single-session-preference") == "preference"
    for plain in ("single-session-user", "single-session-assistant", "multi-session"):
        assert grading_rule("x", plain) == "default"


def test_every_feed_answers_and_judges_every_question(store: EventStore, fake: tuple[FakeOpenAI, QaScript]) -> None:
    server, script = fake
    fed_sessions: dict[str, list[int]] = {}
    outcomes = {}
    for feed in ("oracle", "full", "rag"):
        script.readers.clear()
        outcomes[feed] = _run(store, server.base_url, S_FILE, feed=feed)
        fed_sessions[feed] = [len(r["conversations"]) for r in script.readers]
        assert outcomes[feed].answered_now == N_QUESTIONS and outcomes[feed].judged_now == N_QUESTIONS
        assert len(_verdicts(store, outcomes[feed].qa_run_id)) == N_QUESTIONS
    # oracle: the evidence sessions only (2 for the knowledge update); full: every session of each haystack
    assert fed_sessions["oracle"] == [1, 1, 2, 1, 1, 1]
    assert fed_sessions["full"] == [3, 3, 3, 2, 2, 2]
    assert len({o.qa_run_id for o in outcomes.values()}) == 3
    rag = outcomes["rag"].summary
    assert rag.overall.n_retrieval == N_QUESTIONS - 1  # the abstention question has no evidence to retrieve
    assert outcomes["oracle"].summary.overall.n_retrieval == 0  # no retrieval step outside rag


def test_per_type_rules_decide_the_verdicts(store: EventStore, fake: tuple[FakeOpenAI, QaScript]) -> None:
    server, _script = fake
    outcome = _run(store, server.base_url, ORACLE_FILE, feed="oracle")
    verdicts = _verdicts(store, outcome.qa_run_id)
    assert verdicts["qa0temp1"] == (True, "temporal")  # 18 days for 19 days
    assert verdicts["qa0upd01"] == (False, "knowledge_update")  # the superseded value
    assert verdicts["qa0pref1"] == (True, "preference")  # follows the rubric
    assert verdicts["qa0user1_abs"] == (True, "abstention")  # the reader said the information is missing
    assert verdicts["qa0user1"] == (True, "default")  # the reference answer is in the response
    assert verdicts["qa0asst1"] == (False, "default")  # the unscripted reader quoted the wrong message
    by_type = {t.question_type: t for t in outcome.summary.per_type}
    assert by_type["abstention"].accuracy == 1.0 and by_type["knowledge-update"].accuracy == 0.0


def test_abstention_fails_when_the_reader_answers_anyway(store: EventStore) -> None:
    script = QaScript(answers={"cat": "Your cat is called Max."})
    with FakeOpenAI(script) as server:
        outcome = _run(store, server.base_url, ORACLE_FILE, feed="oracle", reader="chain-of-note")
    assert _verdicts(store, outcome.qa_run_id)["qa0user1_abs"] == (False, "abstention")
    assert all(r["notes"] for r in script.readers)  # Chain-of-Note asked for notes


def test_rerun_skips_questions_already_answered_and_judged(
    store: EventStore, fake: tuple[FakeOpenAI, QaScript]
) -> None:
    server, _ = fake
    first = _run(store, server.base_url, S_FILE, feed="rag", k=2)
    before = server.request_count
    again = _run(store, server.base_url, S_FILE, feed="rag", k=2)
    assert again.qa_run_id == first.qa_run_id
    assert (again.answered_now, again.judged_now, again.skipped_done) == (0, 0, N_QUESTIONS)
    assert server.request_count == before
    assert again.summary.overall.accuracy == first.summary.overall.accuracy


def test_round_units_make_assistant_evidence_retrievable(store: EventStore, fake: tuple[FakeOpenAI, QaScript]) -> None:
    server, _ = fake
    outcome = _run(store, server.base_url, S_FILE, feed="rag", k=1, granularity="round")
    rows = {r.item_id.split(":")[1]: r for r in outcome.summary.rows}
    # the trail's name is in the assistant's reply; its round (user question + reply) is the unit
    assert rows["qa0asst1"].retrieval is not None
    assert rows["qa0asst1"].retrieval["unit"]["recall_any"] == 1.0
    assert "skipped" in (rows["qa0user1_abs"].retrieval or {})


def test_answers_record_what_was_fed_and_verdict_rationales_are_gold(
    store: EventStore, fake: tuple[FakeOpenAI, QaScript]
) -> None:
    server, _ = fake
    outcome = _run(store, server.base_url, S_FILE, feed="rag", k=2, time_aware="rules")
    with store.driver.session() as session:
        fed = session.run(
            "MATCH (a:QaAnswer {qa_run_id: $id})-[f:FED]->(s:Session) RETURN a.item_id AS item, count(s) AS n",
            id=outcome.qa_run_id,
        ).data()
        events = session.run("MATCH (e:Event {type: 'QaAnswerJudged'}) RETURN e.payload AS payload LIMIT 1").single()
    assert len(fed) == N_QUESTIONS and all(1 <= r["n"] <= 2 for r in fed)
    payload = json.loads(events["payload"])
    found: list[str] = []
    redacted = redact_event("QaAnswerJudged", payload, found)
    assert payload["rationale"] and redacted["rationale"] is None and found == ["rationale"]
    details = [r.retrieval for r in outcome.summary.rows]
    assert all(d is not None for d in details)


def test_eval_qa_without_an_llm_says_it_needs_one(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import app

    for name in ("COLABENCH_LLM_BASE_URL", "COLABENCH_LLM_ANSWERER_BASE_URL", "COLABENCH_LLM_JUDGE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    done = runner.invoke(app, ["eval", "qa", "--path", str(S_FILE), "--feed", "oracle"])
    assert done.exit_code == 1
    assert "eval qa needs an LLM" in done.output and "Traceback" not in done.output
    rag = runner.invoke(app, ["eval", "qa", "--path", str(S_FILE), "--feed", "rag", "--k", "2"])
    assert rag.exit_code == 1
    assert "RETRIEVAL ONLY" in rag.output and "eval qa needs an LLM" in rag.output


def test_cli_runs_rag_with_both_expansions_and_writes_the_report(
    store: EventStore, fake: tuple[FakeOpenAI, QaScript], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cli import app

    server, script = fake
    monkeypatch.setenv("COLABENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("COLABENCH_LLM_MODEL", "fake-model")
    monkeypatch.setenv("COLABENCH_LLM_CACHE_MODE", "off")
    report = tmp_path / "qa.html"
    out = tmp_path / "qa.json"
    args = [
        "eval",
        "qa",
        "--path",
        str(S_FILE),
        "--feed",
        "rag",
        "--k",
        "2",
        "--key-expansion",
        "facts",
        "--time-aware",
        "rules",
        "--reader",
        "chain-of-note",
        "--report",
        str(report),
        "--out",
        str(out),
    ]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert script.fact_calls > 0
    assert "rag RAW_TURNS@2 round +facts +time(rules) / chain-of-note" in done.output
    html = report.read_text()
    assert "<svg" in html and "rag RAW_TURNS@2 round +facts +time(rules) / chain-of-note" in html
    assert "reference" not in json.loads(out.read_text())["summary"]


def test_eval_retrieval_ranks_with_fact_keys_and_time_pruning_beside_the_plain_rows(store: EventStore) -> None:
    from agents.memory.raw_turns.declare import RAW_TURNS
    from agents.retrieval_eval.expansion_rows import RetrievalExpansion
    from agents.retrieval_eval.pipeline import run_retrieval_eval
    from query.retriever import Retriever

    def facts(text: str, _day: str | None) -> list[str]:
        return ["The user owns bicycles."] if "bike" in text else []

    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    expansion = RetrievalExpansion("facts", "rules", facts)
    report = run_retrieval_eval(store, retriever, "longmemeval", S_FILE, [RAW_TURNS], [1, 3], expansion=expansion)
    plain = [r for r in report.rows if r.recipe == "RAW_TURNS" and r.line == "memory"]
    expanded = [r for r in report.rows if r.recipe == "RAW_TURNS+facts+time(rules)"]
    assert plain and len(expanded) == N_QUESTIONS
    scored = [r for r in expanded if r.skipped is None]
    assert len(scored) == 4  # the abstention and the assistant-evidence questions have no gold user-turn card
    assert all("recall_any@3" in r.metrics and r.notes for r in scored)
    assert any(s.recipe == "RAW_TURNS+facts+time(rules)" for s in report.summaries)


def test_eval_qa_on_the_shared_longmemeval_dev_slice(
    store: EventStore, shared_dir: Path, fake: tuple[FakeOpenAI, QaScript]
) -> None:
    """Every feeding mode on the 13 oracle-file questions of the dev slice (the S file's 6,428 turns are the
    benchmark's, bench/bench_eval_qa.py: too slow for the suite on a shared machine)."""
    server, script = fake
    oracle_file = shared_dir / "data" / "longmemeval_dev" / "longmemeval_oracle_dev.json"
    if not oracle_file.is_file():
        pytest.skip("../shared/data/longmemeval_dev is not present")
    runs = {feed: _run(store, server.base_url, oracle_file, feed=feed, k=5) for feed in ("oracle", "full", "rag")}
    for feed, outcome in runs.items():
        assert outcome.summary.overall.n == 13 and outcome.summary.overall.n_judged == 13, feed
        assert "abstention" in {t.question_type for t in outcome.summary.per_type}
    rag = runs["rag"].summary
    assert rag.overall.n_retrieval == 12 and rag.overall.recall_any is not None
    assert all(len(r["conversations"]) <= 5 for r in script.readers[-13:])
