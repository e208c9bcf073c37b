"""EndpointFailed ids are content-derived (run, role, stage, attempt or profile, try number): re-appending the
same failure (a retried or replayed append) leaves one EndpointFailure, a second event with the same id updates
it instead of adding a duplicate, and a resumed run that fails again records the next try under a new id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.failure_ids import failure_id
from agents.runs.plan import RunOptions, plan_batch
from agents.runs.runner import execute_batch
from graph.events import EndpointFailed, NewEvent
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI, Reply
from tests.fake_openai.policy import AutoPolicy, schema_title
from tests.fake_openai.server import HttpError

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]


def test_failure_id_depends_on_run_role_stage_subject_and_try_only() -> None:
    one = failure_id("run-a", "judge", "judge:accuracy", attempt_id="run-a:i1", try_number=1)
    assert one == failure_id("run-a", "judge", "judge:accuracy", attempt_id="run-a:i1", try_number=1)
    assert one.startswith("run-a:i1:fail:")
    others = {
        failure_id("run-a", "judge", "judge:accuracy", attempt_id="run-a:i1", try_number=2),
        failure_id("run-a", "judge", "judge:quality", attempt_id="run-a:i1", try_number=1),
        failure_id("run-a", "answerer", "judge:accuracy", attempt_id="run-a:i1", try_number=1),
        failure_id("run-a", "judge", "judge:accuracy", attempt_id="run-a:i2", try_number=1),
        failure_id("run-b", "judge", "judge:accuracy", attempt_id="run-a:i1", try_number=1),
        failure_id("run-a", "memory", "memory:mem0", profile_id="p1", try_number=1),
    }
    assert one not in others and len(others) == 6


def failure_nodes(store: EventStore, run_id: str) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [
            dict(r)
            for r in session.run(
                "MATCH (f:EndpointFailure)-[:IN_RUN]->(:Run {id: $r}) OPTIONAL MATCH (a:Attempt)-[w:FAILED_WITH]->(f) "
                "RETURN f.id AS id, f.error AS error, f.seq AS seq, count(w) AS links ORDER BY f.seq",
                r=run_id,
            )
        ]


def test_reappended_or_repeated_failure_is_one_node_and_a_resumed_failing_try_is_a_new_one(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    policy = AutoPolicy()

    def judge_refused(body: dict[str, Any]) -> Reply:
        if schema_title(body) == "AccuracyOut":
            raise HttpError(400, "context exceeded (scripted)")
        return policy(body)

    def run_once(retry_failed: bool = False) -> Any:
        base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 5.0}
        roles = LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge")}, cache_path=tmp_path / "c.sqlite")
        prompts = PromptSet()
        assert mini_store.encoder is not None
        plan = plan_batch(
            mini_store, parse_methods("RAW_TURNS"),
            RunOptions(dataset="mini", item_ids=("i-mini-01",), judges=("accuracy",)), roles, prompts,
            encoder_id=mini_store.encoder.encoder_id,
        )  # fmt: skip
        try:
            execute_batch(mini_store, mini_retriever, plan, roles, prompts, concurrency=1, retry_failed=retry_failed)
        finally:
            roles.close()
        return plan.runs[0].run_id

    with FakeOpenAI(judge_refused) as fake:
        run_id = run_once()
        first = failure_nodes(mini_store, run_id)
        assert len(first) == 1 and first[0]["links"] == 1
        expected = failure_id(run_id, "judge", "judge:accuracy", attempt_id=f"{run_id}:i-mini-01", try_number=1)
        assert first[0]["id"] == expected
        # The same failure appended again (a retried transaction, a replayed log): no new event, one node.
        with mini_store.driver.session() as session:
            payload = session.run(
                "MATCH (e:Event {type: 'EndpointFailed'}) WHERE e.payload CONTAINS $id RETURN e.payload AS p",
                id=expected,
            ).single()
        assert payload is not None
        event = EndpointFailed.model_validate_json(payload["p"])
        head = mini_store.head().seq
        mini_store.append([NewEvent(event, actor="judge:fake-model")])
        assert mini_store.head().seq == head
        # Another event with the same id (two invocations resuming the batch at once): still one node.
        mini_store.append([NewEvent(event.model_copy(update={"error": "context exceeded (other)"}), actor="x")])
        again = failure_nodes(mini_store, run_id)
        assert [(f["id"], f["links"]) for f in again] == [(expected, 1)]
        assert again[0]["error"] == "context exceeded (other)"
        # A plain rerun does not send a refused request again (issue 30.3): still one node.
        run_once()
        assert [f["id"] for f in failure_nodes(mini_store, run_id)] == [expected]
        # A rerun with --retry-failed tries the judge again and fails again: the second try, under its own id.
        run_once(retry_failed=True)
    resumed = failure_nodes(mini_store, run_id)
    assert [f["id"] for f in resumed] == [
        expected,
        failure_id(run_id, "judge", "judge:accuracy", attempt_id=f"{run_id}:i-mini-01", try_number=2),
    ]
