"""`eval qa --system` (the memory-systems QA line) on the real Neo4j with the fake OpenAI server as answerer,
judge and memory builder: a LoCoMo slice (tests/fixtures/locomo/locomo_mini.json: 2 conversations, 8
questions of categories 1-5, two of them adversarial) answered from the memories of two systems (raw_turns and
A-MEM), J over judge runs whose verdicts differ run to run, category 5 kept out of J/F1/BLEU-1 and reported as
the abstention rate, fed memory ids that resolve to Memory nodes and their source turns, verdicts linked to
their exact requests, systems side by side, and a rerun that asks nothing again."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from agents.llm.exchanges import ExchangeStore
from agents.llm.roles import LLMRoles
from agents.qa.locomo_scores import bleu1_score, f1_score
from agents.qa.memory_systems import MemoryQaOutcome, render_memories, resolve_k, run_memory_qa
from agents.qa.memory_systems_summary import collect_memory_runs, mean_std
from agents.reports.sections.qa_memory_systems import collect_groups, memory_systems_html
from graph.store import EventStore
from tests.conftest import emptied_store
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.amem_script import AmemScript
from tests.fake_openai.memory_systems_qa_script import MemorySystemsQaScript
from tests.paths import FIXTURES

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

LOCOMO = FIXTURES / "locomo" / "locomo_mini.json"
N_QUESTIONS = 8
N_ADVERSARIAL = 2
JUDGE_RUNS = 3
# The answer each system gives where a test scripts it (else the fake answers with the best-matching memory).
SCRIPTED = {
    "raw_turns": {"support group": "7 May 2023", "realize": "Not mentioned in the conversation."},
    "amem": {
        "support group": "Some day in June.",
        "realize": "She realised self-care is important.",
        "paint the sunrise": "Yes, Caroline painted it.",
    },
}
# Judge run 2 grades the "study" question the other way round: J differs across runs.
FLIP = {"study": {2}}


@pytest.fixture(scope="module")
def store(driver: Driver, encoder: Any) -> EventStore:
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


def _run(
    store: EventStore,
    system: str,
    script: MemorySystemsQaScript,
    cache: Path,
    judge_runs: int = JUDGE_RUNS,
    **options: Any,
) -> MemoryQaOutcome:
    with FakeOpenAI(script) as server:
        settings = {
            "base_url": server.base_url,
            "model": "fake-model",
            "max_retries": 0,
            "retry_base_s": 0.0,
            "timeout_s": 10.0,
        }
        roles = LLMRoles(
            overrides={"answerer": settings, "judge": settings, "memory": settings},
            cache_path=cache / "llm.sqlite",
            exchanges_path=cache / "exchanges.sqlite",
        )
        try:
            return run_memory_qa(
                store,
                LOCOMO,
                dataset="locomo",
                system=system,
                answer_llm=roles.client("answerer"),
                judge_llms=[roles.repeat_client("judge", n) for n in range(1, judge_runs + 1)],
                memory_llm=roles.client("memory"),
                judge_runs=judge_runs,
                say=lambda _: None,
                **options,
            )
        finally:
            roles.close()


def _script(system: str) -> MemorySystemsQaScript:
    return MemorySystemsQaScript(answers=dict(SCRIPTED[system]), flip=dict(FLIP), fallback=AmemScript())


@pytest.fixture(scope="module")
def runs(store: EventStore, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both systems run once (the cache and exchange store shared by the module's reruns)."""
    cache = tmp_path_factory.mktemp("memory-qa")
    out: dict[str, Any] = {"cache": cache}
    for system in ("raw_turns", "amem"):
        script = _script(system)
        out[system] = (_run(store, system, script, cache), script)
    return out


def _rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


def test_each_system_answers_every_question_and_judges_it_once_per_run(runs: dict[str, Any]) -> None:
    for system in ("raw_turns", "amem"):
        outcome, script = runs[system]
        assert outcome.answered_now == N_QUESTIONS
        assert outcome.judged_now == N_QUESTIONS * JUDGE_RUNS
        # the second system's judge requests that equal the first's (same question, same answer) come from the
        # response cache; the first system's all reach the endpoint
        if system == "raw_turns":
            assert script.judge_calls == N_QUESTIONS * JUDGE_RUNS
        else:
            assert 0 < script.judge_calls <= N_QUESTIONS * JUDGE_RUNS
        assert len(script.answer_calls) == N_QUESTIONS
        summary = outcome.summary
        assert summary.n_answered == N_QUESTIONS and summary.runs_complete == JUDGE_RUNS
        assert [c.category for c in summary.categories] == ["1", "2", "3", "4"]
    raw, amem = runs["raw_turns"][0], runs["amem"][0]
    assert raw.qa_run_id != amem.qa_run_id
    # the k each system's own evaluation uses, with where it came from
    assert (raw.config["k"], amem.config["k"]) == (resolve_k("raw_turns", None)[0], 10)
    assert "A-MEM" in amem.config["k_source"]
    # raw turns take no LLM call to add memories; A-MEM pays per pair, counted from the graph
    assert raw.summary.build["llm_calls"] == 0 and amem.summary.build["llm_calls"] > 0
    assert amem.summary.build["tokens_in"] > 0 and amem.summary.build["live_memories"] > 0


