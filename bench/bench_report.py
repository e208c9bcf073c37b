"""Evaluation report generation time for ~1,000 attempts (prints figures): `build_report_data` with and without
per-item evidence traces, and the earlier way of reading traces (one query per item and three per attempt)
timed on the same graph for comparison.

Uses a throwaway Neo4j (bench/neo4j_for_bench.py) holding the bundled sample (28 items). A seed batch runs
the methods on every item against the scripted fake endpoint (tests/fake_openai, AutoPolicy: memory search
when offered, knowledge search, read, answer; accuracy judge). The sample's items are then cloned (new item
and requirement ids, same profile, documents and gold) and every seed attempt's events (AttemptStarted,
ToolCalled, AnswerGiven, AnswerJudged, AttemptFinished) are appended again for the clones, so the report
reads `--attempts` real-shaped attempts spread over one run per method.

    python bench/bench_report.py [--attempts 1000] [--methods HYBRID,MEMKB_RAW_TURNS] [--repeats 3]
        [--resamples 20000]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.judging.reference import load_attempt_trace, load_item_reference  # noqa: E402
from agents.llm.roles import LLMRoles  # noqa: E402
from agents.methods import parse_methods  # noqa: E402
from agents.metrics.attempts import load_run_record  # noqa: E402
from agents.prompts.registry import PromptSet  # noqa: E402
from agents.reports.data import build_report_data  # noqa: E402
from agents.runs.plan import RunOptions, plan_batch  # noqa: E402
from agents.runs.runner import execute_batch  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.cypher_files import load_cypher  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.events import EVENT_TYPES, NewEvent  # noqa: E402
from graph.store import EventStore  # noqa: E402
from graph.stored_event import StoredEvent  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.policy import AutoPolicy  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"
ATTEMPT_TYPES = ("AttemptStarted", "ToolCalled", "AnswerGiven", "AnswerJudged", "AttemptFinished")
ID_FIELDS = ("attempt_id", "tool_call_id", "judgment_id")
BATCH_ID = "bench-report"
APPEND_CHUNK = 2_000


def seed_batch(store: EventStore, methods: str) -> list[str]:
    """Run `methods` on every sample item against the fake endpoint; returns the run ids."""
    assert store.encoder is not None
    from query.retriever import Retriever

    retriever = Retriever(store.driver, store.encoder)
    try:
        with FakeOpenAI(AutoPolicy()) as fake:
            base = {"base_url": fake.base_url, "model": "fake", "concurrency": 16, "retry_base_s": 0.0}
            roles = LLMRoles(
                overrides={r: dict(base) for r in ("answerer", "judge", "state")},
                cache_path=Path(tempfile.mkdtemp()) / "unused.sqlite",
                cache_mode="off",
            )
            prompts = PromptSet()
            try:
                plan = plan_batch(
                    store,
                    parse_methods(methods),
                    RunOptions(dataset="sample", judges=("accuracy",), fresh=True),
                    roles,
                    prompts,
                    encoder_id=store.encoder.encoder_id,
                )
                execute_batch(store, retriever, plan, roles, prompts, concurrency=4)
            finally:
                roles.close()
    finally:
        retriever.close()
    return [r.run_id for r in plan.runs]


def _new(kind: str, payload: dict[str, Any]) -> NewEvent:
    return NewEvent(EVENT_TYPES[kind].model_validate(payload), actor="bench_report")


def _append(store: EventStore, events: list[NewEvent]) -> None:
    for start in range(0, len(events), APPEND_CHUNK):
        store.append(events[start : start + APPEND_CHUNK])


def clone_items(store: EventStore, copies: int) -> dict[str, list[str]]:
    """`copies` clones of every sample item (ItemCreated and its RequirementMapped events, new ids);
    returns original item id -> clone ids."""
    items = list(store.read(types=["ItemCreated"]))
    requirements = list(store.read(types=["RequirementMapped"]))
    clones: dict[str, list[str]] = {e.payload["item_id"]: [] for e in items}
    events: list[NewEvent] = []
    for copy in range(1, copies + 1):
        for e in items:
            new_id = f"{e.payload['item_id']}~c{copy}"
            clones[e.payload["item_id"]].append(new_id)
            events.append(_new("ItemCreated", {**e.payload, "item_id": new_id}))
        for e in requirements:
            payload = {
                **e.payload,
                "item_id": f"{e.payload['item_id']}~c{copy}",
                "requirement_id": f"{e.payload['requirement_id']}~c{copy}",
            }
            events.append(_new("RequirementMapped", payload))
    _append(store, events)
    return clones


def _attempt_events(store: EventStore, run_id: str) -> dict[str, list[StoredEvent]]:
    """item id -> the events of the run's attempt at it, in log order."""
    prefix = f"{run_id}:"
    out: dict[str, list[StoredEvent]] = {}
    for e in store.read(types=list(ATTEMPT_TYPES)):
        attempt_id = str(e.payload.get("attempt_id", ""))
        if attempt_id.startswith(prefix):
            out.setdefault(attempt_id[len(prefix) :], []).append(e)
    return out


