"""The Ray executor (`run --executor ray`, agents/runs/ray_executor.py) on one local Ray instance for the module,
over the real Neo4j with the `mini` bundle and the fake OpenAI server: it gives every item the thread pool's
verdict and the same run metrics, answers and judges each attempt exactly once even when an actor is killed
mid-attempt, records the actors' LLM usage in the run, stops on SIGINT with exit 130 leaving a batch that resumes
at once (the abandoned attempts' claims are released), and without Ray says how to install it.

Ray is an optional extra: `make test` runs the suite in the environment of scripts/setup_ray_env.sh and sets
COLABENCH_TESTS_NEED_RAY=1, so a missing Ray fails there instead of skipping."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

from agents.llm.roles import LLMRoles
from agents.methods import parse_methods
from agents.prompts.registry import PromptSet
from agents.runs.claims import Claims
from agents.runs.plan import BatchPlan, RunOptions, plan_batch
from agents.runs.runner import BatchReport, execute_batch
from graph.store import EventStore
from tests.cli.test_run_and_report_processes import cli_env
from tests.conftest import serial_group
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.barriers import AllButTheFirstItems, about, mini_items, mini_questions
from tests.fake_openai.policy import AutoPolicy
from tests.paths import REPO

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config"), serial_group("ray")]

METHODS = "HYBRID,MEMKB_RAW_TURNS"  # MemKB on raw turns: the actors read the S(H) the driver wrote
JUDGES = ("accuracy", "error_analysis")


def _roles(fake: FakeOpenAI) -> LLMRoles:
    base = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 20.0}
    # no cache: an attempt answered twice would have to reach the endpoint again, and usage counts every call
    return LLMRoles(overrides={r: dict(base) for r in ("answerer", "judge", "state")}, cache_mode="off")


def _plan(store: EventStore, roles: LLMRoles) -> BatchPlan:
    assert store.encoder is not None
    return plan_batch(
        store,
        parse_methods(METHODS),
        RunOptions(dataset="mini", judges=JUDGES, fresh=True),
        roles,
        PromptSet(),
        encoder_id=store.encoder.encoder_id,
    )


def _rows(store: EventStore, query: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [dict(r) for r in session.run(query, **params)]


def _per_attempt(store: EventStore, event_type: str, batch_id: str) -> dict[str, int]:
    """attempt id (and judgment kind) -> how many events of the type the batch's attempts have."""
    counts: dict[str, int] = {}
    for row in _rows(store, "MATCH (e:Event {type: $type}) RETURN e.payload AS p", type=event_type):
        payload = json.loads(row["p"])
        if payload["attempt_id"].startswith(batch_id + "-"):
            key = payload["attempt_id"] + (f"/{payload['kind']}" if "kind" in payload else "")
            counts[key] = counts.get(key, 0) + 1
    return counts


def _metrics(store: EventStore, batch_id: str) -> dict[str, Any]:
    """method -> (run metrics, per-item attempt metrics), run ids left out, as the report computes them."""
    from agents.metrics.attempts import load_attempt_metrics, load_run_record, summarise_run

    out: dict[str, Any] = {}
    for row in _rows(store, "MATCH (r:Run {batch_id: $b}) RETURN r.id AS id, r.method AS m", b=batch_id):
        record = load_run_record(store.driver, store.database, row["id"])
        attempts = load_attempt_metrics(store.driver, store.database, record)
        run = summarise_run(record, attempts).model_dump(exclude={"run_id"})
        items = {a.item_id: a.model_dump(exclude={"run_id"}) for a in attempts}
        out[row["m"]] = (run, items)
    return out


def _usage(store: EventStore, batch_id: str) -> dict[str, dict[str, int]]:
    """method -> role -> LLM calls, from the runs' RunFinished events."""
    rows = _rows(
        store,
        "MATCH (r:Run {batch_id: $b}) MATCH (e:Event {type: 'RunFinished'}) WHERE e.payload CONTAINS r.id "
        "RETURN r.method AS m, e.payload AS p",
        b=batch_id,
    )
    return {
        r["m"]: {role: c["calls"] for role, c in json.loads(r["p"])["usage"].items() if role != "state"} for r in rows
    }


@pytest.fixture(scope="module")
def thread_pool_batch(mini_store: EventStore, mini_retriever: Any) -> str:
    """The reference: the thread pool (no claims) on a fresh batch."""
    with FakeOpenAI(AutoPolicy()) as fake:
        roles = _roles(fake)
        try:
            plan = _plan(mini_store, roles)
            report = execute_batch(mini_store, mini_retriever, plan, roles, PromptSet(), concurrency=2)
        finally:
            roles.close()
    assert all(r.status == "finished" for r in report.runs)
    return plan.batch_id