def test_category_5_is_left_out_of_j_f1_and_bleu_and_reported_as_abstention(runs: dict[str, Any]) -> None:
    raw = runs["raw_turns"][0].summary
    assert raw.overall.n == N_QUESTIONS - N_ADVERSARIAL
    assert raw.adversarial.n == N_ADVERSARIAL
    scored = [r for r in raw.rows if not r.adversarial]
    assert len(scored) == N_QUESTIONS - N_ADVERSARIAL and all(r.category != "5" for r in scored)
    assert raw.overall.f1 == pytest.approx(sum(f1_score(r.answer or "", r.reference) for r in scored) / len(scored))
    assert raw.overall.bleu1 == pytest.approx(
        sum(bleu1_score(r.answer or "", r.reference) for r in scored) / len(scored)
    )
    # raw_turns declines the charity-race question; the sunrise question is answered from a memory: 1 of 2
    assert raw.adversarial.j_runs == [0.5, 0.5, 0.5]
    # A-MEM answers the charity-race premise as if it were true
    amem = runs["amem"][0].summary
    assert amem.adversarial.j_mean is not None and amem.adversarial.j_mean < raw.adversarial.j_mean


def test_j_is_the_mean_and_std_of_per_run_accuracy_when_runs_disagree(runs: dict[str, Any]) -> None:
    summary = runs["raw_turns"][0].summary
    per_run = summary.overall.j_runs
    assert len(per_run) == JUDGE_RUNS
    # run 2 flips the "study" verdict only: exactly one of six questions changes
    assert per_run[0] == per_run[2] and abs(per_run[1] - per_run[0]) == pytest.approx(1 / 6)
    assert summary.overall.j_mean == pytest.approx(statistics.mean(per_run))
    assert summary.overall.j_std == pytest.approx(statistics.stdev(per_run)) and summary.overall.j_std > 0
    by_category = {c.category: c for c in summary.categories}
    assert by_category["1"].j_std is not None and by_category["1"].j_std > 0  # "study" is category 1
    assert by_category["2"].j_runs == [1.0, 1.0, 1.0]  # "7 May 2023" is the gold date
    assert mean_std([1.0]) == (1.0, None)


def test_fed_memory_ids_resolve_to_memories_and_their_source_turns(store: EventStore, runs: dict[str, Any]) -> None:
    for system in ("raw_turns", "amem"):
        outcome = runs[system][0]
        answers = _rows(
            store,
            "MATCH (a:QaAnswer {qa_run_id: $id})-[:ANSWERS]->(i:Item) "
            "OPTIONAL MATCH (a)-[f:FED_MEMORY]->(m:Memory) "
            "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn) "
            "RETURN a.id AS answer, i.profile_id AS profile, a.fed_unit_ids AS fed, "
            "collect(DISTINCT m.id) AS memories, collect(DISTINCT m.system) AS systems, "
            "collect(DISTINCT t.profile_id) AS turn_profiles, collect(DISTINCT t.id) AS turns",
            id=outcome.qa_run_id,
        )
        assert len(answers) == N_QUESTIONS
        for a in answers:
            assert a["fed"] and sorted(a["memories"]) == sorted(a["fed"])
            assert a["systems"] == [system]
            assert a["turns"] and a["turn_profiles"] == [a["profile"]]
        # what the answerer saw is those memories' texts, best first
        _question, lines = runs[system][1].answer_calls[0]
        assert lines and all(line.startswith("[") for line in lines)  # each dated by its source session


def test_every_verdict_links_to_its_exact_request(store: EventStore, runs: dict[str, Any]) -> None:
    outcome = runs["raw_turns"][0]
    exchanges = ExchangeStore(runs["cache"] / "exchanges.sqlite")
    verdicts = _rows(
        store,
        "MATCH (j:QaJudgment {qa_run_id: $id}) RETURN j.item_id AS item, j.judge_run AS run, j.exchange AS exchange",
        id=outcome.qa_run_id,
    )
    assert len(verdicts) == N_QUESTIONS * JUDGE_RUNS
    assert sorted({v["run"] for v in verdicts}) == [1, 2, 3]
    for v in verdicts[:4]:
        record = exchanges.record(v["exchange"])
        request = exchanges.request(record)
        assert "Gold answer:" in request["messages"][-1]["content"]


