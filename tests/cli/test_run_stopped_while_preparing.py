"""`run` stopped by a spending limit while it prepares the batch (a memory build, before any run starts): no run
record is written, so the stop message says what preparing spent, per step and role."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


def test_a_limit_reached_while_preparing_says_what_preparing_spent_by_step_and_role(
    mini_store: EventStore, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
                      COLABENCH_LLM_CACHE_MODE="off")
        # A-MEM's memory is built before any run starts; the first reply spends more than one token
        args = ["run", "--methods", "AMEM", "--dataset", "mini", "--judges", "none", "--concurrency", "1",
                "--no-report", "--fresh", "--max-tokens", "1"]
        stopped = colabench(args, env)
        sent = len(fake.requests)
    assert stopped.returncode == 3, stopped.stderr
    said = " ".join(stopped.stderr.split())
    assert "left incomplete" in said and "budget reached:" in said
    assert sent >= 1
    assert "spent preparing the batch before the limit stopped it (no run started" in said
    assert f"memory:amem: memory role {sent} calls ({sent} endpoint requests, 0 retries)" in said
    with mini_store.driver.session(database=mini_store.database) as session:
        started = session.run("MATCH (e:Event {type: 'RunStarted'}) RETURN count(e) AS n").single()
    assert started is not None and started["n"] == 0
