"""Time-aware query expansion as LongMemEval defines it (`--time-aware llm`): an LLM reads the question's time
range given its date, through the fake OpenAI server with scripted replies. The range it reads decides which
units are ranked and fed; a reply that stays invalid is re-asked, then recorded as no range and counted; the
definition and its prompt are part of the QA run id; `eval retrieval` names its rows `+time(llm)`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from agents.llm.roles import LLMRoles
from agents.prompts.qa_reading import QA_TIME_RANGE
from agents.prompts.registry import PromptSet
from agents.qa.feeds import make_feed_config
from agents.qa.runner import QaRunOutcome, run_qa
from agents.qa.time_range import llm_time_range_reader
from graph.store import EventStore
from query.expansion.time_range import read_time_range_by_rules
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.qa_script import QaScript
from tests.paths import FIXTURES

pytestmark = [pytest.mark.usefixtures("isolated_config")]

FIXTURE = FIXTURES / "longmemeval_qa_mini"
S_FILE = FIXTURE / "longmemeval_s_qa.json"
ASKED = datetime(2023, 5, 30, 14, 0)
# The jazz concert session is dated 2023-05-11; its haystack also holds sessions of 04-20 and 05-25.
JAZZ_RANGE = {"has_range": True, "start": "2023-05-09", "end": "2023-05-13", "reason": "the concert week"}
# A range that ends before it starts: invalid on every attempt.
BACKWARDS = {"has_range": True, "start": "2023-05-20", "end": "2023-05-01", "reason": "backwards"}


def _roles(base_url: str, **extra: Any) -> LLMRoles:
    settings = {"base_url": base_url, "model": "fake-model", "max_retries": 0, **extra}
    return LLMRoles(overrides={"answerer": settings, "judge": settings, "memory": settings}, cache_mode="off")


def test_llm_time_range_reader_uses_the_reply_and_re_asks_an_invalid_one_before_giving_up() -> None:
    script = QaScript(time_ranges={"jazz": JAZZ_RANGE, "bikes": BACKWARDS, "cat": "no JSON here"})
    with FakeOpenAI(script) as server:
        roles = _roles(server.base_url, invalid_output_retries=2)
        try:
            llm = roles.client("memory")
            read = llm_time_range_reader(llm)
            found = read("How many days ago did I attend the jazz concert?", ASKED)
            assert found.status == "range" and found.source == "llm" and found.time_range is not None
            assert (found.time_range.start, found.time_range.end) == (date(2023, 5, 9), date(2023, 5, 13))
            jazz = ("How many days ago did I attend the jazz concert?", "2023-05-30 (Tuesday)")
            assert script.time_range_calls == [jazz]  # the question with its date
            backwards = read("How many bikes do I own now?", ASKED)
            assert backwards.status == "invalid" and backwards.time_range is None
            assert backwards.problem and "after end" in backwards.problem
            garbled = read("What is the name of my cat?", ASKED)
            assert garbled.status == "invalid" and garbled.time_range is None
            # each invalid question: the first ask and two re-asks, every one counted as an invalid reply
            assert len(script.time_range_calls) == 1 + 3 + 3
            assert roles.ledger.snapshot()["memory"].invalid_replies == 6
            none = read("What breed is my dog?", ASKED)
            assert none.status == "none" and none.time_range is None
            calls = len(script.time_range_calls)
            assert read("two weeks ago?", None).status == "no_date" and len(script.time_range_calls) == calls
        finally:
            roles.close()


def test_a_range_ending_after_the_question_date_is_cut_at_that_date() -> None:
    late = {"has_range": True, "start": "2023-05-20", "end": "2023-06-30", "reason": "this month and on"}
    with FakeOpenAI(QaScript(time_ranges={"month": late})) as server:
        roles = _roles(server.base_url)
        try:
            found = llm_time_range_reader(roles.client("memory"))("What did I buy this month?", ASKED)
        finally:
            roles.close()
    assert found.time_range is not None and found.time_range.end == date(2023, 5, 30)


@pytest.fixture(scope="module")
def store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


@pytest.fixture()
def scripted() -> Iterator[tuple[FakeOpenAI, QaScript]]:
    script = QaScript(time_ranges={"jazz concert": JAZZ_RANGE, "bikes": BACKWARDS})
    with FakeOpenAI(script) as server:
        yield server, script


def _run(
    store: EventStore, base_url: str, time_aware: str, prompts: PromptSet | None = None, k: int = 3
) -> QaRunOutcome:
    config = make_feed_config("rag", "RAW_TURNS", k, "round", "none", time_aware)
    roles = _roles(base_url)
    try:
        return run_qa(
            store,
            S_FILE,
            config,
            reader="direct",
            reader_llm=roles.client("answerer"),
            judge_llm=roles.client("judge"),
            time_llm=roles.client("memory") if time_aware == "llm" else None,
            say=lambda _: None,
            prompts=prompts,
        )
    finally:
        roles.close()


def _details(store: EventStore, qa_run_id: str) -> dict[str, dict[str, Any]]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (a:QaAnswer {qa_run_id: $id}) RETURN a.item_id AS item, a.details AS details", id=qa_run_id
        )
        return {r["item"].split(":")[1]: json.loads(r["details"]) for r in rows}


@pytest.mark.neo4j
def test_eval_qa_time_aware_llm_feeds_only_units_inside_the_range_and_counts_invalid_replies(
    store: EventStore, scripted: tuple[FakeOpenAI, QaScript]
) -> None:
    server, script = scripted
    outcome = _run(store, server.base_url, "llm")
    assert outcome.config["label"] == "rag RAW_TURNS@3 round +time(llm) / direct"
    details = _details(store, outcome.qa_run_id)
    jazz = details["qa0temp1"]
    assert jazz["time_range"] == {
        "source": "llm",
        "status": "range",
        "start": "2023-05-09",
        "end": "2023-05-13",
        "phrase": "the concert week",
    }
    assert jazz["n_after_time_pruning"] < jazz["n_candidates"]
    assert jazz["ranked_unit_ids"] and all("answer_temp1" in u for u in jazz["ranked_unit_ids"])
    with store.driver.session() as session:
        fed = session.run(
            "MATCH (a:QaAnswer {qa_run_id: $id})-[:FED]->(s:Session) WHERE a.item_id CONTAINS ':qa0temp1:' "
            "RETURN collect(s.id) AS ids",
            id=outcome.qa_run_id,
        ).single()["ids"]
    assert len(fed) == 1 and fed[0].endswith("answer_temp1")
    bikes = details["qa0upd01"]
    assert bikes["time_range"]["status"] == "invalid"
    assert bikes["n_after_time_pruning"] == bikes["n_candidates"] and "not narrowed" in bikes["time_note"]
    assert outcome.summary.time_ranges == {"range": 1, "none": 4, "invalid": 1}
    assert outcome.time_ranges == {"range": 1, "none": 4, "invalid": 1}
    assert any("1 of 6 question(s) stayed invalid" in n for n in outcome.notes)
    assert sum(1 for q, _ in script.time_range_calls if "bikes" in q) == 3  # asked, then re-asked twice
    assert "qa_time_range" in outcome.config["prompts"]


@pytest.mark.neo4j
def test_the_time_range_definition_and_its_prompt_are_part_of_the_run_id(
    store: EventStore, scripted: tuple[FakeOpenAI, QaScript], tmp_path: Path
) -> None:
    server, _script = scripted
    llm = _run(store, server.base_url, "llm", k=2)
    rules = _run(store, server.base_url, "rules", k=2)
    plain = _run(store, server.base_url, "none", k=2)
    assert len({llm.qa_run_id, rules.qa_run_id, plain.qa_run_id}) == 3
    assert "qa_time_range" not in rules.config["prompts"]  # the rules send no prompt
    assert rules.config["label"].endswith("+time(rules) / direct")
    # the rules read no range from "How many days ago ...": the jazz question is not narrowed by them
    assert read_time_range_by_rules("How many days ago did I attend the jazz concert?", ASKED).status == "none"
    assert rules.summary.time_ranges == {"none": 6}
    again = _run(store, server.base_url, "llm", k=2)
    assert again.qa_run_id == llm.qa_run_id and again.skipped_done == 6
    own = tmp_path / "time_range.txt"
    own.write_text(QA_TIME_RANGE.text.replace("You narrow a search", "You narrow the search"), encoding="utf-8")
    changed = _run(store, server.base_url, "llm", prompts=PromptSet.from_config([f"qa_time_range={own}"]), k=2)
    assert changed.qa_run_id != llm.qa_run_id
    assert changed.config["prompts"]["qa_time_range"]["source"] == str(own)


@pytest.mark.neo4j
def test_eval_retrieval_names_llm_time_rows_and_counts_invalid_readings(
    store: EventStore, scripted: tuple[FakeOpenAI, QaScript]
) -> None:
    from agents.memory.raw_turns.declare import RAW_TURNS
    from agents.retrieval_eval.expansion_rows import RetrievalExpansion
    from agents.retrieval_eval.pipeline import run_retrieval_eval
    from query.recipes import KEYWORD
    from query.retriever import Retriever

    server, script = scripted
    roles = _roles(server.base_url)
    retriever = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    try:
        expansion = RetrievalExpansion(time_aware="llm", time_reader=llm_time_range_reader(roles.client("memory")))
        report = run_retrieval_eval(
            store, retriever, "longmemeval", S_FILE, [RAW_TURNS, KEYWORD], [1, 3], expansion=expansion
        )
    finally:
        retriever.close()
        roles.close()
    rows = {r.item_id.split(":")[1]: r for r in report.rows if r.recipe == "RAW_TURNS+time(llm)"}
    assert rows and not [r for r in report.rows if r.recipe.endswith("+time")]
    jazz = rows["qa0temp1"]
    assert jazz.skipped is None and jazz.ranked and all("answer_temp1" in c for c in jazz.ranked)
    assert any("time range (llm): 2023-05-09..2023-05-13" in n for n in jazz.notes)
    assert any("time range (llm):" in n and "1 invalid" in n for n in report.notes)
    # each item is read once, whatever the number of recipes ranked for it
    questions = [q for q, _ in script.time_range_calls]
    assert questions.count("How many days ago did I attend the jazz concert?") == 1


@pytest.mark.neo4j
def test_time_aware_llm_without_an_llm_says_it_needs_one(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import app

    for role in ("", "ANSWERER_", "JUDGE_", "MEMORY_"):
        monkeypatch.delenv(f"COLABENCH_LLM_{role}BASE_URL", raising=False)
    runner = CliRunner()
    qa = runner.invoke(app, ["eval", "qa", "--path", str(S_FILE), "--feed", "rag", "--time-aware", "llm"])
    assert qa.exit_code != 0 and "--time-aware llm reads each question's time range with an LLM" in qa.output
    assert "Traceback" not in qa.output
    retrieval = runner.invoke(
        app, ["eval", "retrieval", "--dataset", "longmemeval", "--path", str(S_FILE), "--time-aware", "llm"]
    )
    assert retrieval.exit_code != 0 and "--time-aware llm reads time ranges with an LLM" in retrieval.output
    bad = runner.invoke(app, ["eval", "qa", "--path", str(S_FILE), "--feed", "rag", "--time-aware", "maybe"])
    assert bad.exit_code != 0 and "--time-aware must be one of none, rules, llm" in bad.output
