"""A memory SDK's reply cut at max_tokens (finish_reason "length") is diagnosed as such for every SDK path
(A-MEM, Graphiti, Mem0): `memory build` stops with exit 3 and a line naming the cut and the budget, never
"the server probably ignores json_schema" or "is not JSON". On the real Neo4j with the `mini` bundle and the
fake OpenAI server, which cuts every reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli.exit_codes import EXIT_ENDPOINT_OR_PARTIAL
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.fake_openai import FakeOpenAI, Reply

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


def cut_at_max_tokens(body: dict[str, Any]) -> Reply:
    return Reply(content='{"keywords": ["knee", "repl', finish_reason="length")


@pytest.mark.parametrize("system", ["amem", "graphiti", "mem0"])
def test_a_memory_reply_cut_at_max_tokens_is_diagnosed_as_cut_for_every_sdk(
    system: str, mini_store: EventStore, tmp_path: Path
) -> None:
    with FakeOpenAI(cut_at_max_tokens) as fake:
        env = cli_env(
            tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model",
            COLABENCH_LLM_CACHE=str(tmp_path / "cache.sqlite"),
            COLABENCH_LLM_MEMORY_MAX_TOKENS="64", COLABENCH_LLM_MAX_RETRIES="0",
        )  # fmt: skip
        done = colabench(["memory", "build", "--system", system, "--profile", "mini-p-ravi", "--no-links"], env)
    err = " ".join(done.stderr.split())
    assert done.returncode == EXIT_ENDPOINT_OR_PARTIAL, done.stdout + done.stderr
    assert "max_tokens=64 (finish_reason 'length')" in err and "COLABENCH_LLM_MEMORY_MAX_TOKENS" in err, err
    assert "ignores" not in err and "is not JSON" not in err
