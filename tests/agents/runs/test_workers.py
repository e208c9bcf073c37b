"""Several run workers over one batch (agents/runs/claims.py), on the real Neo4j with the `mini` bundle and the
fake OpenAI server: claims are atomic and expire, two `run --worker` processes (one through the neo4j:// routing
scheme, the other killed with SIGKILL mid-run) answer and judge every attempt exactly once with the metrics of
one worker, the routing driver reads its own writes, and claim events replay to the same projection."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.claims import ClaimLost, Claims
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.events import AttemptStarted, NewEvent
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy
from tests.paths import REPO

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]



def _roles(fake: FakeOpenAI) -> LLMRoles:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 10.0}
    # no cache: an attempt answered twice would have to reach the endpoint again
    return LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge")}, cache_mode="off")


def _plan(store: EventStore, roles: LLMRoles, methods: str, *, fresh: bool) -> BatchPlan:
    assert store.encoder is not None
    return plan_batch(
        store,
        parse_methods(methods),
        RunOptions(dataset="mini", judges=("accuracy",), fresh=fresh),
        roles,
        PromptSet(),
        encoder_id=store.encoder.encoder_id,
    )


def _run(
    store: EventStore, mini_retriever: Any, fake: FakeOpenAI, plan: BatchPlan, claims: Claims | None
) -> BatchReport:
    roles = _roles(fake)
    try:
        return execute_batch(store, mini_retriever, plan, roles, PromptSet(), concurrency=1, claims=claims)
    finally:
        roles.close()


def _rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


def _per_attempt(store: EventStore, event_type: str, batch_id: str) -> dict[str, int]:
    rows = _rows(store, "MATCH (e:Event {type: $type}) RETURN e.payload AS p", type=event_type)
    counts: dict[str, int] = {}
    for row in rows:
        attempt = json.loads(row["p"])["attempt_id"]
        if attempt.startswith(batch_id + "-"):
            counts[attempt] = counts.get(attempt, 0) + 1
    return counts


def _verdicts(store: EventStore, batch_id: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(method, item) -> (status, verdict) of the batch's attempts."""
    rows = _rows(
        store,
        "MATCH (a:Attempt)-[:IN_RUN]->(r:Run {batch_id: $batch}) RETURN r.method AS m, a.item_id AS i, "
        "a.status AS s, a.verdict AS v",
        batch=batch_id,
    )
    return {(r["m"], r["i"]): (r["s"], r["v"]) for r in rows}


def _run_ends(store: EventStore, batch_id: str) -> list[str]:
    rows = _rows(store, "MATCH (e:Event) WHERE e.type IN ['RunFinished', 'RunLeftIncomplete'] RETURN e.payload AS p")
    return [json.loads(r["p"])["run_id"] for r in rows if json.loads(r["p"])["run_id"].startswith(batch_id + "-")]


METHODS = "HYBRID"


@pytest.fixture(scope="module")
def single(mini_store: EventStore, mini_retriever: Any) -> tuple[BatchPlan, dict[tuple[str, str], tuple[str, str]]]:
    """One worker (no claims) on a fresh batch: the reference the workers' metrics must equal."""
    with FakeOpenAI(AutoPolicy()) as fake:
        roles = _roles(fake)
        plan = _plan(mini_store, roles, METHODS, fresh=True)
        roles.close()
        report = _run(mini_store, mini_retriever, fake, plan, None)
    assert all(r.status == "finished" for r in report.runs)
    return plan, _verdicts(mini_store, plan.batch_id)


def test_a_claim_is_exclusive_until_released_or_expired(mini_store: EventStore, single: Any) -> None:
    plan, _ = single
    run, item = plan.runs[0], plan.item_ids[0]
    attempt_id = run.attempt_id(item)
    late = [datetime.now(UTC)]
    a = Claims(mini_store, worker="A", ttl_s=30)
    b = Claims(mini_store, worker="B", ttl_s=30, clock=lambda: late[0])
    assert a.claim(run.run_id, item, attempt_id)
    assert not b.claim(run.run_id, item, attempt_id), "B claimed an attempt A holds"
    started = [NewEvent(AttemptStarted(attempt_id=attempt_id, run_id=run.run_id, item_id=item), actor="test")]
    a.store_for(attempt_id).append(started)  # the holder writes
    with pytest.raises(ClaimLost, match="another worker took it over"):
        b.store_for(attempt_id).append(started)
    late[0] = datetime.now(UTC) + timedelta(seconds=31)  # B's clock is past A's expiry: B takes the attempt over
    assert b.claim(run.run_id, item, attempt_id)
    assert b.taken_over == 1
    with pytest.raises(ClaimLost):
        a.store_for(attempt_id).append(started)
    assert a.renew() == 0, "A renewed a claim that is B's now"
    b.release(attempt_id)
    assert a.claim(run.run_id, item, attempt_id), "a released claim is free"
    a.release(attempt_id)
    claim = _rows(
        mini_store,
        "MATCH (c:AttemptClaim {id: $id}) RETURN c.worker AS w, c.state AS s, c.takeovers AS t, c.claims AS n",
        id=attempt_id,
    )
    assert claim == [{"w": "A", "s": "released", "t": 1, "n": 3}]


# --- `run --worker` processes --------------------------------------------------------------------------------


def _env(tmp_path: Path, fake: FakeOpenAI) -> dict[str, str]:
    return cli_env(
        tmp_path,
        COLABENCH_LLM_BASE_URL=fake.base_url,
        COLABENCH_LLM_MODEL="fake-model",
        COLABENCH_LLM_CACHE_MODE="off",  # an attempt answered twice would reach the endpoint twice
    )


