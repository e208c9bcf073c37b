"""A whole `colabench run` against an endpoint that answers every request HTTP 429 once before answering it and
reports its prefix cache: the run finishes, the 429s are counted per role in the run record, and the CLI's
closing lines and the report show them with the prefix-cache hit rate, and the response cache holds one entry per
distinct request, from its answer. Real Neo4j, the fake endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.llm.cache import ResponseCache
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env, colabench
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

pytestmark = pytest.mark.neo4j


def test_a_run_through_a_429_storm_finishes_and_counts_the_429s_per_role(
    mini_store: EventStore, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy(), prefix_cache="openai") as fake:
        fake.rate_limit_each(times=1, retry_after=0.0)
        env = cli_env(
            tmp_path,
            COLABENCH_LLM_BASE_URL=fake.base_url,
            COLABENCH_LLM_MODEL="fake-model",
            COLABENCH_LLM_CACHE_MODE="use",
            COLABENCH_LLM_RETRY_BASE_S="0",
            COLABENCH_LLM_RETRY_SEED="1",
            COLABENCH_LLM_ENDPOINT_CONCURRENCY="2",
        )
        args = ["run", "--methods", "HYBRID", "--dataset", "mini", "--judges", "accuracy", "--concurrency", "2"]
        done = colabench([*args, "--fresh"], env)
        storm = fake.rate_limited
        distinct = {json.dumps(body, sort_keys=True) for body in fake.requests}
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    reports = sorted((tmp_path / "data" / "reports").glob("*/report.json"))
    assert len(reports) == 1
    data = json.loads(reports[0].read_text())
    [run] = data["runs"]
    assert run["status"] == "finished"
    usage = run["usage"]
    counted = {role: c["rate_limited"] for role, c in usage.items() if role != "total"}
    # Every distinct request was refused once and retried once, and each role counted its own.
    assert storm > 0 and sum(counted.values()) == storm == usage["total"]["rate_limited"]
    assert counted["answerer"] > 0 and counted["judge"] > 0
    for role, n in counted.items():
        if n:
            assert usage[role]["retries"] >= n
            assert f"{role} {n} x HTTP 429" in out, out
    assert "endpoint prefix cache (cached / prompt tokens): answerer " in out
    section = data["sections"]["llm_traffic"]["runs"][0]["roles"]
    by_role = {row["role"]: row for row in section}
    assert by_role["answerer"]["rate_limited"] == counted["answerer"]
    rate = by_role["answerer"]["prefix_hit_rate"]
    assert rate is not None and rate > 0, "the answerer's repeated system prompt and tools were not seen as cached"
    # Every distinct request was cached once, from its answer: no 429 reply left an entry of its own.
    cache = ResponseCache(tmp_path / "llm_responses.sqlite")
    try:
        assert cache.count() == len(distinct) == usage["total"]["endpoint_requests"] - storm
    finally:
        cache.close()
    markdown = (reports[0].parent / "report.md").read_text()
    assert "## Endpoint traffic: rate limits and prefix cache" in markdown
    assert f"| answerer | {by_role['answerer']['endpoint_requests']:,} |" in markdown
