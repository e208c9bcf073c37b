"""A memory SDK that logs a failure and carries on (Mem0's "Error parsing extraction response" on an unparseable
reply, Graphiti catching a failed timestamp call) fails that pair: nothing of it is written, its replies are not
cached, the profile's attempts fail with the reason (one EndpointFailed per run and profile, role `memory`), the
batch counts it per role, and a rerun once the endpoint answers properly converges. A system that ends a profile's
build with no memory at all fails that profile's attempts too. On the fake OpenAI server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.store import EventStore
from tests.agents.memory.test_build_failures import RAVI_TEXT, failures, statuses
from tests.agents.memory.test_memory_methods_run import responder
from tests.agents.runs.test_endpoint_failures import REPO, cli_env
from tests.conftest import MINI_BUNDLE, _load_bundle
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.graphiti_script import schema_name
from tests.fake_openai.mem0_script import is_mem0_extraction

pytestmark = [pytest.mark.neo4j, pytest.mark.slow, pytest.mark.usefixtures("isolated_config")]

RAVI = "mini-p-ravi"
RAVI_ITEM = "i-mini-03"
NOT_JSON = "I found nothing worth remembering here, sorry"
Responder = Callable[[dict[str, Any]], Reply]


@pytest.fixture()
def mini(driver: Driver, encoder: Any) -> Iterator[tuple[EventStore, Any]]:
    """The mini bundle in a store of this test's own (each test builds memories from nothing)."""
    from query.retriever import Retriever

    store = _load_bundle(driver, encoder, MINI_BUNDLE)
    retriever = Retriever(store.driver, store.encoder)
    yield store, retriever
    retriever.close()


def about_ravi(body: dict[str, Any]) -> bool:
    return RAVI_TEXT in json.dumps(body.get("messages") or [])


def answering(broken: Callable[[dict[str, Any]], Reply | None]) -> tuple[Responder, dict[str, Any]]:
    """The run's responder, except where `broken(body)` gives a reply while `state["broken"]` is set;
    `state["asked"]` counts the requests `broken` took."""
    inner = responder()
    state: dict[str, Any] = {"broken": True, "asked": 0}

    def respond(body: dict[str, Any]) -> Reply:
        if state["broken"]:
            reply = broken(body)
            if reply is not None:
                state["asked"] += 1
                return reply
        return inner(body)

    return respond, state


def run_once(
    store: EventStore, retriever: Any, fake: FakeOpenAI, methods: str, cache: Path
) -> tuple[BatchPlan, BatchReport, dict[str, Any]]:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 30.0}
    roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "memory")}, cache_path=cache)
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store, parse_methods(methods), RunOptions(dataset="mini", judges=()), roles, prompts,
        encoder_id=store.encoder.encoder_id,
    )  # fmt: skip
    try:
        report = execute_batch(store, retriever, plan, roles, prompts, concurrency=2)
        usage = roles.total_usage()
    finally:
        roles.close()
    return plan, report, usage


def built_pairs(store: EventStore, system: str, profile_id: str) -> int:
    with store.driver.session() as session:
        record = session.run(
            "MATCH (:Profile {id: $p})-[:HAS_BUILD_STEP]->(s:MemoryBuildStep {system: $s}) RETURN count(s) AS n",
            p=profile_id, s=system,
        ).single()  # fmt: skip
    return int(record["n"]) if record else 0


def pair_count(store: EventStore, profile_id: str) -> int:
    from agents.history import load_public_history
    from agents.memory.pairs import history_pairs

    return len(history_pairs(load_public_history(store.driver, store.database, profile_id)))


def memories(store: EventStore, system: str, profile_id: str) -> int:
    with store.driver.session() as session:
        record = session.run(
            "MATCH (m:Memory {system: $s, profile_id: $p}) RETURN count(m) AS n", p=profile_id, s=system
        ).single()
    return int(record["n"]) if record else 0