def _worker(env: dict[str, str], methods: str, name: str, ttl: float) -> subprocess.Popen[str]:
    args = ["run", "--methods", methods, "--dataset", "mini", "--judges", "accuracy", "--concurrency", "1"]
    args += ["--no-report", "--worker", "--worker-id", name, "--claim-ttl", str(ttl)]
    return subprocess.Popen(
        [sys.executable, "-m", "cli", *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _batch_of(store: EventStore, method: str, workers: set[str]) -> str:
    rows = _rows(
        store,
        "MATCH (c:AttemptClaim)-[:CLAIMS_IN]->(r:Run {method: $m}) WHERE c.worker IN $w "
        "RETURN DISTINCT r.batch_id AS b",
        m=method,
        w=sorted(workers),
    )
    assert len(rows) == 1, rows
    return str(rows[0]["b"])


def test_worker_processes_one_killed_answer_each_attempt_once_with_one_workers_metrics(
    mini_store: EventStore, single: Any, neo4j_settings: Any, tmp_path: Path
) -> None:
    """Two `run --worker` processes on one batch, the second through the routing scheme (neo4j://); the first
    is killed with SIGKILL while it holds a claim: the second takes that attempt over after the 2 s expiry."""
    _, reference = single
    routed = "neo4j://" + neo4j_settings.effective_uri.split("://", 1)[1]
    with FakeOpenAI(AutoPolicy()) as fake:
        env = _env(tmp_path, fake)
        # a barrier, not a delay: every request of the doomed worker (sent with its own API key) is held, so it is
        # certainly in flight on a claimed attempt when it is killed
        fake.hold_when(lambda body: True, api_key="doomed-key")
        doomed = _worker({**env, "COLABENCH_LLM_API_KEY": "doomed-key"}, "HYBRID", "doomed", 2)
        try:
            assert fake.wait_held(1), "the doomed worker never asked the endpoint"
            held: list[dict[str, Any]] = _rows(
                mini_store, "MATCH (c:AttemptClaim {worker: 'doomed'}) WHERE c.state <> 'released' RETURN c.id AS id"
            )
            assert held, "the doomed worker asks the endpoint without holding a claim"
            # the second worker joins the batch while the first sits on its claimed attempt
            survivor = _worker({**env, "NEO4J_URI": routed}, "HYBRID", "survivor", 2)
        finally:
            os.killpg(doomed.pid, signal.SIGKILL)
            doomed.wait(timeout=120)
        fake.release()
        out, err = survivor.communicate(timeout=240)
    assert survivor.returncode == 0, err + out
    batch = _batch_of(mini_store, "HYBRID", {"doomed", "survivor"})
    taken = _rows(
        mini_store,
        "MATCH (c:AttemptClaim) WHERE c.id IN $ids RETURN c.worker AS w, c.takeovers AS t",
        ids=[h["id"] for h in held],
    )
    assert taken and all(r["w"] == "survivor" and r["t"] >= 1 for r in taken), taken
    answered = _per_attempt(mini_store, "AnswerGiven", batch)
    judged = _per_attempt(mini_store, "AnswerJudged", batch)
    assert len(answered) == 4 and set(answered.values()) == {1}
    assert len(judged) == 4 and set(judged.values()) == {1}
    assert _rows(mini_store, "MATCH (r:Run {batch_id: $b}) RETURN r.status AS s", b=batch) == [{"s": "finished"}]
    assert _run_ends(mini_store, batch) == [f"{batch}-hybrid"]
    assert _verdicts(mini_store, batch) == reference


def test_the_routing_scheme_reads_its_own_writes_across_sessions(
    mini_store: EventStore, single: Any, neo4j_settings: Any
) -> None:
    from graph.connection import is_routing, open_driver
    from graph.settings import Neo4jSettings

    routed = "neo4j://" + neo4j_settings.effective_uri.split("://", 1)[1]
    assert is_routing(routed) and not is_routing(neo4j_settings.effective_uri)
    driver = open_driver(Neo4jSettings(uri=routed, user=neo4j_settings.user, password=neo4j_settings.password))
    try:
        store = EventStore(driver, encoder=mini_store.encoder)
        assert store.head() == mini_store.head()
        plan, _ = single
        run, item = plan.runs[0], plan.item_ids[-1]
        claims = Claims(store, worker="routed", ttl_s=30)
        assert claims.claim(run.run_id, item, run.attempt_id(item))  # a managed write transaction
        # a new session sees it at once (the driver's sessions share one bookmark manager)
        assert claims.states([run.attempt_id(item)])[run.attempt_id(item)].worker == "routed"
        claims.release(run.attempt_id(item))
    finally:
        driver.close()


def test_claim_events_replay_to_the_same_projection(mini_store: EventStore, single: Any) -> None:
    from graph.fingerprint import compute_fingerprint
    from graph.replay import drop_projection, replay

    # claim events of this test's own (what earlier tests left depends on how their workers ended): one claim
    # held, one taken and released
    plan, _ = single
    run = plan.runs[0]
    holder = Claims(mini_store, worker="replay-holder", ttl_s=600)
    for item in plan.item_ids[:2]:
        holder.claim(run.run_id, item, run.attempt_id(item))
    holder.release(run.attempt_id(plan.item_ids[1]))
    assert _rows(mini_store, "MATCH (c:AttemptClaim) RETURN count(c) AS n")[0]["n"] > 0
    before = compute_fingerprint(mini_store.driver)
    drop_projection(mini_store)
    replay(mini_store)
    after = compute_fingerprint(mini_store.driver)
    assert after.digest == before.digest, before.differences(after)