def test_systems_side_by_side_and_the_questions_they_disagree_on(store: EventStore, runs: dict[str, Any]) -> None:
    groups = collect_memory_runs(store)
    assert len(groups) == 1 and groups[0]["n_items"] == N_QUESTIONS
    labels = sorted(s.label for s in groups[0]["runs"])
    assert labels == ["amem@10", f"raw_turns@{resolve_k('raw_turns', None)[0]}"]
    assert groups[0]["notes"] == []  # the same answering and judging models for both systems
    split = {d.question: d for d in groups[0]["disagreements"]}
    # scripted: raw_turns gives the gold date, A-MEM does not
    assert "When did Caroline go to the support group?" in split
    entry = split["When did Caroline go to the support group?"]
    assert {v["correct"] for v in entry.by_system.values()} == {True, False}
    assert all(v["answer_exchange"] and len(v["verdict_exchanges"]) == JUDGE_RUNS for v in entry.by_system.values())
    # the report section: both systems' columns, the split question with both answers and the request links
    html = memory_systems_html(collect_groups(store.driver, store.database))
    assert "amem@10" in html and "raw_turns@" in html
    assert "Some day in June." in html and 'href="/exchange#' in html
    # no gold: the adversarial question's record answer ("No") is never shown as a reference
    assert "Gold answer" not in html and "reference" not in html.lower()


def test_a_rerun_asks_nothing_again_and_more_runs_add_only_the_missing_verdicts(
    store: EventStore, runs: dict[str, Any]
) -> None:
    first = runs["raw_turns"][0]
    script = _script("raw_turns")
    again = _run(store, "raw_turns", script, runs["cache"])
    assert again.qa_run_id == first.qa_run_id
    assert (again.answered_now, again.judged_now, again.skipped_done) == (0, 0, N_QUESTIONS)
    assert script.answer_calls == [] and script.judge_calls == 0
    more = _run(store, "raw_turns", script, runs["cache"], judge_runs=4)
    assert more.qa_run_id == first.qa_run_id
    assert (more.answered_now, more.judged_now) == (0, N_QUESTIONS)
    assert script.answer_calls == [] and script.judge_calls == N_QUESTIONS
    assert len(more.summary.overall.j_runs) == 4


def test_memories_render_one_dated_line_each() -> None:
    assert render_memories([{"text": "a\nb", "date": "8 May"}, {"text": "c", "date": None}]) == "- [8 May] a b\n- c"
    assert render_memories([]) == "(no memories)"


def test_longmemeval_questions_answer_from_each_haystacks_memory_with_abstention_apart(
    store: EventStore, tmp_path: Path
) -> None:
    script = MemorySystemsQaScript(answers={"cat": "You never said you have a cat: not mentioned."})
    path = FIXTURES / "longmemeval_qa_mini" / "longmemeval_s_qa.json"
    with FakeOpenAI(script) as server:
        settings = {"base_url": server.base_url, "model": "fake-model", "max_retries": 0, "retry_base_s": 0.0}
        roles = LLMRoles(overrides={"answerer": settings, "judge": settings}, cache_mode="off")
        try:
            outcome = run_memory_qa(
                store,
                path,
                dataset="longmemeval",
                system="raw_turns",
                answer_llm=roles.client("answerer"),
                judge_llms=[roles.client("judge")],
                judge_runs=1,
                say=lambda _: None,
            )
        finally:
            roles.close()
    summary = outcome.summary
    assert outcome.answered_now == 6 and summary.runs_complete == 1
    assert summary.adversarial is not None and summary.adversarial.n == 1 and summary.adversarial.j_runs == [1.0]
    assert summary.overall.n == 5 and summary.overall.j_std is None  # one run: no spread
    assert {c.category for c in summary.categories} == {
        "single-session-user",
        "temporal-reasoning",
        "knowledge-update",
        "single-session-preference",
        "single-session-assistant",
    }
    # each question searched its own haystack only
    rows = _rows(
        store,
        "MATCH (a:QaAnswer {qa_run_id: $id})-[:ANSWERS]->(i:Item), (a)-[:FED_MEMORY]->(m:Memory) "
        "RETURN i.profile_id AS profile, collect(DISTINCT m.profile_id) AS memory_profiles",
        id=outcome.qa_run_id,
    )
    assert rows and all(r["memory_profiles"] == [r["profile"]] for r in rows)
