"""Attempts per second against the number of workers, with a fake endpoint answering every call after a fixed
latency (default 250 ms): one `run` process with a thread pool of N (`--concurrency N`), N `run --worker`
processes with one attempt each in flight (`--concurrency 1`), and one `run --executor ray --concurrency N`
process whose N Ray actors each run one attempt at a time (on a local Ray instance the benchmark starts once and
every trial joins with `--ray-address`), all on one throwaway Neo4j holding the sample.

Throughput is read from the graph (process and actor start-up left out): answered attempts over the time from the
batch's RunStarted (threads) or from the last worker's first claim (processes, Ray actors) to the last
AttemptFinished. The LLM cache is off, so every call reaches the endpoint. Each row gives the ratio to linear
(rate / (N x the 1-worker rate)), the ratio to the endpoint's bound (N workers each waiting calls-per-attempt x
latency per attempt, calls counted by the fake endpoint), how busy the machine's CPUs were during the trial
(/proc/stat, other work included) and how many cores Neo4j used (its processes' CPU time over the trial), then the
load average: together they say what saturates first. The Ray mode needs Ray
(`$(scripts/setup_ray_env.sh)/bin/python bench/bench_workers.py`); without it the benchmark says so and skips it.

    python bench/bench_workers.py [--workers 1,2,4,8] [--latency-ms 250] [--items 28] [--methods HYBRID,KEYWORD]
                                  [--modes threads,processes,ray]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

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
    """(attempts, seconds): threads from the batch's RunStarted to its last AttemptFinished; processes and Ray
    actors from the moment the last worker to start made its first claim (start-up skew left out), counting what
    finished after."""
    query = (
        "MATCH (r:Run {batch_id: $b}) MATCH (e:Event) WHERE e.seq >= r.seq AND e.payload CONTAINS r.id "
        "WITH e ORDER BY e.seq RETURN e.type AS type, e.recorded_at AS at, e.actor AS actor"
    )
    with store.driver.session() as session:
        rows = [dict(r) for r in session.run(query, b=batch)]
    start = datetime.fromisoformat(rows[0]["at"])
    if mode in ("processes", "ray"):
        first_claim: dict[str, datetime] = {}
        for row in rows:
            if row["type"] == "AttemptClaimed":
                first_claim.setdefault(row["actor"], datetime.fromisoformat(row["at"]))
        start = max(first_claim.values())
    finished = [datetime.fromisoformat(r["at"]) for r in rows if r["type"] == "AttemptFinished"]
    counted = [t for t in finished if t > start]
    return len(counted), (max(finished) - start).total_seconds() if counted else 0.0


def _trial(
    store: EventStore, env: dict[str, str], methods: str, items: int, workers: int, mode: str, ray_address: str
) -> str:
    with store.driver.session() as session:
        before = {r["b"] for r in session.run("MATCH (r:Run) RETURN DISTINCT r.batch_id AS b")}
    if mode in ("threads", "ray"):
        extra = ["--executor", "ray", "--ray-address", ray_address] if mode == "ray" else []
        done = subprocess.run(
            [*_run_args(methods, items, workers), "--fresh", *extra], env=env, cwd=REPO, capture_output=True, text=True
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


@dataclass
class _Usage:
    """CPU use during one trial: the machine's busy fraction (all cores, other work included) and the cores
    Neo4j's processes used."""

    busy: float
    neo4j_cores: float


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot (/proc/stat)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _process_tree_ticks(pid: int | None) -> int:
    """CPU jiffies of a process and its descendants, those already ended and waited for included (utime + stime +
    cutime + cstime of each; 0 when it is not there)."""
    if pid is None:
        return 0
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2 :].split()  # fields after the command name, from field 3 (state)
        children.setdefault(int(rest[1]), []).append(int(entry.name))
        ticks[int(entry.name)] = sum(int(v) for v in rest[11:15])
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += ticks.get(current, 0)
        todo.extend(children.get(current, []))
    return total


