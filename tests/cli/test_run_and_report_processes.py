"""`colabench run` and `colabench report` as processes: the no-LLM retrieval-only path, a run killed with
SIGKILL that resumes without repeating finished items, and clear errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.barriers import AllButTheFirstItems, mini_questions
from tests.fake_openai.policy import AutoPolicy, request_text, schema_title
from tests.paths import REPO

pytestmark = pytest.mark.neo4j

MINI = REPO / "tests" / "fixtures" / "mini_bundle"


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLABENCH_LLM_")}
    config = tmp_path / "empty.toml"
    config.write_text("")
    defaults = {
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "COLABENCH_CONFIG": str(config),
        "COLABENCH_DATA_DIR": str(tmp_path / "data"),
        # a response cache of the test's own: the machine-wide one would serve replies other tests (or the other
        # xdist worker) cached for the same requests
        "COLABENCH_LLM_CACHE": str(tmp_path / "llm_responses.sqlite"),
    }
    env.update({**defaults, **extra})
    return env


def colabench(args: list[str], env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )


def test_run_without_llm_runs_the_retrieval_line_and_labels_the_report(mini_store: EventStore, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    done = colabench(["run", "--methods", "MEMKB,MEMKB_RAW_TURNS,HYBRID", "--dataset", str(MINI)], env)
    assert done.returncode == 0, done.stderr
    assert "skipping state summaries, answers and judging" in " ".join(done.stderr.split())
    html = tmp_path / "data" / "reports" / "mini-retrieval-only-memkb-memkb_raw_turns-hybrid" / "report.html"
    text = html.read_text()
    assert "RETRIEVAL-ONLY REPORT" in text and "no accuracy" in text
    data = json.loads((html.parent / "report.json").read_text())
    assert data["kind"] == "retrieval"
    assert [m["name"] for m in data["methods"]] == ["MEMKB", "MEMKB_RAW_TURNS", "HYBRID"]
    # the title names the methods the line evaluated, and a note the one left out
    assert data["title"].startswith("RETRIEVAL-ONLY report: MEMKB_RAW_TURNS, HYBRID on mini")
    assert any(n.startswith("MEMKB is not in this report") for n in data["notes"])
    recipes = {s["recipe"] for s in data["evaluation"]["summaries"]}
    # MEMKB reads Mem0's memories, which need an LLM to build: it is left out, and the report says so
    assert recipes == {"MEMKB_RAW_TURNS", "HYBRID"}
    assert any("MEMKB left out" in note and "mem0" in note for note in data["evaluation"]["notes"])
    latest = colabench(["report", "--latest"], env)
    assert latest.returncode == 0
    assert str(html) in "".join(latest.stdout.split())  # rich may wrap the path


def test_report_of_an_unknown_run_is_one_clear_error(mini_store: EventStore, tmp_path: Path) -> None:
    done = colabench(["report", "no-such-run"], cli_env(tmp_path))
    assert done.returncode == 2  # bad input
    assert "unknown run id" in done.stderr and "Traceback" not in done.stderr


def _answered(store: EventStore, before: set[str]) -> set[str]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (a:Attempt {status: 'answered'})-[:IN_RUN]->(r:Run {dataset: 'mini'}) "
            "RETURN r.id AS run, a.item_id AS item"
        )
        return {r["item"] for r in rows if r["run"] not in before}


def test_killed_run_resumes_without_repeating_finished_items(mini_store: EventStore, tmp_path: Path) -> None:
    with mini_store.driver.session() as session:
        before = {r["id"] for r in session.run("MATCH (r:Run) RETURN r.id AS id")}
    with FakeOpenAI(AutoPolicy()) as fake:
        # a barrier, not a delay: requests about a third item are held until the test has killed the run
        fake.hold_when(AllButTheFirstItems(mini_questions(), keep=2))
        env = cli_env(
            tmp_path,
            COLABENCH_LLM_BASE_URL=fake.base_url,
            COLABENCH_LLM_MODEL="fake-model",
            COLABENCH_LLM_CACHE_MODE="off",  # so that repeating an item would have to reach the endpoint
        )
        args = ["run", "--methods", "HYBRID", "--dataset", "mini", "--judges", "none", "--concurrency", "1"]
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", *args],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            held = fake.wait_held(1)
            assert held and process.poll() is None, (
                f"no request about a third item came: {process.stderr.read() if process.stderr else ''}"
            )
            # the attempts' events are written behind them, while the next request is in flight: wait (a
            # generous bound on a condition) for the second attempt's write before the kill
            bound = time.monotonic() + 600
            while len(_answered(mini_store, before)) < 2 and time.monotonic() < bound:
                time.sleep(0.05)
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=120)
        finished_at_kill = _answered(mini_store, before)
        assert len(finished_at_kill) == 2  # one attempt at a time: the first two were written, the third waited
        requests_at_kill = len(fake.requests)
        fake.release()
        resumed = colabench(args, env)
        assert resumed.returncode == 0, resumed.stderr
        later: list[dict[str, Any]] = fake.requests[requests_at_kill:]
    assert _answered(mini_store, before) == {"i-mini-01", "i-mini-02", "i-mini-03", "i-mini-04"}
    asked_again = {request_text(b) for b in later if schema_title(b) is None}
    with mini_store.driver.session() as session:
        questions = {
            r["id"]: r["q"] for r in session.run("MATCH (i:Item {dataset: 'mini'}) RETURN i.id AS id, i.question AS q")
        }
        answers = session.run(
            "MATCH (e:Event {type: 'AnswerGiven'}) WHERE e.payload CONTAINS ':i-mini-' RETURN e.payload AS p"
        )
        per_attempt: dict[str, int] = {}
        for record in answers:
            attempt = json.loads(record["p"])["attempt_id"]
            if attempt.split(":")[0] not in before:
                per_attempt[attempt] = per_attempt.get(attempt, 0) + 1
    assert not asked_again & {questions[i] for i in finished_at_kill}
    assert asked_again == {questions[i] for i in set(questions) - finished_at_kill}
    assert sorted(per_attempt.values()) == [1, 1, 1, 1]
    report = colabench(["report", "--latest", "--no-traces"], env)
    assert report.returncode == 0, report.stderr
    assert "No Memory + Hybrid" in report.stdout
