"""The test endpoint (tests/fake_openai, AutoPolicy) plays every role the shipped systems ask for: each LLM-built
memory system builds through the CLI against it, and `run --methods all` on the mini bundle finishes every run
with every item answered and judged."""

from __future__ import annotations

import pytest

from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy
from tests.test_agents_cli import MINI, cli_env, colabench

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


def test_every_memory_system_builds_against_the_fake_endpoint(mini_store: EventStore, tmp_path: object) -> None:
    policy = AutoPolicy()
    with FakeOpenAI(policy) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")  # type: ignore[arg-type]
        for system in ["raw_turns", "mem0", "graphiti", "amem"]:
            done = colabench(["memory", "build", "--system", system], env, timeout=600)
            assert done.returncode == 0, f"{system}: {done.stdout}\n{done.stderr}"
    assert policy.mem0.extractions > 0
    assert policy.amem.seen["analysis"] > 0
    assert policy.graphiti.seen["ExtractedEntities"] > 0 and not policy.graphiti.unknown


def test_run_all_methods_answers_and_judges_every_item(mini_store: EventStore, tmp_path: object) -> None:
    with mini_store.driver.session() as session:
        before = {r["id"] for r in session.run("MATCH (r:Run) RETURN r.id AS id")}
    with FakeOpenAI(AutoPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")  # type: ignore[arg-type]
        done = colabench(["run", "--methods", "all", "--dataset", str(MINI), "--judges", "accuracy"], env, timeout=900)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    runs = _runs_after(mini_store, before)
    assert set(runs) == PAPER_FIVE
    for method, run in runs.items():
        assert run["status"] == "finished", (method, run)
        n_items = run["n_items"]
        assert isinstance(n_items, int) and n_items > 0
        assert len(run["answered"]) == n_items, (method, run)  # type: ignore[arg-type]
        assert len(run["judged"]) == n_items, (method, run)  # type: ignore[arg-type]