def test_unparseable_replies_swallowed_by_mem0_and_graphiti_fail_the_pair_and_a_rerun_converges(
    mini: tuple[EventStore, Any], tmp_path: Path
) -> None:
    store, retriever = mini

    def broken(body: dict[str, Any]) -> Reply | None:
        if not about_ravi(body):
            return None
        if is_mem0_extraction(body) or schema_name(body) in {"EdgeTimestamps", "BatchEdgeTimestamps"}:
            return Reply.text(NOT_JSON)
        return None

    respond, state = answering(broken)
    cache = tmp_path / "cache.sqlite"
    with FakeOpenAI(respond) as fake:
        plan, report, usage = run_once(store, retriever, fake, "MEM0,GRAPHITI", cache)
        assert state["asked"] >= 2  # Mem0's extraction and Graphiti's timestamps of Ravi's pair were broken
        assert report.failed and report.errors_by_role == {"memory": 2}
        assert usage["memory"]["invalid_replies"] == 2  # one failed pair per system, counted on the role
        for run in plan.runs:
            system = run.method.memory_system
            assert system is not None
            found = failures(store, run.run_id)
            assert [(f["role"], f["stage"], f["profile"]) for f in found] == [("memory", f"memory:{system}", RAVI)]
            assert found[0]["retryable"] is True, system  # a rerun asks the endpoint again
            assert "carried on" in found[0]["error"] and "nothing of it was written" in found[0]["error"]
            if system == "mem0":
                assert "Error parsing extraction response" in found[0]["error"]
            attempts = statuses(store, run.run_id)
            assert attempts[RAVI_ITEM][0] == "error"
            assert f"prerequisite failed: memory:{system} of profile {RAVI}" in attempts[RAVI_ITEM][1]
            assert {s for i, (s, _) in attempts.items() if i != RAVI_ITEM} == {"answered"}
            assert built_pairs(store, system, RAVI) == 0 and memories(store, system, RAVI) == 0

        # The endpoint answers properly now: the broken replies were not cached, so they are asked again.
        state["broken"] = False
        plan, report, usage = run_once(store, retriever, fake, "MEM0,GRAPHITI", cache)
    assert not report.failed, report.failures
    assert usage["memory"]["endpoint_requests"] > 0 and usage["memory"]["invalid_replies"] == 0
    for run in plan.runs:
        system = run.method.memory_system
        assert system is not None
        assert built_pairs(store, system, RAVI) == pair_count(store, RAVI) and memories(store, system, RAVI) >= 1
        assert statuses(store, run.run_id)[RAVI_ITEM][0] == "answered"


def test_a_system_left_with_no_memory_of_a_profile_fails_that_profiles_attempts_with_the_reason(
    mini: tuple[EventStore, Any], tmp_path: Path
) -> None:
    store, retriever = mini

    def nothing_for_ravi(body: dict[str, Any]) -> Reply | None:
        # valid JSON, no failure to log: Mem0 extracts no memory from Ravi's only pair
        return Reply.json({"memory": []}) if is_mem0_extraction(body) and about_ravi(body) else None

    respond, state = answering(nothing_for_ravi)
    with FakeOpenAI(respond) as fake:
        plan, report, _ = run_once(store, retriever, fake, "MEM0", tmp_path / "cache.sqlite")
    assert state["asked"] == pair_count(store, RAVI)  # every pair of Ravi was taken in, none gave a memory
    assert report.failed and report.errors_by_role == {"memory": 1}
    (run,) = plan.runs
    (found,) = failures(store, run.run_id)
    assert (found["stage"], found["profile"], found["retryable"]) == ("memory:mem0", RAVI, False)
    assert f"holds no memory of profile {RAVI!r}" in found["error"]
    attempts = statuses(store, run.run_id)
    assert attempts[RAVI_ITEM][0] == "error" and "holds no memory" in attempts[RAVI_ITEM][1]
    assert {s for i, (s, _) in attempts.items() if i != RAVI_ITEM} == {"answered"}


def test_cli_memory_build_of_mem0_on_unparseable_replies_fails_and_records_no_pair(
    mini: tuple[EventStore, Any], tmp_path: Path
) -> None:
    store, _ = mini
    respond, state = answering(lambda body: Reply.text(NOT_JSON) if is_mem0_extraction(body) else None)
    with FakeOpenAI(respond) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        done = subprocess.run(
            [sys.executable, "-m", "cli", "memory", "build", "--system", "mem0"],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=400,
        )  # fmt: skip
    err = " ".join(done.stderr.split())
    assert done.returncode == 1, done.stdout + done.stderr
    assert state["asked"] == 1  # the build stopped at the first failed pair
    assert "Error parsing extraction response" in err and "the pair counts as failed" in err
    with store.driver.session() as session:
        steps = session.run("MATCH (s:MemoryBuildStep {system: 'mem0'}) RETURN count(s) AS n").single()
    assert steps is not None and steps["n"] == 0


def test_the_watch_counts_errors_and_warnings_with_a_traceback_of_the_sdk_loggers_only() -> None:
    import logging

    from agents.memory.sdk_failures import SdkFailureWatch

    sdk, other = logging.getLogger("fake_sdk.core"), logging.getLogger("not_the_sdk")
    with SdkFailureWatch(("fake_sdk",)) as watch:
        sdk.warning("keyword search is not supported")  # a configuration note: not a failure
        sdk.error("Error parsing extraction response: %s", "Expecting value")
        try:
            raise ValueError("bad reply")
        except ValueError:
            sdk.warning("Failed to extract timestamps", exc_info=True)
        other.error("someone else's error")
    sdk.error("after the pair")  # the watch is closed
    assert [(f.logger, f.level) for f in watch.failures] == [("fake_sdk.core", "ERROR"), ("fake_sdk.core", "WARNING")]
    assert "Expecting value" in watch.failures[0].message
    assert "ValueError: bad reply" in watch.failures[1].message
    assert watch.summary(limit=1).endswith("; and 1 more")
    assert logging.getLogger("fake_sdk").handlers == []