def test_ray_executor_gives_the_thread_pools_verdicts_and_metrics_answering_each_attempt_once_an_actor_killed(
    local_ray: Any, mini_store: EventStore, mini_retriever: Any, thread_pool_batch: str, neo4j_settings: Any
) -> None:
    """Two actors on the local instance; one is killed (ray.kill) while it holds an attempt's claim (its request
    held by the endpoint): its claim is released, a third actor takes the attempt, and the batch still equals the
    thread pool's."""
    from agents.runs.ray_executor import RayExecutor

    questions = {item_id: question for item_id, question in mini_items()}
    with FakeOpenAI(AutoPolicy()) as fake:
        roles = _roles(fake)
        claims = Claims(mini_store, worker="ray-test", ttl_s=300)
        executor = RayExecutor(workers=2, claims=claims, roles=roles, prompts=PromptSet(), neo4j=neo4j_settings)
        killed: list[str] = []
        # a barrier, not a delay: the requests about one item are held, so the actor working on it is certainly
        # mid-attempt (holding its claim) when it is killed; they are let through once it is dead
        first = sorted(questions)[0]
        fake.hold_when(about(questions[first]))

        def kill_the_actor_holding_the_held_attempt() -> None:
            if not fake.wait_held(1):
                return
            holders = _rows(
                mini_store,
                "MATCH (c:AttemptClaim {item_id: $i}) WHERE c.worker STARTS WITH 'ray-test/' AND c.state <> 'released' "
                "RETURN c.worker AS w ORDER BY w",
                i=first,
            )
            by_worker = {a.worker: a for a in executor._actors}  # the test reaches in to kill one of the actors
            for holder in holders:
                if holder["w"] in by_worker:
                    local_ray.kill(by_worker[holder["w"]].handle, no_restart=True)
                    killed.append(holder["w"])
                    break
            fake.release()

        killer = threading.Thread(target=kill_the_actor_holding_the_held_attempt, daemon=True)
        try:
            plan = _plan(mini_store, roles)
            killer.start()
            with executor:
                report: BatchReport = execute_batch(
                    mini_store,
                    mini_retriever,
                    plan,
                    roles,
                    PromptSet(),
                    concurrency=2,
                    claims=claims,
                    executor=executor,
                )
        finally:
            killer.join(timeout=5)
            roles.close()
    assert len(killed) == 1 and killed[0] in {"ray-test/ray1", "ray-test/ray2"}, killed
    assert executor.replaced == 1 and executor.started == 3
    assert local_ray.is_initialized(), "the executor left a Ray instance it did not start"
    assert all(r.status == "finished" for r in report.runs), report
    batch = plan.batch_id
    answered = _per_attempt(mini_store, "AnswerGiven", batch)
    judged = _per_attempt(mini_store, "AnswerJudged", batch)
    assert len(answered) == 8 and set(answered.values()) == {1}  # 2 methods x 4 items, each answered once
    assert judged and set(judged.values()) == {1}  # and each judgment of each kind given once
    claimed = [
        (json.loads(r["p"]), r["actor"])
        for r in _rows(mini_store, "MATCH (e:Event {type: 'AttemptClaimed'}) RETURN e.payload AS p, e.actor AS actor")
    ]
    mine = [(p["worker"], p["state"], actor) for p, actor in claimed if p["run_id"].startswith(batch + "-")]
    assert {w for w, _, _ in mine} == {"ray-test/ray1", "ray-test/ray2", "ray-test/ray3"}
    # the killed actor's claim was released for it by the driver, so its attempt did not wait for the expiry
    assert (killed[0], "released", "worker:ray-test") in mine
    assert _metrics(mini_store, batch) == _metrics(mini_store, thread_pool_batch)
    # the actors' LLM usage is in the runs' records (the killed actor's attempt was answered again)
    assert _usage(mini_store, batch).keys() == _usage(mini_store, thread_pool_batch).keys()
    for method, calls in _usage(mini_store, thread_pool_batch).items():
        assert calls["answerer"] > 0 and calls["judge"] > 0
        assert _usage(mini_store, batch)[method]["judge"] == calls["judge"]


def _env(tmp_path: Path, fake: FakeOpenAI) -> dict[str, str]:
    return cli_env(
        tmp_path,
        COLABENCH_LLM_BASE_URL=fake.base_url,
        COLABENCH_LLM_MODEL="fake-model",
        COLABENCH_LLM_CACHE_MODE="off",
    )


