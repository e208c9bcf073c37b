"""A memory build that fails for one profile (the endpoint refuses the memory role's requests for Ravi's pairs,
on the fake OpenAI server) stays visible per profile for every LLM-built memory system (Mem0, Graphiti, A-MEM):
one EndpointFailed event per run and profile, only that profile's attempts fail with the reason, a report note
names it, and the CLI run exits with code 3."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.reports.data import build_report_data
from agents.runs.plan import RunOptions, plan_batch
from agents.runs.runner import execute_batch
from graph.store import EventStore
from tests.agents.memory.test_memory_methods_run import RUN_ROLE_SCHEMAS, responder
from tests.agents.runs.test_endpoint_failures import REPO, cli_env
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.amem_script import is_amem_request
from tests.fake_openai.graphiti_script import schema_name
from tests.fake_openai.mem0_script import is_mem0_extraction
from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import HttpError

pytestmark = [pytest.mark.neo4j, pytest.mark.slow, pytest.mark.usefixtures("isolated_config")]

RAVI_TEXT = "knee replaced"  # Ravi's only pair; Sam's pairs never mention it
REFUSAL = "the memory model refuses this request (scripted)"


def memory_request(body: dict[str, Any]) -> bool:
    if is_mem0_extraction(body) or is_amem_request(body):
        return True
    return schema_title(body) not in RUN_ROLE_SCHEMAS and schema_name(body) != "?"  # Graphiti's structured calls


def refusing_ravis_memory() -> Any:
    inner = responder()

    def respond(body: dict[str, Any]) -> Reply:
        if memory_request(body) and RAVI_TEXT in json.dumps(body.get("messages") or []):
            raise HttpError(400, REFUSAL)
        return inner(body)

    return respond


def failures(store: EventStore, run_id: str) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [
            dict(r)
            for r in session.run(
                "MATCH (f:EndpointFailure)-[:IN_RUN]->(:Run {id: $r}) RETURN f.role AS role, f.stage AS stage, "
                "f.profile_id AS profile, f.error AS error, f.retryable AS retryable",
                r=run_id,
            )
        ]


def statuses(store: EventStore, run_id: str) -> dict[str, tuple[str, str]]:
    with store.driver.session() as session:
        found = session.run(
            "MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $r}) RETURN a.item_id AS item, a.status AS status, a.error AS e",
            r=run_id,
        )
        return {r["item"]: (r["status"], r["e"] or "") for r in found}


def test_failed_memory_build_of_one_profile_stays_visible_per_profile_for_each_llm_built_system(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    with FakeOpenAI(refusing_ravis_memory()) as fake:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 30.0}
        roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "memory")}, cache_path=tmp_path / "c.sqlite")
        prompts = PromptSet()
        assert mini_store.encoder is not None
        plan = plan_batch(
            mini_store, parse_methods("MEM0,GRAPHITI,AMEM"), RunOptions(dataset="mini", judges=(), fresh=True),
            roles, prompts, encoder_id=mini_store.encoder.encoder_id,
        )  # fmt: skip
        try:
            report = execute_batch(mini_store, mini_retriever, plan, roles, prompts, concurrency=2)
        finally:
            roles.close()
    assert report.failed and report.errors_by_role == {"memory": 3}
    for run in plan.runs:
        system = run.method.memory_system
        found = failures(mini_store, run.run_id)
        assert [(f["role"], f["stage"], f["profile"]) for f in found] == [
            ("memory", f"memory:{system}", "mini-p-ravi")
        ], run.method.name
        assert REFUSAL in found[0]["error"]
        assert found[0]["retryable"] is False, run.method.name  # a refusal: only --retry-failed asks again
        attempts = statuses(mini_store, run.run_id)
        assert attempts["i-mini-03"][0] == "error"
        assert f"prerequisite failed: memory:{system} of profile mini-p-ravi" in attempts["i-mini-03"][1]
        assert {i: s for i, (s, _) in attempts.items() if i != "i-mini-03"} == dict.fromkeys(
            ("i-mini-01", "i-mini-02", "i-mini-04"), "answered"
        ), run.method.name
    data = build_report_data(mini_store.driver, "neo4j", [r.run_id for r in plan.runs], resamples=100)
    for run in plan.runs:
        assert any(
            run.run_id in n and f"memory endpoint error(s) at memory:{run.method.memory_system}" in n
            for n in data["notes"]
        ), data["notes"]


def test_cli_run_whose_memory_build_failed_for_a_profile_exits_3_and_names_it(
    mini_store: EventStore, tmp_path: Path
) -> None:
    with FakeOpenAI(refusing_ravis_memory()) as fake:
        env = cli_env(tmp_path, COLABENCH_LLM_BASE_URL=fake.base_url, COLABENCH_LLM_MODEL="fake-model")
        args = ["run", "--methods", "MEM0", "--dataset", "mini", "--judges", "none", "--fresh", "--no-report"]
        done = subprocess.run(
            [sys.executable, "-m", "cli", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=400
        )
    out = " ".join(done.stdout.split())
    assert done.returncode == 3, done.stdout + done.stderr
    assert "memory 1" in out and REFUSAL in out