def _renamed(payload: dict[str, Any], old_attempt: str, new_attempt: str, run_id: str, item_id: str) -> dict[str, Any]:
    out = dict(payload)
    for key in ID_FIELDS:
        if key in out:
            value = str(out[key])
            out[key] = value.replace(old_attempt, new_attempt) if old_attempt in value else f"{value}~{new_attempt}"
    if "run_id" in out:
        out["run_id"] = run_id
    if "item_id" in out:
        out["item_id"] = item_id
    return out


def clone_runs(store: EventStore, seed_runs: list[str], clones: dict[str, list[str]], per_run: int) -> list[str]:
    """One bench run per seed run over `per_run` cloned items, each attempt a copy of the seed attempt at the
    item it was cloned from; returns the new run ids."""
    copies = max(len(v) for v in clones.values())
    item_ids = [v[copy] for copy in range(copies) for v in clones.values() if copy < len(v)][:per_run]
    run_ids = []
    for seed in seed_runs:
        started = next(e for e in store.read(types=["RunStarted"]) if e.payload["run_id"] == seed)
        finished = next((e for e in store.read(types=["RunFinished"]) if e.payload["run_id"] == seed), None)
        attempts = _attempt_events(store, seed)
        run_id = f"{seed}-bench"
        events = [_new("RunStarted", {**started.payload, "run_id": run_id, "batch_id": BATCH_ID, "item_ids": item_ids})]
        for item_id in item_ids:
            original = item_id.split("~c", 1)[0]
            old_attempt, new_attempt = f"{seed}:{original}", f"{run_id}:{item_id}"
            for e in attempts.get(original, []):
                events.append(_new(e.type, _renamed(e.payload, old_attempt, new_attempt, run_id, item_id)))
        if finished is not None:
            events.append(_new("RunFinished", {**finished.payload, "run_id": run_id}))
        _append(store, events)
        run_ids.append(run_id)
        print(f"  run {run_id}: {len(item_ids)} attempts, {len(events):,} events", flush=True)
    return run_ids


def earlier_trace_reads(store: EventStore, run_ids: list[str]) -> int:
    """The reads the report made before batching: one reference query per item, one trace and one judgment
    query per attempt (output not assembled). Returns the number of queries."""
    queries = 0
    records = [load_run_record(store.driver, store.database, r) for r in run_ids]
    for item_id in dict.fromkeys(i for r in records for i in r.item_ids):
        load_item_reference(store.driver, store.database, item_id)
        queries += 1
        for record in records:
            attempt_id = f"{record.run_id}:{item_id}"
            load_attempt_trace(store.driver, store.database, attempt_id)
            with store.driver.session(database=store.database) as session:
                list(session.run(load_cypher("agents/attempt_judgments"), attempt_id=attempt_id))
            queries += 2
    return queries


def timed(repeats: int, work: Any) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, default=1000)
    parser.add_argument("--methods", default="HYBRID,MEMKB_RAW_TURNS")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=20_000, help="bootstrap resamples (the report's default)")
    args = parser.parse_args()
    n_methods = len([m for m in args.methods.split(",") if m.strip()])
    per_run = math.ceil(args.attempts / n_methods)
    encoder = load_encoder()
    with bench_neo4j() as (driver, _pid):
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        t0 = time.perf_counter()
        write_events(store, load_input(SAMPLE))
        print(f"sample ingested in {time.perf_counter() - t0:.1f} s", flush=True)
        t0 = time.perf_counter()
        seeds = seed_batch(store, args.methods)
        print(f"seed batch ({args.methods} x 28 items, fake endpoint) in {time.perf_counter() - t0:.1f} s", flush=True)
        t0 = time.perf_counter()
        n_items = len(list(store.read(types=["ItemCreated"])))
        clones = clone_items(store, math.ceil(per_run / n_items))
        run_ids = clone_runs(store, seeds, clones, per_run)
        print(f"cloned to {per_run * len(run_ids):,} attempts in {time.perf_counter() - t0:.1f} s", flush=True)

        def report(traces: bool) -> dict[str, Any]:
            return build_report_data(driver, store.database, run_ids, resamples=args.resamples, traces=traces)

        data = report(True)  # warm the query plans
        n_attempts = sum(len(i["attempts"]) for i in data["items"])
        n_calls = sum(len(a.get("calls", [])) for i in data["items"] for a in i["attempts"].values())
        full = timed(args.repeats, lambda: report(True))
        bare = timed(args.repeats, lambda: report(False))
        queries = earlier_trace_reads(store, run_ids)  # warm
        earlier = timed(args.repeats, lambda: earlier_trace_reads(store, run_ids))
    print(
        f"\n== build_report_data: {len(run_ids)} runs, {len(data['items'])} items, {n_attempts:,} attempts, "
        f"{n_calls:,} tool calls, {args.resamples:,} bootstrap resamples; seconds, best / median of {args.repeats} =="
    )
    print(f"{'with traces (the report)':<46}{min(full):>8.2f} / {statistics.median(full):.2f}")
    print(f"{'without traces (--no-traces)':<46}{min(bare):>8.2f} / {statistics.median(bare):.2f}")
    print(f"{'traces alone (difference)':<46}{min(full) - min(bare):>8.2f}")
    print(
        f"{f'earlier trace reads alone ({queries:,} queries)':<46}{min(earlier):>8.2f} / "
        f"{statistics.median(earlier):.2f}"
    )
    print(f"target: under 10 s for 1,000 attempts -> {'met' if min(full) < 10 else 'NOT met'}")
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