def _measured(run: Any, neo4j_pid: int | None) -> tuple[Any, _Usage]:
    hz = os.sysconf("SC_CLK_TCK")
    busy0, total0 = _cpu_ticks()
    neo0, t0 = _process_tree_ticks(neo4j_pid), time.monotonic()
    value = run()
    busy1, total1 = _cpu_ticks()
    neo1, t1 = _process_tree_ticks(neo4j_pid), time.monotonic()
    busy = (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0
    return value, _Usage(busy=busy, neo4j_cores=(neo1 - neo0) / hz / max(t1 - t0, 1e-9))


def _saturated(usage: _Usage) -> str:
    """What limited a trial: Neo4j when it kept about one core busy (the log's single write lock serialises
    appends); else the CPUs when nearly all were busy (on a shared machine, the load average says whose work that
    was); else neither (the endpoint's latency bounds the rate)."""
    if usage.neo4j_cores >= 0.9:
        return "Neo4j"
    if usage.busy >= 0.9:
        return "CPU"
    return "neither"


def _requests(base_url: str) -> int:
    """Requests the fake endpoint has answered so far."""
    with urllib.request.urlopen(f"{base_url}/stats", timeout=10) as reply:
        return int(json.loads(reply.read())["requests"])


def _ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4,8")
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--items", type=int, default=28)
    parser.add_argument("--methods", default="HYBRID,KEYWORD", help="two methods: 56 attempts, 7 rounds of 8")
    parser.add_argument("--modes", default="threads,processes,ray")
    args = parser.parse_args()
    levels = [int(w) for w in args.workers.split(",") if w.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if "ray" in modes and not _ray_available():
        print(
            "ray: skipped (Ray is not installed in this Python; run the benchmark with "
            "$(scripts/setup_ray_env.sh)/bin/python)",
            flush=True,
        )
        modes.remove("ray")
    with tempfile.TemporaryDirectory(prefix="colabench-bench-workers-") as home:  # noqa: SIM117 - home first
        with throwaway_server(Path(home) / "neo4j", heap="1g", pagecache_mib=256) as (settings, status):
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
                # each process's request slots per role (default 4) must not cap a pool of 8 threads
                "COLABENCH_LLM_CONCURRENCY": str(max(levels)),
            }  # fmt: skip
            print(
                f"{args.methods} x {args.items} sample items, judges none, endpoint latency {args.latency_ms:g} ms "
                f"per call, {os.cpu_count()} CPU(s)",
                flush=True,
            )
            ray_address = ""
            limits: dict[str, list[tuple[int, float, str]]] = {}
            try:
                for mode in modes:
                    if mode == "ray":
                        from agents.runs.ray_executor import import_ray, start_local_ray

                        start_local_ray(max(levels))
                        ray_address = import_ray().get_runtime_context().gcs_address
                    # a driver joining the instance needs Ray's settings of this process (RAY_AUTH_MODE=token)
                    trial_env = {**env, **{k: v for k, v in os.environ.items() if k.startswith("RAY_")}}
                    base: float | None = None
                    for workers in levels:
                        sent = _requests(base_url)
                        batch, usage = _measured(
                            partial(_trial, store, trial_env, args.methods, args.items, workers, mode, ray_address),
                            status.pid,
                        )
                        calls = (_requests(base_url) - sent) / args.items / len(args.methods.split(","))
                        attempts, seconds = _throughput(store, batch, mode)
                        rate = attempts / seconds if seconds > 0 else 0.0
                        base = base or rate
                        efficiency = rate / (base * workers) if base else 0.0
                        bound = workers / (calls * args.latency_ms / 1000) if calls else 0.0
                        limit = _saturated(usage)
                        limits.setdefault(mode, []).append((workers, efficiency, limit))
                        load = os.getloadavg()
                        print(
                            f"{mode:<9} {workers:>2} worker(s): {rate:6.2f} attempts/s "
                            f"({attempts} in {seconds:6.1f} s), {efficiency:4.0%} of linear, "
                            f"{rate / bound if bound else 0.0:4.0%} of the endpoint bound ({calls:.1f} calls per "
                            f"attempt); CPUs {usage.busy:4.0%} busy, Neo4j {usage.neo4j_cores:4.2f} core(s); "
                            f"saturated: {limit}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}",
                            flush=True,
                        )
                    if mode == "ray":
                        import_ray().shutdown()
                for mode, rows in limits.items():
                    print(_verdict(mode, rows), flush=True)
            finally:
                fake.terminate()
                fake.wait(timeout=10)
                driver.close()


def _verdict(mode: str, rows: list[tuple[int, float, str]]) -> str:
    """One line per mode: the largest worker count still at >= 0.8 x linear, and what saturated first."""
    good = [w for w, efficiency, _ in rows if efficiency >= 0.8]
    first = next(((w, limit) for w, _, limit in rows if limit != "neither"), None)
    reach = f">= 0.8 x linear up to {max(good)} worker(s)" if good else "below 0.8 x linear from 2 workers"
    cause = f"{first[1]} saturated first (at {first[0]} worker(s))" if first else "neither CPU nor Neo4j saturated"
    return f"{mode}: {reach}; {cause}"


if __name__ == "__main__":
    main()
