"""A resumed batch whose attempts only wait on their judges prepares nothing (no state summary is made), yet the
judge of a method that showed S(H) in its prompt must be shown the S(H) block the method saw: the same judge
request as when the judge ran right after the answer (found by the kill drill: the resumed judge was told
"(no states: the summary is empty)")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

class JudgeOutage:
    """AutoPolicy, except that while `down` every judge request gets an HTTP 500 (a server outage)."""

    def __init__(self) -> None:
        self.policy = AutoPolicy()
        self.down = False

    def __call__(self, body: dict[str, Any]) -> Any:
        if self.down and body.get("model") == "fake-judge":
            raise RuntimeError("scripted judge outage")
        return self.policy(body)


def _batch(store: EventStore, retriever: Any, url: str, cache: Path, **options: Any) -> tuple[BatchPlan, BatchReport]:
    base = {"base_url": url, "retry_base_s": 0.0, "timeout_s": 10.0, "max_retries": 0}
    overrides = {role: {**base, "model": f"fake-{role}"} for role in ("answerer", "state", "judge")}
    roles = LLMRoles(overrides=overrides, cache_path=cache, cache_mode="off")
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store, parse_methods("MEMKB_RAW_TURNS"),
        RunOptions(dataset="mini", judges=("accuracy",), items=1, **options), roles, prompts,
        encoder_id=store.encoder.encoder_id,
    )
    try:
        return plan, execute_batch(store, retriever, plan, roles, prompts, concurrency=1)
    finally:
        roles.close()


def _judge_requests(bodies: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(b["messages"], sort_keys=True) for b in bodies if b.get("model") == "fake-judge"]


def test_a_resumed_judge_is_shown_the_states_the_method_saw(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    outage = JudgeOutage()
    with FakeOpenAI(outage) as fake:
        _plan, whole = _batch(mini_store, mini_retriever, fake.base_url, tmp_path / "a.sqlite", fresh=True)
        assert all(r.status == "finished" for r in whole.runs)
        judged_at_once = _judge_requests(fake.requests)
        # the same batch again, new: answered, but its judge fails (the attempt waits on its judge) ...
        outage.down = True
        cut, first = _batch(mini_store, mini_retriever, fake.base_url, tmp_path / "b.sqlite", fresh=True)
        outage.down = False
        seen = len(fake.requests)
        assert first.runs[0].counts["answered"] == 1 and first.runs[0].status != "finished"
        # ... then resumed with the judge back: nothing to answer, so nothing is prepared, only judged
        _plan, resumed = _batch(
            mini_store, mini_retriever, fake.base_url, tmp_path / "c.sqlite", resume_batch=cut.batch_id
        )
        assert all(r.status == "finished" for r in resumed.runs)
        later = fake.requests[seen:]
    assert not any(b.get("model") != "fake-judge" for b in later)  # nothing answered or summarised again
    judged_on_resume = _judge_requests(later)
    assert len(judged_at_once) == len(judged_on_resume) == 1
    assert "(no states: the summary is empty)" not in judged_on_resume[0]
    assert judged_on_resume == judged_at_once
