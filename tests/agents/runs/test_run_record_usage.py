"""The run record holds every LLM request of a run (issue 27): the `state` role's summaries and the `memory` role's
requests of the run's own memory build are in the record of the run that needed them, once per batch, so the
records summed per role give what the CLI prints for the batch; and the runs of one batch share one dataset
fingerprint, also when a resume starts some of them after others have written. A spending limit that stops a
batch while it prepares (no run started, so no record) leaves an account of what each preparation step spent,
per role, that sums to the batch's usage."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.metrics.attempts import load_run_record
from agents.prompts.registry import PromptSet
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.prep_usage import describe_preparation
from agents.runs.runner import BatchReport, execute_batch
from graph.events import RunStarted
from graph.store import EventStore
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

ROLES = ("answerer", "judge", "state", "memory")


def _run(
    store: EventStore, retriever: Any, fake: FakeOpenAI, methods: str, cache: Path, max_tokens: int | None = None
) -> tuple[BatchPlan, BatchReport]:
    """A batch where each role asks a model of its own name (`fake-<role>`), so the fake tells the roles apart."""
    base = {"base_url": fake.base_url, "retry_base_s": 0.0, "timeout_s": 5.0}
    roles = LLMRoles(
        overrides={role: {**base, "model": f"fake-{role}"} for role in ROLES}, cache_path=cache, cache_mode="off"
    )
    if max_tokens is not None:
        roles.limit_spending(max_tokens=max_tokens)
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store, parse_methods(methods), RunOptions(dataset="mini", judges=("accuracy",), items=2), roles, prompts,
        encoder_id=store.encoder.encoder_id,
    )
    try:
        return plan, execute_batch(store, retriever, plan, roles, prompts, concurrency=2)
    finally:
        roles.close()


def _recorded(store: EventStore, plan: BatchPlan, counter: str) -> Counter[str]:
    """`counter` per role, summed over the run records of the batch."""
    total: Counter[str] = Counter()
    for run in plan.runs:
        usage = load_run_record(store.driver, store.database, run.run_id).usage
        for role, counters in usage.items():
            if role != "total":
                total[role] += int(counters.get(counter, 0))
    return total


def test_state_and_memory_requests_of_a_run_are_in_its_record(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        # MEM0 builds its memory inside the run (the `memory` role); MEMKB_RAW_TURNS shows S(H) (the `state` role)
        plan, report = _run(mini_store, mini_retriever, fake, "MEM0,MEMKB_RAW_TURNS", tmp_path / "c.sqlite")
        sent = Counter(str(body["model"]).removeprefix("fake-") for body in fake.requests)
    assert all(r.status == "finished" for r in report.runs)
    assert sent["state"] > 0 and sent["memory"] > 0  # the batch did prepare with both roles
    recorded = _recorded(mini_store, plan, "endpoint_requests")
    printed = Counter({role: int(c["endpoint_requests"]) for role, c in report.usage.items() if role != "total"})
    assert +recorded == +printed == +sent  # every request of the batch, in exactly one run's record
    assert _recorded(mini_store, plan, "calls") == Counter(
        {role: int(c["calls"]) for role, c in report.usage.items() if role != "total"}
    )
    # each preparation is paid by the run that needed it
    by_run = {r.method.name: load_run_record(mini_store.driver, mini_store.database, r.run_id).usage for r in plan.runs}
    assert by_run["MEM0"]["memory"]["endpoint_requests"] == sent["memory"] and "state" not in by_run["MEM0"]
    assert by_run["MEMKB_RAW_TURNS"]["state"]["endpoint_requests"] == sent["state"]
    assert "memory" not in by_run["MEMKB_RAW_TURNS"]


def test_runs_a_resume_starts_record_the_dataset_fingerprint_of_their_batch(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    append = EventStore.append

    class Killed(BaseException):
        """The process dies right after the batch's first run was started."""

    def dying_append(self: EventStore, events: Any, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(e.event, RunStarted) for e in events) and started:
            raise Killed
        result = append(self, events, *args, **kwargs)
        started.extend(e.event.run_id for e in events if isinstance(e.event, RunStarted))
        return result

    with FakeOpenAI(AutoPolicy()) as fake:
        monkeypatch.setattr(EventStore, "append", dying_append)
        with pytest.raises(Killed):
            _run(mini_store, mini_retriever, fake, "HYBRID,MEMKB_RAW_TURNS", tmp_path / "c.sqlite")
        monkeypatch.setattr(EventStore, "append", append)
        assert len(started) == 1
        plan, report = _run(mini_store, mini_retriever, fake, "HYBRID,MEMKB_RAW_TURNS", tmp_path / "c.sqlite")
    assert all(r.status == "finished" for r in report.runs)
    records = [load_run_record(mini_store.driver, mini_store.database, r.run_id) for r in plan.runs]
    assert len({r.dataset_fingerprint for r in records}) == 1  # one batch, one dataset
    # ... the log head just before the batch's first run started (not one holding the batch's own events)
    first = min(r.started_seq for r in records)
    with mini_store.driver.session(database=mini_store.database) as session:
        before = session.run("MATCH (e:Event {seq: $seq}) RETURN e.hash AS hash", seq=first - 1).single()
    assert before is not None and records[0].dataset_fingerprint == before["hash"]


def test_a_limit_reached_while_preparing_accounts_for_what_each_preparation_step_spent(
    mini_store: EventStore, mini_retriever: Any, tmp_path: Path
) -> None:
    with FakeOpenAI(AutoPolicy()) as fake:
        # AMEM builds its memory before any run starts (the `memory` role); one token is spent by the first reply
        plan, report = _run(mini_store, mini_retriever, fake, "AMEM", tmp_path / "c.sqlite", max_tokens=1)
        sent = Counter(str(body["model"]).removeprefix("fake-") for body in fake.requests)
    assert report.stopped is not None and "budget reached" in report.stopped
    assert sent["memory"] >= 1 and set(sent) == {"memory"}  # stopped while preparing: nothing answered
    with mini_store.driver.session(database=mini_store.database) as session:
        started = session.run(
            "MATCH (e:Event {type: 'RunStarted'}) WHERE e.payload CONTAINS $run RETURN count(e) AS n",
            run=plan.runs[0].run_id,
        ).single()
    assert started is not None and started["n"] == 0  # no run started: no run record holds the usage
    assert list(report.preparation) == ["memory:amem"]
    for counter in ("endpoint_requests", "calls", "tokens_in", "tokens_out"):
        accounted: Counter[str] = Counter()
        for usage in report.preparation.values():
            for role, counters in usage.items():
                if role != "total":
                    accounted[role] += int(counters[counter])
        printed = Counter({role: int(c[counter]) for role, c in report.usage.items() if role != "total"})
        assert +accounted == +printed, counter  # the account is the batch's whole usage
    assert report.preparation["memory:amem"]["memory"]["endpoint_requests"] == sent["memory"]
    lines = describe_preparation(report.preparation)
    assert lines == [line for line in lines if line.startswith("memory:amem: memory role ")] and len(lines) == 1
    assert f"({sent['memory']} endpoint requests" in lines[0]
