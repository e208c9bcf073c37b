"""Attempts per second against the number of workers, with a fake endpoint answering every call after a fixed
latency (default 250 ms): one `run` process with a thread pool of N (`--concurrency N`), and N `run --worker`
processes with one attempt each in flight (`--concurrency 1`), all on one throwaway Neo4j holding the sample.

Throughput is read from the graph (process start-up left out): answered attempts over the time from the batch's
RunStarted (threads) or from the last worker's first claim (processes) to the last AttemptFinished.
The LLM cache is off, so every call reaches the endpoint.
Prints the load average beside each figure: on a shared machine the CPU, not Neo4j, is usually what saturates.

    python bench/bench_workers.py [--workers 1,2,4] [--latency-ms 250] [--items 28] [--methods HYBRID]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from graph.connection import open_driver  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.server import throwaway_server  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"


def _fake(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_openai", "--latency-ms", str(latency_ms)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.terminate()
        raise SystemExit(f"the fake endpoint did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def _run_args(methods: str, items: int, concurrency: int) -> list[str]:
    return [
        sys.executable, "-m", "cli", "run", "--methods", methods, "--dataset", "sample", "--items", str(items),
        "--judges", "none", "--no-report", "--concurrency", str(concurrency),
    ]  # fmt: skip


def _newest_batch(store: EventStore, before: set[str]) -> str | None:
    with store.driver.session() as session:
        rows = [r["b"] for r in session.run("MATCH (r:Run) RETURN DISTINCT r.batch_id AS b")]
    fresh = [b for b in rows if b not in before]
    return fresh[0] if fresh else None


def _throughput(store: EventStore, batch: str, mode: str) -> tuple[int, float]:
    """(attempts, seconds): threads from the batch's RunStarted to its last AttemptFinished; processes from the
    moment the last worker to start made its first claim (start-up skew left out), counting what finished after."""
    query = (
        "MATCH (r:Run {batch_id: $b}) MATCH (e:Event) WHERE e.seq >= r.seq AND e.payload CONTAINS r.id "
        "WITH e ORDER BY e.seq RETURN e.type AS type, e.recorded_at AS at, e.actor AS actor"
    )
    with store.driver.session() as session:
        rows = [dict(r) for r in session.run(query, b=batch)]
    start = datetime.fromisoformat(rows[0]["at"])
    if mode == "processes":
        first_claim: dict[str, datetime] = {}
        for row in rows:
            if row["type"] == "AttemptClaimed":
                first_claim.setdefault(row["actor"], datetime.fromisoformat(row["at"]))
        start = max(first_claim.values())
    finished = [datetime.fromisoformat(r["at"]) for r in rows if r["type"] == "AttemptFinished"]
    counted = [t for t in finished if t > start]
    return len(counted), (max(finished) - start).total_seconds() if counted else 0.0


def _trial(store: EventStore, env: dict[str, str], methods: str, items: int, workers: int, mode: str) -> str:
    with store.driver.session() as session:
        before = {r["b"] for r in session.run("MATCH (r:Run) RETURN DISTINCT r.batch_id AS b")}
    if mode == "threads":
        done = subprocess.run(
            [*_run_args(methods, items, workers), "--fresh"], env=env, cwd=REPO, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        batch = _newest_batch(store, before)
    else:
        first = subprocess.Popen(
            [*_run_args(methods, items, 1), "--fresh", "--worker", "--worker-id", "w1"],
            env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        batch = None
        while batch is None:
            if first.poll() is not None:
                raise SystemExit(first.stderr.read() if first.stderr else "the first worker ended")
            time.sleep(0.1)
            batch = _newest_batch(store, before)
        others = [
            subprocess.Popen(
                [*_run_args(methods, items, 1), "--resume", batch, "--worker", "--worker-id", f"w{n}"],
                env=env,
                cwd=REPO,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(2, workers + 1)
        ]
        for proc in [first, *others]:
            _, err = proc.communicate(timeout=1800)
            if proc.returncode != 0:
                raise SystemExit(err[-2000:])
    assert batch is not None
    return batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--items", type=int, default=28)
    parser.add_argument("--methods", default="HYBRID")
    args = parser.parse_args()
    levels = [int(w) for w in args.workers.split(",") if w.strip()]
    with tempfile.TemporaryDirectory(prefix="colabench-bench-workers-") as home:  # noqa: SIM117 - home first
        with throwaway_server(Path(home) / "neo4j", heap="1g", pagecache_mib=256) as (settings, _):
            driver = open_driver(settings)
            store = EventStore(driver, encoder=load_encoder())
            store.ensure_schema()
            write_events(store, load_input(SAMPLE))
            fake, base_url = _fake(args.latency_ms)
            config = Path(home) / "empty.toml"
            config.write_text("")
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("COLABENCH_LLM_")},
                "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "COLABENCH_CONFIG": str(config), "COLABENCH_DATA_DIR": str(Path(home) / "data"),
                "NEO4J_URI": settings.effective_uri, "COLABENCH_LLM_BASE_URL": base_url,
                "COLABENCH_LLM_MODEL": "fake", "COLABENCH_LLM_CACHE_MODE": "off",
            }  # fmt: skip
            print(
                f"{args.methods} x {args.items} sample items, judges none, endpoint latency {args.latency_ms:g} ms "
                f"per call, {os.cpu_count()} CPU(s)",
                flush=True,
            )
            try:
                for mode in ("threads", "processes"):
                    base: float | None = None
                    for workers in levels:
                        batch = _trial(store, env, args.methods, args.items, workers, mode)
                        attempts, seconds = _throughput(store, batch, mode)
                        rate = attempts / seconds if seconds > 0 else 0.0
                        base = base or rate
                        efficiency = rate / (base * workers) if base else 0.0
                        print(
                            f"{mode:<9} {workers:>2} worker(s): {rate:6.2f} attempts/s "
                            f"({attempts} in {seconds:6.1f} s), "
                            f"{efficiency:4.0%} of linear, load average {os.getloadavg()[0]:.1f}",
                            flush=True,
                        )
            finally:
                fake.terminate()
                fake.wait(timeout=10)
                driver.close()


if __name__ == "__main__":
    main()