def test_sigint_stops_a_ray_run_with_exit_130_and_the_rerun_resumes_without_waiting_for_claims(
    local_ray: Any, mini_store: EventStore, mini_retriever: Any, neo4j_settings: Any, tmp_path: Path
) -> None:
    """`run --executor ray --ray-address` (a second driver joining the module's instance, the project's code
    shipped with the job) gets SIGINT after its first answer while the endpoint holds a request: exit 130 with the
    request still held (abandoned after the 5 s grace), nothing half-written, no claim left held; the same batch
    resumed with a 300 s claim TTL finishes with no claim to wait for, each attempt answered once."""
    from agents.runs.ray_executor import RayExecutor

    address = local_ray.get_runtime_context().gcs_address
    before = {r["id"] for r in _rows(mini_store, "MATCH (r:Run) RETURN r.id AS id")}
    args = ["run", "--methods", "HYBRID", "--dataset", "mini", "--judges", "accuracy", "--concurrency", "2"]
    args += ["--fresh", "--no-report", "--executor", "ray", "--ray-address", address, "--claim-ttl", "300"]
    with FakeOpenAI(AutoPolicy()) as fake:
        # a barrier, not a delay: the first item is answered, every request about another item is held until the
        # test has sent SIGINT and the CLI has exited, so one is certainly in flight at SIGINT
        fake.hold_when(AllButTheFirstItems(mini_questions()))
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", *args],
            env=_env(tmp_path, fake),
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            query = (
                "MATCH (a:Attempt {status: 'answered'})-[:IN_RUN]->(r:Run {dataset: 'mini'}) "
                "WHERE NOT r.id IN $before RETURN r.batch_id AS b"
            )
            bound = time.monotonic() + 600  # a generous bound on a condition, not a speed target
            while not (answered := _rows(mini_store, query, before=sorted(before))):
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < bound, "no attempt was answered"
                time.sleep(0.1)
            batch = answered[0]["b"]
            assert fake.wait_held(1), "no request about a second item reached the endpoint"
            assert process.poll() is None, process.communicate()
            process.send_signal(signal.SIGINT)
            interrupted_at = time.monotonic()
            out, err = process.communicate(timeout=300)
        finally:
            if process.poll() is None:
                process.kill()
        print(f"SIGINT -> exit in {time.monotonic() - interrupted_at:.2f} s (the held request never answered)")
        assert process.returncode == 130, out + err
        assert "abandoned" in err and "Resume with: ./colabench run" in err
        half = _rows(
            mini_store,
            "MATCH (a:Attempt)-[:IN_RUN]->(r:Run {batch_id: $b}) "
            "WHERE a.status IS NULL OR (a.status = 'answered' AND a.answer IS NULL) RETURN a.id AS id",
            b=batch,
        )
        assert half == []
        held = _rows(
            mini_store,
            "MATCH (c:AttemptClaim)-[:CLAIMS_IN]->(r:Run {batch_id: $b}) WHERE c.state <> 'released' RETURN c.id AS id",
            b=batch,
        )
        assert held == [], "a claim of the interrupted run was left to expire"
        fake.release()
        roles = _roles(fake)
        try:
            plan = plan_batch(
                mini_store,
                parse_methods("HYBRID"),
                RunOptions(dataset="mini", judges=("accuracy",), resume_batch=batch),
                roles,
                PromptSet(),
                encoder_id=mini_store.encoder.encoder_id,  # type: ignore[union-attr]
            )
            claims = Claims(mini_store, worker="resumer", ttl_s=300)
            started = time.monotonic()
            with RayExecutor(workers=2, claims=claims, roles=roles, prompts=PromptSet(), neo4j=neo4j_settings) as ex:
                report = execute_batch(
                    mini_store, mini_retriever, plan, roles, PromptSet(), concurrency=2, claims=claims, executor=ex
                )
            resumed_in = time.monotonic() - started
        finally:
            roles.close()
    print(f"resumed in {resumed_in:.1f} s")
    assert report.runs[0].status == "finished"
    answered_once = _per_attempt(mini_store, "AnswerGiven", batch)
    assert len(answered_once) == 4 and set(answered_once.values()) == {1}


def test_the_ray_executor_without_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from agents.runs.ray_executor import RayNotInstalled, import_ray
    from cli import app
    from graph.errors import ColabenchError

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as where it is missing
    with pytest.raises(RayNotInstalled) as raised:
        import_ray()
    assert isinstance(raised.value, ColabenchError)
    assert "scripts/setup_ray_env.sh" in str(raised.value) and "requirements-ray.lock" in str(raised.value)
    monkeypatch.setitem(sys.modules, "ray", types.ModuleType("ray"))  # a folder `ray` in the working directory
    with pytest.raises(RayNotInstalled, match="found something else"):
        import_ray()
    monkeypatch.setitem(sys.modules, "ray", None)
    done = CliRunner().invoke(app, ["run", "--methods", "HYBRID", "--dataset", "mini", "--executor", "ray"])
    assert done.exit_code == 1, done.output
    assert "needs Ray" in " ".join(done.output.split()) and "COLABENCH_RAY=1" in done.output
