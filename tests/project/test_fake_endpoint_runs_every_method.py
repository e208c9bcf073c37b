"""The test endpoint (tests/fake_openai, AutoPolicy) plays every role the shipped systems ask for: each LLM-built
memory system builds through the CLI against it, and `run --methods all` on the mini bundle finishes every run
with every item answered and judged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.store import EventStore
from tests.cli.test_run_and_report_processes import MINI, cli_env, colabench
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy
from tests.fake_openai.server import HttpError

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

PAPER_FIVE = {"HYBRID", "MEM0", "GRAPHITI", "AMEM", "MEMKB"}


def _runs_after(store: EventStore, before: set[str]) -> dict[str, dict[str, object]]:
    with store.driver.session() as session:
        rows = session.run(
            "MATCH (r:Run {dataset: 'mini'}) WHERE NOT r.id IN $before "
            "OPTIONAL MATCH (a:Attempt)-[:IN_RUN]->(r) "
            "OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment {kind: 'accuracy'}) "
            "RETURN r.id AS id, r.method AS method, r.status AS status, size(r.item_ids) AS n_items, "
            "collect(DISTINCT CASE WHEN a.status = 'answered' THEN a.item_id END) AS answered, "
            "collect(DISTINCT CASE WHEN j IS NOT NULL THEN a.item_id END) AS judged",
            before=sorted(before),
        )
        return {r["method"]: dict(r) for r in rows}


def test_every_memory_system_builds_against_the_fake_endpoint(mini_store: EventStore, tmp_path: Path) -> None:
    policy = AutoPolicy()
    with FakeOpenAI(policy) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        for system in ["raw_turns", "mem0", "graphiti", "amem"]:
            done = colabench(["memory", "build", "--system", system], env, timeout=600)
            assert done.returncode == 0, f"{system}: {done.stdout}\n{done.stderr}"
    assert policy.mem0.extractions > 0
    assert policy.amem.seen["analysis"] > 0
    assert policy.graphiti.seen["ExtractedEntities"] > 0 and not policy.graphiti.unknown


def test_run_all_methods_answers_and_judges_every_item(mini_store: EventStore, tmp_path: Path) -> None:
    with mini_store.driver.session() as session:
        before = {r["id"] for r in session.run("MATCH (r:Run) RETURN r.id AS id")}
    with FakeOpenAI(AutoPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        done = colabench(["run", "--methods", "all", "--dataset", str(MINI), "--judges", "accuracy"], env, timeout=900)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    runs = _runs_after(mini_store, before)
    assert set(runs) == PAPER_FIVE
    for method, run in runs.items():
        assert run["status"] == "finished", (method, run)
        n_items = run["n_items"]
        assert isinstance(n_items, int) and n_items > 0
        assert len(run["answered"]) == n_items, (method, run)
        assert len(run["judged"]) == n_items, (method, run)


# 360 characters, none of them words of the request: the first 300 must reach the CLI line, the rest not
ERROR_BODY = "upstream gateway overloaded: shard-7 queue full; " + " ".join(f"slot{i:03d}" for i in range(44))


def _overloaded(body: dict[str, Any]) -> Reply:
    raise HttpError(503, ERROR_BODY)


def test_an_endpoint_error_body_reaches_the_cli_line_and_the_record(mini_store: EventStore, tmp_path: Path) -> None:
    with mini_store.driver.session() as session:
        before = {r["id"] for r in session.run("MATCH (r:Run) RETURN r.id AS id")}
    with FakeOpenAI(_overloaded) as fake:
        env = cli_env(
            tmp_path,
            COLABENCH_LLM_BASE_URL=fake.base_url,
            COLABENCH_LLM_MODEL="fake-model",
            COLABENCH_LLM_MAX_RETRIES="0",
            COLABENCH_LLM_RETRY_BASE_S="0",
        )
        done = colabench(["run", "--methods", "HYBRID", "--dataset", "mini", "--judges", "none"], env)
    shown = " ".join((done.stdout + done.stderr).split())
    # the fake sends {"error": {"message": ERROR_BODY}}: its first 300 characters, then how many were left out
    sent = json.dumps({"error": {"message": ERROR_BODY}})
    head = " ".join(sent[:300].split())
    assert "HTTP 503" in shown and head in shown
    assert f"[... {len(sent) - 300} more characters]" in shown and "slot043" not in shown
    with mini_store.driver.session() as session:
        stored = [
            r["error"]
            for r in session.run(
                "MATCH (f:EndpointFailure)-[:IN_RUN]->(r:Run {dataset: 'mini'}) WHERE NOT r.id IN $before "
                "RETURN f.error AS error",
                before=sorted(before),
            )
        ]
    assert stored and all(head in " ".join(e.split()) for e in stored)
