"""Evaluation runs on the real Neo4j with the tiny `mini` bundle and the fake OpenAI-compatible server:
every event is written and resolves, the round budget holds, metrics match a hand computation, a cached rerun
is identical with zero endpoint calls, faults are retried, a dead endpoint leaves resumable attempts, gold
never reaches the answerer, reports render, and the projection of run events replays identically."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.metrics.attempts import load_attempt_metrics, load_run_record, summarise_run
from agents.metrics.funnel import compute_funnel
from agents.prompts.registry import PromptSet
from agents.reports.data import build_report_data
from agents.reports.html import render_html
from agents.reports.markdown import render_markdown
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI, Fault, Reply
from tests.fake_openai.policy import AutoPolicy, schema_title

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

QUESTIONS = {
    "i-mini-01": "Can I give blood",
    "i-mini-02": "allergy skin prick test",
    "i-mini-03": "strength class",
    "i-mini-04": "flu jab",
}


def run_batch(
    store: EventStore,
    mini_retriever: Any,
    fake: FakeOpenAI,
    methods: str,
    cache_path: Path,
    *,
    judges: tuple[str, ...] = ("accuracy",),
    fresh: bool = True,
    items: int | None = None,
    concurrency: int = 2,
    cache_mode: str = "use",
    **settings: Any,
) -> tuple[BatchPlan, BatchReport]:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0, **settings}
    roles = LLMRoles(
        overrides={role: dict(base) for role in ("answerer", "judge", "state")},
        cache_path=cache_path,
        cache_mode=cache_mode,  # type: ignore[arg-type]
    )
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store,
        parse_methods(methods),
        RunOptions(dataset="mini", judges=judges, fresh=fresh, items=items),
        roles,
        prompts,
        encoder_id=store.encoder.encoder_id,
    )
    try:
        return plan, execute_batch(store, mini_retriever, plan, roles, prompts, concurrency=concurrency)
    finally:
        roles.close()


def count(store: EventStore, query: str, **params: Any) -> int:
    with store.driver.session() as session:
        record = session.run(query, **params).single()
    assert record is not None
    return int(record[0])


def item_of(body: dict[str, Any]) -> str:
    """Which item a request is about, from its request text only (histories and documents mention others)."""
    text = str(body["messages"][1]["content"])
    if "## Request" in text:
        text = text.split("## Request", 1)[1].split("\n## ", 1)[0]
    for item_id, needle in QUESTIONS.items():
        if needle in text:
            return item_id
    raise AssertionError(f"no known question in {text[:300]}")


# --- a scripted run with hand-computed metrics ------------------------------------------------------


def scripted(body: dict[str, Any]) -> Reply:
    """Per item: exactly which tools to call each round (RAW_TURNS: memory_search, kb_search, read)."""
    title = schema_title(body)
    item = item_of(body)
    if title == "AccuracyOut":
        if item == "i-mini-03":
            return Reply.text("this is not JSON")
        verdict = "pass" if item in ("i-mini-01", "i-mini-04") else "fail"
        failed = [] if verdict == "pass" else ["i-mini-02-r0"]
        return Reply.json({"verdict": verdict, "rationale": f"scripted {verdict}", "failed_requirement_ids": failed})
    if title == "ErrorAnalysisOut":
        return Reply.json(
            {"main_category": "context_underuse", "secondary_categories": [], "visibility": "partial", "rationale": "x"}
        )
    rounds = sum(1 for m in body["messages"] if m.get("role") == "assistant" and m.get("tool_calls"))
    plans: dict[str, list[list[tuple[str, dict[str, Any]]]]] = {
        "i-mini-01": [
            [("kb_search", {"query": "giving blood after a tattoo", "k": 20})],
            [("read", {"doc_id": "mini-blood-donation", "start_line": 1, "n_lines": 8})],
        ],
        "i-mini-02": [
            [("kb_search", {"query": "   "}), ("kb_search", {"query": "allergy skin prick test", "k": 20})],
            [("read", {"doc_id": "mini-clinic-hours"})],
        ],
        "i-mini-03": [[("memory_search", {"query": "knee surgery"})]],
        "i-mini-04": [
            [("kb_search", {"query": "tattoo aftercare swimming", "k": 1})],
            [("kb_search", {"query": "seasonal flu vaccine", "k": 20})],
            [("read", {"doc_id": "mini-flu-vaccine", "start_line": 4, "n_lines": 2})],
        ],
    }
    steps = plans[item]
    if body.get("tools") and rounds < len(steps):
        return Reply.tools(*steps[rounds])
    cite = {"i-mini-01": "[mini-blood-donation]", "i-mini-04": "[mini-flu-vaccine]"}.get(item, "")
    return Reply.text(f"Scripted answer for {item} {cite}".strip())


@pytest.fixture(scope="module")
def scripted_run(
    mini_store: EventStore, mini_retriever: Any, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    with FakeOpenAI(scripted) as fake:
        plan, report = run_batch(
            mini_store,
            mini_retriever,
            fake,
            "RAW_TURNS",
            tmp_path_factory.mktemp("cache") / "c.sqlite",
            judges=("accuracy", "error_analysis"),
            invalid_output_retries=1,
        )
        requests = list(fake.requests)
    return {"plan": plan, "report": report, "run_id": plan.runs[0].run_id, "requests": requests}


def test_scripted_run_premises_hold(mini_retriever: Any) -> None:
    """The hand computation below assumes these retrieval facts about the mini knowledge base."""
    top = mini_retriever.search("HYBRID", "tattoo aftercare swimming", profile_id="mini-p-sam", k=1)
    assert [d.doc_id for d in top.documents] != ["mini-flu-vaccine"]
    for query, gold in (
        ("giving blood after a tattoo", "mini-blood-donation"),
        ("seasonal flu vaccine", "mini-flu-vaccine"),
    ):
        wide = mini_retriever.search("HYBRID", query, profile_id="mini-p-sam", k=20)
        assert gold in {d.doc_id for d in wide.documents}
    wide = mini_retriever.search("HYBRID", "allergy skin prick test", profile_id="mini-p-sam", k=20)
    assert "mini-allergy-testing" in {d.doc_id for d in wide.documents}


def test_metrics_match_the_hand_computation(mini_store: EventStore, scripted_run: dict[str, Any]) -> None:
    run = load_run_record(mini_store.driver, "neo4j", scripted_run["run_id"])
    rows = {r.item_id: r for r in load_attempt_metrics(mini_store.driver, "neo4j", run)}
    metrics = summarise_run(run, list(rows.values()))
    # Read Recall: items 1 and 4 read their gold document (4 only lines 4-5), item 2 read another, item 3 none.
    assert [rows[i].read_recall for i in sorted(rows)] == [1.0, 0.0, 0.0, 1.0]
    assert metrics.read_recall == pytest.approx(0.5)
    # First successful knowledge search: item 2's first call failed (empty query), its second (same round) hit;
    # item 3 only searched memory (a miss); item 4's first search returned one non-gold document.
    assert [rows[i].first_search_hit for i in sorted(rows)] == [True, True, False, False]
    assert metrics.first_search_hit_rate == pytest.approx(0.5)
    assert metrics.search_hit_rate == pytest.approx(0.75)
    assert [rows[i].turns for i in sorted(rows)] == [3, 3, 2, 4]
    assert metrics.avg_turns == pytest.approx(3.0)
    # Accuracy: passes 1 and 4; 2 failed; 3's judge reply stayed invalid -> needs_adjudication, counted.
    assert (metrics.n_pass, metrics.n_fail, metrics.n_needs_adjudication) == (2, 1, 1)
    assert metrics.n_invalid_judge_replies == 1
    assert metrics.accuracy == pytest.approx(0.5)
    assert metrics.errors == {"context_underuse": {"partial": 1}}
    assert rows["i-mini-02"].n_failed_calls == 1


def test_every_event_is_written_and_every_returned_id_resolves(
    mini_store: EventStore, scripted_run: dict[str, Any]
) -> None:
    run_id = scripted_run["run_id"]
    by_type = {
        t: count(
            mini_store, "MATCH (e:Event {type: $t}) WHERE e.payload CONTAINS $run RETURN count(e)", t=t, run=run_id
        )
        for t in (
            "RunStarted",
            "AttemptStarted",
            "ToolCalled",
            "AnswerGiven",
            "AttemptFinished",
            "AnswerJudged",
            "RunFinished",
        )
    }
    assert by_type == {
        "RunStarted": 1,
        "AttemptStarted": 4,
        "ToolCalled": 2 + 3 + 1 + 3,
        "AnswerGiven": 4,
        "AttemptFinished": 4,
        "AnswerJudged": 4 + 1,  # accuracy for all, error analysis for the one failure
        "RunFinished": 1,
    }
    assert (
        count(mini_store, "MATCH (:Run {id: $r})<-[:IN_RUN]-(a:Attempt)-[:OF_ITEM]->(:Item) RETURN count(a)", r=run_id)
        == 4
    )
    read = "MATCH (:Attempt {id: $a})-[:CALLED]->(c:ToolCall {tool: 'read'})-[x:RETURNED]->(d:Document) "
    assert (
        count(
            mini_store,
            read + "WHERE d.id = 'mini-flu-vaccine' AND x.start_line = 4 AND x.end_line = 5 RETURN count(x)",
            a=f"{run_id}:i-mini-04",
        )
        == 1
    )
    failed = "MATCH (:Attempt {id: $a})-[:CALLED]->(c:ToolCall {ok: false}) RETURN c.ordinal, c.round, c.error"
    with mini_store.driver.session() as session:
        rows = [dict(r) for r in session.run(failed, a=f"{run_id}:i-mini-02")]
    assert len(rows) == 1 and rows[0]["c.ordinal"] == 0 and "empty" in rows[0]["c.error"]
    memory = "MATCH (:Attempt {id: $a})-[:CALLED]->(:ToolCall {tool: 'memory_search'})-[:RETURNED]->(m:Memory) "
    assert (
        count(mini_store, memory + "WHERE m.profile_id = 'mini-p-ravi' RETURN count(m)", a=f"{run_id}:i-mini-03") >= 1
    )
    judged = (
        "MATCH (:Attempt {id: $a})-[:JUDGED_BY]->(j:Judgment {kind: 'accuracy'}) "
        "RETURN j.verdict, j.valid, j.prompt_sha256"
    )
    with mini_store.driver.session() as session:
        record = session.run(judged, a=f"{run_id}:i-mini-03").single()
    assert record is not None
    assert (record["j.verdict"], record["j.valid"]) == ("needs_adjudication", False)
    assert record["j.prompt_sha256"] == PromptSet()["judge_accuracy"].sha256


def test_gold_never_reaches_the_answerer(mini_store: EventStore, scripted_run: dict[str, Any]) -> None:
    with mini_store.driver.session() as session:
        secrets = [
            r["t"]
            for r in session.run(
                "MATCH (i:Item {dataset: 'mini'}) RETURN i.reference_answer AS t UNION "
                "MATCH (:Item {dataset: 'mini'})-[:HAS_REQUIREMENT]->(r) RETURN r.text AS t UNION "
                "MATCH (f:Fact) WHERE f.profile_id STARTS WITH 'mini' RETURN f.text AS t"
            )
        ]
    answerer = [b for b in scripted_run["requests"] if schema_title(b) is None]
    assert len(answerer) == 3 + 3 + 2 + 4
    text = json.dumps(answerer)
    leaked = [s for s in secrets if s and s in text]
    assert leaked == []
    judge_text = json.dumps([b for b in scripted_run["requests"] if schema_title(b) == "AccuracyOut"])
    assert any(s in judge_text for s in secrets)  # the judge, by contrast, sees the reference


def test_judge_saw_exactly_what_the_graph_records(mini_store: EventStore, scripted_run: dict[str, Any]) -> None:
    """The judge's evidence was rendered from the attempt in memory; re-rendering it from the graph must give
    the very same prompt (and the tool names are hidden from the blind judge)."""
    from agents.judging.reference import build_material
    from agents.prompts.template import render_messages

    attempt_id = f"{scripted_run['run_id']}:i-mini-02"
    material = build_material(mini_store.driver, "neo4j", attempt_id)
    expected = render_messages(PromptSet()["judge_accuracy"], **material.values())
    sent = [b for b in scripted_run["requests"] if schema_title(b) == "AccuracyOut" and item_of(b) == "i-mini-02"]
    assert sent and sent[0]["messages"] == expected
    assert "kb_search" not in expected[1]["content"] and "round 1, call 2: search" in expected[1]["content"]


def test_funnel_shows_where_the_evidence_chain_broke(mini_store: EventStore, scripted_run: dict[str, Any]) -> None:
    run = load_run_record(mini_store.driver, "neo4j", scripted_run["run_id"])
    funnel = {f.requirement_id: f for f in compute_funnel(mini_store.driver, "neo4j", run)}
    first = funnel["i-mini-01-r0"]
    assert first.steps == {
        "disclosed": "yes",
        "remembered": "yes",
        "retrieved": "no",  # item 1 never searched memory
        "exposed": "yes",
        "read": "yes",
        "cited": "yes",
    }
    assert first.broke_at == "retrieved"
    assert funnel["i-mini-02-r0"].steps["read"] == "no" and funnel["i-mini-02-r0"].steps["exposed"] == "yes"
    no_fact = funnel["i-mini-04-r1"]
    assert (no_fact.kind, no_fact.steps["disclosed"], no_fact.steps["read"]) == ("knowledge only", "n/a", "yes")
    assert funnel["i-mini-04-r1"].broke_at is None


# --- the budget, cache, faults, resume ---------------------------------------------------------------


def test_agent_stops_after_four_tool_rounds_and_answers_without_tools(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy(greedy=True)) as fake:
        plan, _ = run_batch(mini_store, mini_retriever, fake, "HYBRID", tmp_path / "c.sqlite", judges=(), items=1)
        answerer = [b for b in fake.requests if schema_title(b) is None]
    assert [bool(b.get("tools")) for b in answerer] == [True, True, True, True, False]
    assert "used all 4 rounds" in answerer[-1]["messages"][-1]["content"]
    attempt = f"{plan.runs[0].run_id}:{plan.item_ids[0]}"
    with mini_store.driver.session() as session:
        record = session.run(
            "MATCH (a:Attempt {id: $a}) RETURN a.rounds AS rounds, a.turns AS turns, a.finish AS finish, "
            "COUNT { (a)-[:CALLED]->() } AS calls",
            a=attempt,
        ).single()
    assert record is not None
    assert (record["rounds"], record["turns"], record["finish"], record["calls"]) == (4, 5, "forced_final", 4)


def test_cached_rerun_is_identical_with_zero_endpoint_calls(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    with FakeOpenAI(AutoPolicy()) as fake:
        judges = ("accuracy", "quality", "error_analysis")
        methods = "MEMKB_RAW_TURNS,HYBRID"
        first_plan, _ = run_batch(mini_store, mini_retriever, fake, methods, cache, judges=judges, items=2)
        calls = fake.request_count
        second_plan, second = run_batch(mini_store, mini_retriever, fake, methods, cache, judges=judges, items=2)
        assert fake.request_count == calls
    assert calls > 0 and second.usage["total"]["endpoint_requests"] == 0
    assert second.usage["total"]["cache_hits"] == second.usage["total"]["calls"] > 0
    assert first_plan.batch_id != second_plan.batch_id

    def outcome(plan: BatchPlan) -> list[dict[str, Any]]:
        out = []
        for run in plan.runs:
            record = load_run_record(mini_store.driver, "neo4j", run.run_id)
            rows = load_attempt_metrics(mini_store.driver, "neo4j", record)
            metrics = summarise_run(record, rows).model_dump(exclude={"run_id"})
            out.append({"metrics": metrics, "rows": [r.model_dump(exclude={"run_id"}) for r in rows]})
        return out

    for a, b in zip(outcome(first_plan), outcome(second_plan), strict=True):
        assert a["metrics"] == b["metrics"]
        for row_a, row_b in zip(a["rows"], b["rows"], strict=True):
            assert row_a == row_b
    with mini_store.driver.session() as session:
        answers = [
            sorted(
                r["answer"]
                for r in session.run(
                    "MATCH (a:Attempt)-[:IN_RUN]->(:Run {batch_id: $b}) RETURN a.answer AS answer", b=plan.batch_id
                )
            )
            for plan in (first_plan, second_plan)
        ]
    assert answers[0] == answers[1]


def test_faults_during_a_run_are_retried_and_counted(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        fake.inject(Fault.rate_limit(0), Fault.server_error(), Fault.malformed_body(), Fault.timeout(30.0))
        plan, report = run_batch(
            mini_store,
            mini_retriever,
            fake,
            "HYBRID",
            tmp_path / "c.sqlite",
            judges=("accuracy",),
            timeout_s=5.0,  # generous: only the timeout fault (30 s) exceeds it, whatever the load
            concurrency=1,
        )
    assert report.runs[0].status == "finished"
    assert report.runs[0].counts["answered"] == 4
    assert report.usage["total"]["retries"] == 4
    run = load_run_record(mini_store.driver, "neo4j", plan.runs[0].run_id)
    assert run.usage["total"]["retries"] == 4  # recorded in the run's own usage (RunFinished)


def test_dead_endpoint_leaves_error_attempts_that_a_rerun_answers(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    healthy = AutoPolicy()
    broken = {"on": True}

    def flaky(body: dict[str, Any]) -> Reply:
        if broken["on"]:
            raise RuntimeError("backend down")  # the fake answers HTTP 500
        return healthy(body)

    cache = tmp_path / "c.sqlite"
    with FakeOpenAI(flaky) as fake:
        plan, report = run_batch(mini_store, mini_retriever, fake, "HYBRID", cache, fresh=False, items=2, max_retries=1)
        assert report.runs[0].status == "incomplete"
        assert report.runs[0].counts["errors"] == 2
        run_id = plan.runs[0].run_id
        assert count(mini_store, "MATCH (a:Attempt {run_id: $r, status: 'error'}) RETURN count(a)", r=run_id) == 2
        broken["on"] = False
        plan2, report2 = run_batch(
            mini_store, mini_retriever, fake, "HYBRID", cache, fresh=False, items=2, max_retries=1
        )
    assert plan2.runs[0].run_id == run_id  # same command, same run: resumed
    assert report2.runs[0].status == "finished" and report2.runs[0].counts["answered"] == 2
    assert count(mini_store, "MATCH (a:Attempt {run_id: $r}) WHERE a.error IS NULL RETURN count(a)", r=run_id) == 2
    assert (
        count(
            mini_store,
            "MATCH (e:Event {type: 'AttemptFinished'}) WHERE e.payload CONTAINS $r RETURN count(e)",
            r=run_id,
        )
        == 2
    )  # one AttemptFinished per attempt, after one AttemptFailed each
    assert (
        count(
            mini_store, "MATCH (e:Event {type: 'AttemptFailed'}) WHERE e.payload CONTAINS $r RETURN count(e)", r=run_id
        )
        == 2
    )
    assert (
        count(mini_store, "MATCH (e:Event {type: 'RunFinished'}) WHERE e.payload CONTAINS $r RETURN count(e)", r=run_id)
        == 1
    )
    assert (
        count(
            mini_store,
            "MATCH (e:Event {type: 'RunLeftIncomplete'}) WHERE e.payload CONTAINS $r RETURN count(e)",
            r=run_id,
        )
        == 1
    )


def test_state_summary_cites_only_turns_of_the_profile(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()
    asked = {"n": 0}

    def sloppy_states(body: dict[str, Any]) -> Reply:
        if schema_title(body) == "StateSummaryOut" and asked["n"] == 0:
            asked["n"] += 1
            return Reply.json(
                {
                    "states": [
                        {
                            "text": "x",
                            "concerns": "user",
                            "time_context": "",
                            "unresolved": [],
                            "source_turn_ids": ["no-such-turn"],
                        }
                    ]
                }
            )
        return policy(body)

    with FakeOpenAI(sloppy_states) as fake:
        plan, _ = run_batch(
            mini_store, mini_retriever, fake, "MEMKB_RAW_TURNS", tmp_path / "c.sqlite", judges=(), items=1
        )
        repairs = [b for b in fake.requests if "no-such-turn" in json.dumps(b)]
    assert repairs and "not turn ids of this history" in repairs[0]["messages"][-1]["content"]
    with mini_store.driver.session() as session:
        bad = session.run(
            "MATCH (p:Profile)-[:HAS_STATE]->(s:State {active: true})-[:DERIVED_FROM]->(t:Turn) "
            "WHERE t.profile_id <> p.id RETURN count(*) AS n"
        ).single()
    assert bad is not None and bad["n"] == 0
    run = load_run_record(mini_store.driver, "neo4j", plan.runs[0].run_id)
    summaries = run.config["state_summaries"]
    assert set(summaries) == {"mini-p-sam"} and summaries["mini-p-sam"].startswith("memkb-mini-p-sam-")
    # the run says what its search recipe's keyword channel meant (issue 29)
    keyword = run.config["keyword_channel"]
    assert set(keyword) == {"MEMKB_RAW_TURNS"} and keyword["MEMKB_RAW_TURNS"]["analyzer"] == "english"
    assert keyword["MEMKB_RAW_TURNS"]["definition"].startswith("english: ")
    assert keyword["MEMKB_RAW_TURNS"]["padding"] is False
    prompt_states = [
        b
        for b in fake.requests
        if schema_title(b) is None and "What earlier conversations established" in json.dumps(b)
    ]
    assert prompt_states, "the MemKB system prompt carries S(H)"
    system_prompt = prompt_states[0]["messages"][0]["content"]
    assert re.search(r"- \[memkb-mini-p-sam-[0-9a-f]+(-r\d+)?-s01\] ", system_prompt), system_prompt[-800:]


# --- reports and replay -----------------------------------------------------------------------------


def test_report_holds_metrics_and_an_evidence_trace_per_item(
    mini_store: EventStore, mini_retriever: Any, scripted_run: dict[str, Any], tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        plan, _ = run_batch(
            mini_store, mini_retriever, fake, "HYBRID", tmp_path / "c.sqlite", judges=("accuracy", "error_analysis")
        )
    run_ids = [scripted_run["run_id"], plan.runs[0].run_id]
    data = build_report_data(mini_store.driver, "neo4j", run_ids, resamples=500)
    assert [r["run_id"] for r in data["runs"]] == run_ids
    assert data["runs"][0]["metrics"]["read_recall"] == pytest.approx(0.5)
    comparison = data["comparisons"][0]
    assert comparison["n_common_items"] == 4 and comparison["n_clusters"] == 2
    assert comparison["overall"]["accuracy"]["gain"]["resamples"] == 500
    item = next(i for i in data["items"] if i["item_id"] == "i-mini-02")
    trace = item["attempts"][run_ids[0]]
    assert [c["tool"] for c in trace["calls"]] == ["kb_search", "kb_search", "read"]
    assert trace["judgments"][0]["kind"] == "accuracy" and trace["verdict"] == "fail"
    assert item["requirements"][0]["statements"][0]["id"] == "mini-s-2-t2"
    assert "stop" in item["requirements"][0]["spans"][0]["text"].lower() or item["requirements"][0]["spans"][0]["text"]
    html = render_html(data)
    assert f"/browser#node={run_ids[0]}%3Ai-mini-02" in html
    assert html.count("<details><summary><code>") == 4
    assert "<svg" in html and "pending adj." in html
    markdown = render_markdown(data)
    assert "| Raw turns + Hybrid |" in markdown and "50.00%" in markdown
    json.dumps(data)


def test_run_events_replay_to_the_same_projection(mini_store: EventStore) -> None:
    from graph.fingerprint import compute_fingerprint
    from graph.replay import drop_projection, replay

    assert count(mini_store, "MATCH (c:ToolCall) RETURN count(c)") > 0
    before = compute_fingerprint(mini_store.driver)
    drop_projection(mini_store)
    replay(mini_store)
    after = compute_fingerprint(mini_store.driver)
    assert after.digest == before.digest, before.differences(after)


def test_a_fresh_batch_resumes_by_its_id_and_another_configuration_is_refused(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    broken = {"on": True}
    healthy = AutoPolicy()

    def flaky(body: dict[str, Any]) -> Reply:
        if broken["on"]:
            raise RuntimeError("backend down")
        return healthy(body)

    with FakeOpenAI(flaky) as fake:
        plan, report = run_batch(
            mini_store, mini_retriever, fake, "HYBRID", tmp_path / "c.sqlite", fresh=True, items=1, max_retries=0
        )
        assert report.runs[0].status == "incomplete"
        broken["on"] = False
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(
            overrides={r: dict(base, max_retries=0) for r in ("answerer", "judge", "state")},
            cache_path=tmp_path / "c.sqlite",
        )
        assert mini_store.encoder is not None
        try:
            again = plan_batch(
                mini_store,
                parse_methods("HYBRID"),
                RunOptions(dataset="mini", judges=("accuracy",), items=1, resume_batch=plan.batch_id),
                roles,
                PromptSet(),
                encoder_id=mini_store.encoder.encoder_id,
            )
            assert again.batch_id == plan.batch_id and again.runs[0].run_id == plan.runs[0].run_id
            resumed = execute_batch(mini_store, mini_retriever, again, roles, PromptSet(), concurrency=1)
            assert resumed.runs[0].status == "finished"
            with pytest.raises(ValueError, match="another configuration"):
                plan_batch(
                    mini_store,
                    parse_methods("HYBRID"),
                    RunOptions(dataset="mini", judges=("accuracy",), items=2, resume_batch=plan.batch_id),
                    roles,
                    PromptSet(),
                    encoder_id=mini_store.encoder.encoder_id,
                )
            with pytest.raises(ValueError, match="no batch"):
                plan_batch(
                    mini_store,
                    parse_methods("HYBRID"),
                    RunOptions(dataset="mini", judges=("accuracy",), items=1, resume_batch="mini-nosuch"),
                    roles,
                    PromptSet(),
                    encoder_id=mini_store.encoder.encoder_id,
                )
        finally:
            roles.close()
