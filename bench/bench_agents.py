"""Evaluation-run harness cost and throughput with the fake OpenAI-compatible endpoint (prints figures).

Uses a throwaway Neo4j (bench/neo4j_for_bench.py) holding the bundled sample (28 items, 3 profiles,
1,368 documents) and the scripted fake server (tests/fake_openai, AutoPolicy: memory search when offered,
knowledge search, read, answer). The response cache is off, so every model call reaches the endpoint.

1. Harness overhead per item per method, endpoint answering instantly, concurrency 1: wall time of an
   attempt minus the time spent inside retrieval (the tools), split into model calls (openai client + HTTP +
   the fake's ~0 ms), event writes and judging; with and without the accuracy judge.
2. Throughput (attempts per second) against --concurrency 1/2/4/8, with the endpoint answering instantly and
   with a fixed latency per call (default 250 ms, a stand-in for a real endpoint).

    python bench/bench_agents.py [--methods HYBRID,RAW_TURNS,MEMKB_RAW_TURNS] [--latency-ms 250] [--items 28]
        [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.llm.roles import LLMRoles  # noqa: E402
from agents.methods import parse_methods  # noqa: E402
from agents.prompts.registry import PromptSet  # noqa: E402
from agents.runs.plan import RunOptions, plan_batch  # noqa: E402
from agents.runs.runner import BatchReport, execute_batch  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.policy import AutoPolicy  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"


def run(
    store: EventStore,
    retriever: object,
    fake: FakeOpenAI,
    methods: str,
    *,
    judges: tuple[str, ...],
    items: int,
    concurrency: int,
) -> tuple[BatchReport, float]:
    base = {"base_url": fake.base_url, "model": "fake", "concurrency": 64, "retry_base_s": 0.0}
    roles = LLMRoles(
        overrides={r: dict(base) for r in ("answerer", "judge", "state")},
        cache_path=Path(tempfile.mkdtemp()) / "unused.sqlite",
        cache_mode="off",
    )
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store,
        parse_methods(methods),
        RunOptions(dataset="sample", items=items, judges=judges, fresh=True),
        roles,
        prompts,
        encoder_id=store.encoder.encoder_id,
    )
    started = time.perf_counter()
    report = execute_batch(store, retriever, plan, roles, prompts, concurrency=concurrency)  # type: ignore[arg-type]
    seconds = time.perf_counter() - started
    roles.close()
    return report, seconds


def _median(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else 0.0


def overhead_table(store: EventStore, retriever: object, methods: list[str], items: int, repeats: int) -> None:
    print(
        f"\n== harness overhead per item (instant endpoint, concurrency 1, cache off; ms; median of each of "
        f"{repeats} runs of {items} items, best run and median run) =="
    )
    print(
        f"{'method':<16}{'judges':<10}{'total':>8}{'retrieval':>11}{'endpoint':>10}{'overhead':>16}"
        f"{'model calls':>13}{'writes':>9}{'judging':>9}{'calls/item':>11}"
    )
    with FakeOpenAI(AutoPolicy()) as fake:
        for method in methods:  # warm every query plan and code path once
            run(store, retriever, fake, method, judges=("accuracy",), items=3, concurrency=1)
        for method in methods:
            for judges in ((), ("accuracy",)):
                reps = []
                for _ in range(repeats):
                    server_before, requests_before = fake.server_seconds, fake.request_count
                    report, _ = run(store, retriever, fake, method, judges=judges, items=items, concurrency=1)
                    rows = [t for ts in report.timings.values() for t in ts if "total_s" in t]
                    endpoint_ms = (fake.server_seconds - server_before) * 1000 / len(rows)
                    reps.append(
                        {
                            "total": _median([t["total_s"] for t in rows]),
                            "tools": _median([t["tools_s"] for t in rows]),
                            "endpoint": endpoint_ms,
                            "overhead": _median([t["total_s"] - t["tools_s"] for t in rows]) - endpoint_ms,
                            "model": report.usage["total"]["seconds"] * 1000 / len(rows) - endpoint_ms,
                            "writes": _median([t["write_s"] for t in rows]),
                            "judging": _median([t.get("judge_s", 0.0) for t in rows]),
                            "calls": (fake.request_count - requests_before) / len(rows),
                        }
                    )
                best = min(reps, key=lambda r: r["overhead"])
                middle = statistics.median(r["overhead"] for r in reps)
                print(
                    f"{method:<16}{'+'.join(judges) or 'none':<10}{best['total']:>8.1f}{best['tools']:>11.1f}"
                    f"{best['endpoint']:>10.1f}{best['overhead']:>9.1f} / {middle:<5.1f}{best['model']:>13.1f}"
                    f"{best['writes']:>9.1f}{best['judging']:>9.1f}{best['calls']:>11.2f}"
                )
    print("overhead = total - retrieval - endpoint (time inside the fake's handler): the openai client and HTTP")
    print("('model calls', endpoint excluded), event writes (one transaction per answered attempt, one per")
    print("judgment), judge material reads, prompt building and bookkeeping. 'judging' includes its model call.")
    print("Other columns are from the best run. The machine is shared: see the load average printed at the end.")


def throughput_table(store: EventStore, retriever: object, methods: str, items: int, latency_ms: float) -> None:
    print(f"\n== throughput: {methods} x {items} items, judges: accuracy, cache off ==")
    print(f"{'latency/call':<14}" + "".join(f"{'conc ' + str(c):>12}" for c in (1, 2, 4, 8)) + "   (attempts/s)")
    for latency in (0.0, latency_ms):
        cells = []
        with FakeOpenAI(AutoPolicy(), latency_s=latency / 1000) as fake:
            for concurrency in (1, 2, 4, 8):
                report, seconds = run(
                    store, retriever, fake, methods, judges=("accuracy",), items=items, concurrency=concurrency
                )
                attempts = sum(r.counts["answered"] for r in report.runs)
                cells.append(attempts / seconds)
        base = cells[0]
        print(
            f"{f'{latency:g} ms':<14}"
            + "".join(f"{c:>8.2f} ({c / base:.1f}x)" if i else f"{c:>12.2f}" for i, c in enumerate(cells))
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--methods", default="HYBRID,RAW_TURNS,MEMKB_RAW_TURNS")
    parser.add_argument("--items", type=int, default=28)
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--repeats", type=int, default=3, help="runs per configuration for the overhead table")
    args = parser.parse_args()
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    encoder = load_encoder()
    with bench_neo4j() as (driver, _pid):
        from query.retriever import Retriever

        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        started = time.perf_counter()
        write_events(store, load_input(SAMPLE))
        print(f"sample ingested in {time.perf_counter() - started:.1f} s")
        retriever = Retriever(driver, encoder)
        try:
            overhead_table(store, retriever, methods, args.items, args.repeats)
            throughput_table(store, retriever, "HYBRID,MEMKB_RAW_TURNS", args.items, args.latency_ms)
        finally:
            retriever.close()
    print(f"\nload average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
