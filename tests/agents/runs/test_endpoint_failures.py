"""Runs against an endpoint that misbehaves the way real servers do, on the real Neo4j with the `mini` bundle
and the fake OpenAI-compatible server: a failed prerequisite of one profile fails only the attempts that need
it (recorded with the reason) and `retry_failed` answers them later; a judge refused with HTTP 400 leaves an
EndpointFailed event and a non-zero exit; answers cut by `length` or left as tool-call text are flagged; Ctrl-C
stops a CLI run with nothing half-written (also with a request the endpoint sits on, held there until the
CLI has exited); the cache
namespace scopes the cache key; a cut structured reply is asked again with twice the budget, never cached."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agents.llm.cache import request_key
from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.metrics.attempts import load_run_record
from agents.prompts.registry import PromptSet
from agents.reports.data import build_report_data
from agents.reports.markdown import render_markdown
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.cypher_files import load_cypher
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.barriers import AllButTheFirstItems, mini_questions
from tests.fake_openai.policy import AutoPolicy, request_text, schema_title
from tests.fake_openai.server import HttpError
from tests.paths import REPO

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]



def run_batch(
    store: EventStore,
    mini_retriever: Any,
    fake: FakeOpenAI,
    methods: str,
    cache_path: Path,
    *,
    judges: tuple[str, ...] = (),
    retry_failed: bool = False,
    **settings: Any,
) -> tuple[BatchPlan, BatchReport]:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0, **settings}
    roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge", "state")}, cache_path=cache_path)
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store,
        parse_methods(methods),
        RunOptions(dataset="mini", judges=judges, fresh=False),
        roles,
        prompts,
        encoder_id=store.encoder.encoder_id,
    )
    try:
        return plan, execute_batch(
            store, mini_retriever, plan, roles, prompts, concurrency=2, retry_failed=retry_failed
        )
    finally:
        roles.close()


def rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


def attempts(store: EventStore, run_id: str) -> dict[str, dict[str, Any]]:
    found = rows(
        store,
        "MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $r}) RETURN a.item_id AS item, a.status AS status, "
        "a.error AS error, a.flags AS flags",
        r=run_id,
    )
    return {r["item"]: r for r in found}


# --- a prerequisite that fails for one profile ------------------------------------------------------


def test_invalid_state_summary_of_one_profile_fails_only_its_attempts_and_retry_failed_answers_them(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()
    broken = {"on": True}

    def ravi_states_invalid(body: dict[str, Any]) -> Reply:
        prompt = json.dumps(body.get("messages", []))
        if schema_title(body) == "StateSummaryOut" and broken["on"] and "mini-s-3-t0" in prompt:
            return Reply.json({"states": [{"text": "", "concerns": "the user"}]})  # fails the schema
        return policy(body)

    cache = tmp_path / "c.sqlite"
    methods = "MEMKB_RAW_TURNS,HYBRID,RAW_TURNS"
    with FakeOpenAI(ravi_states_invalid) as fake:
        plan, report = run_batch(mini_store, mini_retriever, fake, methods, cache)
        repairs = [
            b["messages"][-1]["content"]
            for b in fake.requests
            if schema_title(b) == "StateSummaryOut" and b["messages"][-1]["role"] == "user" and len(b["messages"]) > 2
        ]
        by_method = {run.method.name: run.run_id for run in plan.runs}
        memkb = attempts(mini_store, by_method["MEMKB_RAW_TURNS"])
        # Only Ravi's attempt of the method that needs S(H) failed, with the reason; everything else answered.
        assert memkb["i-mini-03"]["status"] == "error"
        assert "prerequisite failed: state_summary of profile mini-p-ravi" in memkb["i-mini-03"]["error"]
        assert "no valid state_summary" in memkb["i-mini-03"]["error"]
        assert {i: a["status"] for i, a in memkb.items() if i != "i-mini-03"} == dict.fromkeys(
            ("i-mini-01", "i-mini-02", "i-mini-04"), "answered"
        )
        for name in ("HYBRID", "RAW_TURNS"):
            assert [a["status"] for a in attempts(mini_store, by_method[name]).values()] == ["answered"] * 4
        counts = {r.method: r.counts for r in report.runs}
        assert counts["MEMKB_RAW_TURNS"]["errors"] == 1 and counts["HYBRID"]["errors"] == 0
        assert report.errors_by_role == {"state": 1} and report.failed and report.rerun_helps
        failures = rows(
            mini_store,
            "MATCH (f:EndpointFailure)-[:IN_RUN]->(:Run {id: $r}) RETURN f.role AS role, f.stage AS stage, "
            "f.profile_id AS profile, f.error AS error",
            r=by_method["MEMKB_RAW_TURNS"],
        )
        assert [(f["role"], f["stage"], f["profile"]) for f in failures] == [("state", "state_summary", "mini-p-ravi")]
        # The repair prompt says what was wrong in plain words, without documentation links.
        assert repairs and "states.0.text" in repairs[0] and "http" not in repairs[0]
        # Reports: the errored item is counted as an error, left out of paired gains and the funnel, and listed.
        data = build_report_data(
            mini_store.driver, "neo4j", [by_method["MEMKB_RAW_TURNS"], by_method["HYBRID"]], resamples=200
        )
        assert [r["metrics"]["n_errors"] for r in data["runs"]] == [1, 0]
        comparison = data["comparisons"][0]
        assert comparison["n_common_items"] == 3
        assert comparison["excluded_items"] == [{"item_id": "i-mini-03", "baseline": "answered", "method": "error"}]
        funnel = data["funnel"][by_method["MEMKB_RAW_TURNS"]]
        assert funnel["n_answered_items"] == 3 and funnel["left_out_items"] == [
            {"item_id": "i-mini-03", "status": "error"}
        ]
        assert any("1 state endpoint error(s) at state_summary" in n for n in data["notes"])
        markdown = render_markdown(data)
        assert "| items | errors |" in markdown and "3 items answered by both runs" in markdown
        assert "i-mini-03 (error / answered)" in markdown  # the heading's order: MEMKB_RAW_TURNS - HYBRID
        listed = {r["run_id"]: r for r in rows(mini_store, load_cypher("agents/runs_list"))}
        assert listed[by_method["MEMKB_RAW_TURNS"]]["n_errors"] == 1
        assert listed[by_method["MEMKB_RAW_TURNS"]]["n_endpoint_failures"] == 1
        # The invalid replies were not cached: once the model behaves, retry_failed reaches the endpoint again.
        broken["on"] = False
        asked_before = len(fake.requests)
        _, report2 = run_batch(mini_store, mini_retriever, fake, methods, cache, retry_failed=True)
        state_requests = [b for b in fake.requests[asked_before:] if schema_title(b) == "StateSummaryOut"]
    assert state_requests, "the invalid state summary came from the cache"
    assert [a["status"] for a in attempts(mini_store, by_method["MEMKB_RAW_TURNS"]).values()] == ["answered"] * 4
    assert {r.method: r.status for r in report2.runs} == dict.fromkeys(methods.split(","), "finished")
    assert report2.errors_by_role == {} and not report2.failed


# --- flags on what the endpoint silently got wrong ---------------------------------------------------


def test_length_cut_tool_call_text_and_cut_json_answers_are_flagged_and_unused_tools_warned(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLABENCH_LLM_CACHE_NAMESPACE", "no-tool-template")

    def no_tools(body: dict[str, Any]) -> Reply:
        if "give blood" in request_text(body):
            return Reply(content="You can give blood if the tattoo is older than", finish_reason="length")
        if "flu jab" in request_text(body):
            return Reply.text('{"answer": "Yes, the flu jab is fine when')  # a structured reply cut off mid-way
        return Reply.text('{"name": "kb_search", "arguments": {"query": "flu"}}')

    with FakeOpenAI(no_tools) as fake:
        plan, report = run_batch(mini_store, mini_retriever, fake, "HYBRID", tmp_path / "c.sqlite")
    found = attempts(mini_store, plan.runs[0].run_id)
    record = load_run_record(mini_store.driver, "neo4j", plan.runs[0].run_id)
    assert record.config["llm_cache_namespace"] == "no-tool-template"  # the endpoint setup is in the run record
    assert found["i-mini-01"]["flags"] == ["cut_by_length"]
    assert all(found[i]["flags"] == ["looks_like_tool_call"] for i in ("i-mini-02", "i-mini-03"))
    assert found["i-mini-04"]["flags"] == ["not_an_answer"]
    counts = report.runs[0].counts
    assert counts["cut_by_length"] == 1 and counts["looks_like_tool_call"] == 2 and counts["not_an_answer"] == 1
    warnings = " ".join(report.warnings)
    assert "tools were offered but the endpoint returned no tool call in any of 4" in warnings
    assert "1 answer(s) are cut off at max_tokens" in warnings and "2 answer(s) are text that looks like" in warnings
    assert "1 answer(s) are empty or a JSON fragment that does not parse" in warnings
    given = rows(
        mini_store,
        "MATCH (e:Event {type: 'AnswerGiven'}) WHERE e.payload CONTAINS $r RETURN e.payload AS p",
        r=plan.runs[0].run_id,
    )
    assert sorted(tuple(json.loads(g["p"])["flags"]) for g in given) == [("cut_by_length",)] + [
        ("looks_like_tool_call",)
    ] * 2 + [("not_an_answer",)]


# --- a judge refused with HTTP 400, through the CLI ---------------------------------------------------


def test_judge_refused_with_http_400_leaves_an_event_and_a_non_zero_exit(
    mini_store: EventStore, tmp_path: Path
) -> None:
    policy = AutoPolicy()

    def judge_context_exceeded(body: dict[str, Any]) -> Reply:
        if schema_title(body) == "AccuracyOut":
            raise HttpError(400, "the request exceeds the available context size")
        return policy(body)

    with FakeOpenAI(judge_context_exceeded) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        args = ["run", "--methods", "RAW_TURNS", "--dataset", "mini", "--items", "1", "--judges", "accuracy"]
        done = subprocess.run(
            [sys.executable, "-m", "cli", *args, "--no-report"],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=240,
        )
    out = " ".join(done.stdout.split())
    assert done.returncode == 3, done.stdout + done.stderr
    assert "endpoint errors (this invocation, per role): judge 1" in out
    assert "exceeds the available context size" in out
    assert "run the same command again to resume" not in out and "--retry-failed" in out
    failures = rows(
        mini_store,
        "MATCH (a:Attempt {item_id: 'i-mini-01'})-[:FAILED_WITH]->(f:EndpointFailure {role: 'judge'}) "
        "RETURN f.stage AS stage, f.error AS error, f.retryable AS retryable, a.status AS status, f.run_id AS run",
    )
    assert len(failures) == 1
    assert failures[0]["stage"] == "judge:accuracy" and failures[0]["status"] == "answered"
    assert "HTTP 400" in failures[0]["error"] and failures[0]["retryable"] is False
    # A judge's request carries gold, so its error text does too: the report's free-text note does not quote
    # it, and its endpoint_failures row shows it only with the token (redaction by the record's role).
    from api.redaction import redact_gold

    data = build_report_data(mini_store.driver, "neo4j", [failures[0]["run"]], resamples=50)
    notes = [n for n in data["notes"] if "judge endpoint error(s)" in n]
    assert notes and not any("exceeds the available context size" in n for n in notes)
    row = data["runs"][0]["endpoint_failures"][0]
    assert row["role"] == "judge" and "exceeds the available context size" in row["latest_error"]
    assert "exceeds the available context size" not in json.dumps(redact_gold(data, []))


def test_resuming_an_answered_but_unjudged_attempt_judges_it_without_answering_it_again(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    """The kill drill's case: the answer's events are in the log, its verdict is not (the judge failed, or the
    process died between the two appends). The resume judges it; it never writes a second AttemptFinished."""
    policy = AutoPolicy()
    judge_down = {"on": True}

    def flaky_judge(body: dict[str, Any]) -> Reply:
        if judge_down["on"] and schema_title(body) == "AccuracyOut":
            raise HttpError(500, "the judge is down")
        return policy(body)

    cache = tmp_path / "cache.sqlite"
    with FakeOpenAI(flaky_judge) as fake:
        plan, first = run_batch(
            mini_store, mini_retriever, fake, "RAW_TURNS", cache, judges=("accuracy",), max_retries=0
        )
        run_id = plan.runs[0].run_id
        assert first.errors_by_role.get("judge", 0) >= 1
        judge_down["on"] = False
        run_batch(mini_store, mini_retriever, fake, "RAW_TURNS", cache, judges=("accuracy",), max_retries=0)
    finished = rows(
        mini_store,
        "MATCH (e:Event {type: 'AttemptFinished'}) WHERE e.payload CONTAINS $r RETURN e.payload AS payload",
        r=run_id,
    )
    per_attempt: dict[str, int] = {}
    for row in finished:
        attempt_id = json.loads(row["payload"])["attempt_id"]
        per_attempt[attempt_id] = per_attempt.get(attempt_id, 0) + 1
    assert per_attempt and set(per_attempt.values()) == {1}, per_attempt
    judged = rows(
        mini_store,
        "MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $r}) OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment) "
        "RETURN a.id AS attempt, count(j) AS judgments",
        r=run_id,
    )
    assert judged and all(r["judgments"] >= 1 for r in judged), judged


# --- Ctrl-C during a CLI run ------------------------------------------------------------------------------


def _answered_items(store: EventStore, before: set[str]) -> set[str]:
    found = rows(
        store,
        "MATCH (a:Attempt {status: 'answered'})-[:IN_RUN]->(r:Run {dataset: 'mini'}) RETURN r.id AS run, "
        "a.item_id AS item",
    )
    return {r["item"] for r in found if r["run"] not in before}


def test_sigint_stops_a_cli_run_with_nothing_half_written_and_it_resumes(
    mini_store: EventStore, tmp_path: Path
) -> None:
    """The endpoint answers the first item and holds every request about the others (a barrier, not a delay):
    SIGINT lands while the second attempt certainly waits for the endpoint, whatever the machine's load."""
    before = {r["id"] for r in rows(mini_store, "MATCH (r:Run) RETURN r.id AS id")}
    with FakeOpenAI(AutoPolicy()) as fake:
        fake.hold_when(AllButTheFirstItems(mini_questions()))
        env = cli_env(
            tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
            COLABENCH_LLM_CACHE_MODE="off",
        )  # fmt: skip
        args = ["run", "--methods", "RAW_TURNS", "--dataset", "mini", "--judges", "none", "--concurrency", "1",
                "--fresh"]  # fmt: skip
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", *args, "--no-report"],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert fake.wait_held(1), "no request about a second item reached the endpoint"
            assert process.poll() is None, process.communicate()[1]
            # one attempt at a time: the first item's attempt is written while the second one waits for the
            # endpoint (events are appended behind the attempts); wait for it, a generous bound on a condition
            bound = time.monotonic() + 600
            while not _answered_items(mini_store, before) and time.monotonic() < bound:
                time.sleep(0.05)
            assert _answered_items(mini_store, before) and len(_answered_items(mini_store, before)) == 1
            process.send_signal(signal.SIGINT)
            interrupted_at = time.monotonic()
            _out, err = process.communicate(timeout=300)
        finally:
            if process.poll() is None:
                process.kill()
        # the held request is still unanswered: the run stopped without waiting for it
        print(f"SIGINT -> exit in {time.monotonic() - interrupted_at:.2f} s")
        assert process.returncode == 130, err
        # A --fresh batch resumes with --resume BATCH (the same command again would start another batch).
        hint = [line.split("Resume with: ", 1)[1] for line in err.splitlines() if "Resume with: " in line]
        assert hint and "--fresh" not in hint[0] and " --resume " in hint[0], err
        resume_args = shlex.split(hint[0])
        assert resume_args[0] == "./colabench"
        assert len(_answered_items(mini_store, before)) == 1
        # Nothing half-written: every attempt node has its outcome, and started == finished events.
        half = rows(
            mini_store,
            "MATCH (a:Attempt)-[:IN_RUN]->(r:Run {dataset: 'mini'}) WHERE NOT r.id IN $before "
            "AND (a.status IS NULL OR (a.status = 'answered' AND a.answer IS NULL)) RETURN a.id AS id",
            before=sorted(before),
        )
        assert half == []
        fake.release()
        resumed = subprocess.run(
            [sys.executable, "-m", "cli", *resume_args[1:]],  # the printed command, as printed
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert _answered_items(mini_store, before) == {"i-mini-01", "i-mini-02", "i-mini-03", "i-mini-04"}
    given = rows(
        mini_store,
        "MATCH (e:Event {type: 'AnswerGiven'}) WHERE e.payload CONTAINS ':i-mini-' RETURN e.payload AS p",
    )
    per_attempt: dict[str, int] = {}
    for g in given:
        attempt = json.loads(g["p"])["attempt_id"]
        if attempt.split(":")[0] not in before:
            per_attempt[attempt] = per_attempt.get(attempt, 0) + 1
    assert sorted(per_attempt.values()) == [1, 1, 1, 1]  # nothing answered twice


def test_sigint_abandons_a_request_the_endpoint_sits_on_and_writes_nothing(
    mini_store: EventStore, tmp_path: Path
) -> None:
    """The endpoint holds every request until the test has sent SIGINT and the CLI has exited: an exit at all
    proves the request was abandoned (after the grace period), not waited for."""
    before = {r["id"] for r in rows(mini_store, "MATCH (r:Run) RETURN r.id AS id")}
    with FakeOpenAI(AutoPolicy()) as fake:
        fake.hold_when(lambda body: True)
        env = cli_env(
            tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
            COLABENCH_LLM_CACHE_MODE="off",
        )  # fmt: skip
        args = ["run", "--methods", "RAW_TURNS", "--dataset", "mini", "--judges", "none", "--no-report"]
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", *args],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert fake.wait_held(1), "no request reached the endpoint"
            assert process.poll() is None, process.communicate()[1]
            process.send_signal(signal.SIGINT)
            interrupted_at = time.monotonic()
            _out, err = process.communicate(timeout=300)
            stopped_after = time.monotonic() - interrupted_at
        finally:
            if process.poll() is None:
                process.kill()
    print(f"SIGINT with a request in flight -> exit in {stopped_after:.2f} s")
    assert process.returncode == 130, err
    assert "abandoned" in err and "Resume with: ./colabench run --methods RAW_TURNS" in err
    written = rows(
        mini_store,
        "MATCH (a:Attempt)-[:IN_RUN]->(r:Run {dataset: 'mini'}) WHERE NOT r.id IN $before RETURN a.id AS id",
        before=sorted(before),
    )
    assert written == []  # the abandoned attempts left no trace


# --- the cache namespace ----------------------------------------------------------------------------------


def test_cache_namespace_changes_the_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0}
    plain = request_key(request)
    assert request_key(request, "") == plain  # existing caches stay valid without a namespace
    assert len({plain, request_key(request, "server-a"), request_key(request, "server-b")}) == 3
    with FakeOpenAI(AutoPolicy()) as fake:
        settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0}
        for namespace, expected_requests in (("", 1), ("", 1), ("llama+tools", 2), ("llama+tools", 2)):
            monkeypatch.setenv("COLABENCH_LLM_CACHE_NAMESPACE", namespace)
            roles = LLMRoles(overrides={"answerer": settings}, cache_path=tmp_path / "c.sqlite")
            try:
                assert roles.cache_namespace == namespace
                roles.client("answerer").chat([{"role": "user", "content": "hello"}])
            finally:
                roles.close()
            assert fake.request_count == expected_requests


# --- the LLM layer: cut and invalid replies -----------------------------------------------------------------


def test_cut_structured_reply_is_asked_again_with_twice_the_budget_and_only_the_valid_one_is_cached(
    tmp_path: Path,
) -> None:
    from pydantic import BaseModel

    class Verdict(BaseModel):
        verdict: str

    def cut_at_small_budgets(body: dict[str, Any]) -> Reply:
        if body["max_tokens"] < 200:
            return Reply(content='{"verd', finish_reason="length")
        return Reply.json({"verdict": "pass"})

    with FakeOpenAI(cut_at_small_budgets) as fake:
        settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "max_tokens": 100}
        roles = LLMRoles(overrides={"judge": settings}, cache_path=tmp_path / "c.sqlite")
        try:
            reply = roles.client("judge").structured([{"role": "user", "content": "grade"}], Verdict, name="v")
            assert reply.value.verdict == "pass"
            assert [b["max_tokens"] for b in fake.requests] == [100, 200]
            assert roles.cache is not None and roles.cache.count() == 1  # the cut reply was not cached
        finally:
            roles.close()
