"""API load drill: mixed GraphQL reads at 8 clients against the API (uvicorn, as `colabench serve` runs it),
then Neo4j killed with SIGKILL in the middle of the load and started again.

    PYTHONPATH=. python bench/drill_api.py [--duration 60] [--concurrency 8] [--outage 20]
    PYTHONPATH=. python bench/drill_api.py --duration 300      # the 5-minute run
    PYTHONPATH=. python bench/drill_api.py --ingest-docs 600   # a longer ingest under load

Phase 1 (steady): req/s, p50/p95, errors (bench/bench_api.py's load mix and client, loopback only), and every
`--sample-s` seconds the resident memory of the API process and of the Neo4j JVM, the JVM's used heap and the
largest transaction's heap (`SHOW TRANSACTIONS`): start, end, max and the least-squares slope in MiB per minute
(over the whole phase and over its second half, after warm-up). Printed first: the heap and the transaction
bounds Neo4j runs with (`SHOW SETTINGS`). Halfway through (`--oversized-query`, on by default) one query that
needs more heap than one transaction may hold (a sort of `--oversized-rows` integers) is sent over Bolt while
the clients keep reading: printed are how Neo4j refused it, the clients' errors meanwhile, and whether Neo4j
still answers. `--unbounded` starts Neo4j as colabench did before the bounds followed the heap (total bound
1,536 MiB whatever the heap, no bound per transaction), to see the out-of-memory this drill was asked to find.
Phase 1b (ingest under load, `--ingest-docs N`, 0 to skip): the same load while `colabench ingest` writes N
knowledge-base documents (the first N of `--kb`, default the shared KB when present, else copies of the sample's
documents under new ids) into the same graph: req/s, p50/p95 and errors during the ingest, the ingest's own
duration and exit code, and the API's memory before and after.
Phase 2 (outage): load keeps running; Neo4j is SIGKILLed, stays down `--outage` s, then restarts on the same
data. Printed: responses by kind while it is down (503 with a clear message, GraphQL errors by code, dropped
connections), what /readyz said, seconds from restart to the first good reply and to /readyz 200, errors
after recovery, and the API log's lines at error level with and without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.bench_api import Connection, mixed_requests, prepare_graph, tree_rss_mib  # noqa: E402
from bench.stats import percentile, slope_per_minute  # noqa: E402
from graph.connection import open_driver  # noqa: E402
from graph.cypher_files import load_cypher  # noqa: E402
from graph.server import LocalNeo4jServer, free_port  # noqa: E402
from graph.settings import Neo4jSettings  # noqa: E402


def start_api(port: int, neo4j_port: int, log_path: Path, timeout_s: float = 600) -> subprocess.Popen[bytes]:
    """The API as `colabench serve` runs it (uvicorn, JSON logs to `log_path`), waited for up to `timeout_s`
    (bench_api's 60 s is too short on a busy 2-core machine)."""
    env = {**os.environ, "COLABENCH_NEO4J_PORT": str(neo4j_port), "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    env.pop("NEO4J_URI", None)
    env["COLABENCH_API_RESPONSE_CACHE_ENTRIES"] = "0"
    command = [sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--no-access-log", "--log-level", "warning"]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if readyz(port) == 200:
            return process
        if process.poll() is not None:
            break
        time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the API did not become ready: {log_path.read_text()[-2000:]}")


class UnboundedNeo4jSettings(Neo4jSettings):
    """The transaction bounds as they were before they followed the heap: `tx_max_mib` (1,536 MiB by default)
    for all transactions whatever the heap, and no bound per transaction (0)."""

    @property
    def tx_total_bound_mib(self) -> int:
        return self.tx_max_mib

    @property
    def tx_each_bound_mib(self) -> int:
        return 0


def neo4j_memory_settings(driver: Any) -> dict[str, str]:
    with driver.session() as session:
        rows = session.run(load_cypher("drill/memory_settings")).data()
    return {r["name"]: r["value"] for r in rows}


def neo4j_heap_and_largest_tx(driver: Any) -> tuple[float, float, str]:
    """(used heap MiB, the largest open transaction's estimated heap MiB, the head of its query)."""
    with driver.session() as session:
        heap = session.run(load_cypher("drill/heap_used")).single()
        largest = session.run(load_cypher("drill/largest_transaction")).single()
    used = float(heap["used"]) / 2**20 if heap is not None else float("nan")
    if largest is None:
        return used, 0.0, "-"
    return used, float(largest["heap"] or 0) / 2**20, " ".join(str(largest["query"] or "").split())[:100]


class Sampler:
    """Samples, every `every_s` seconds until stopped: API RSS, Neo4j RSS, JVM used heap, largest transaction."""

    def __init__(self, api_pid: int, neo4j_pid: int, driver: Any, every_s: float) -> None:
        self.api_pid, self.neo4j_pid, self.driver, self.every_s = api_pid, neo4j_pid, driver, every_s
        self.rows: list[tuple[float, float, float, float, float]] = []
        self.largest: tuple[float, str] = (0.0, "-")
        self.failed = 0

    async def run(self, stop: asyncio.Event) -> None:
        t0 = time.perf_counter()
        while not stop.is_set():
            api, jvm = tree_rss_mib(self.api_pid), tree_rss_mib(self.neo4j_pid)
            try:
                heap, tx, query = await asyncio.to_thread(neo4j_heap_and_largest_tx, self.driver)
            except Exception:
                self.failed += 1
                heap, tx, query = float("nan"), 0.0, "-"
            self.rows.append((time.perf_counter() - t0, api, jvm, heap, tx))
            if tx > self.largest[0]:
                self.largest = (tx, query)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.every_s)

    def report(self) -> list[str]:
        lines = []
        for index, name in ((1, "API RSS"), (2, "Neo4j RSS"), (3, "Neo4j used heap")):
            series = [(r[0], r[index]) for r in self.rows if r[index] == r[index]]
            if not series:
                continue
            half = [x for x in series if x[0] >= series[-1][0] / 2]
            lines.append(
                f"{name}: {series[0][1]:.0f} -> {series[-1][1]:.0f} MiB (max {max(v for _, v in series):.0f}); "
                f"slope {slope_per_minute(series):+.2f} MiB/min over the phase, {slope_per_minute(half):+.2f} "
                f"MiB/min over its second half ({len(series)} samples)"
            )
        lines.append(
            f"largest transaction seen: {self.largest[0]:.1f} MiB ({self.largest[1]}); samples lost {self.failed}"
        )
        return lines


def oversized_query(driver: Any, rows: int) -> tuple[str, float]:
    """Run a sort of `rows` integers (its heap grows with `rows`) and say how it ended."""
    started = time.perf_counter()
    try:
        with driver.session() as session:
            session.run(load_cypher("drill/oversized_sort"), n=rows).consume()
        return "answered", time.perf_counter() - started
    except Exception as exc:
        code = getattr(exc, "code", None) or type(exc).__name__
        return f"refused: {code}: {' '.join(str(exc).split())[:160]}", time.perf_counter() - started


SHARED_KB = REPO.parent / "shared" / "data" / "kb" / "documents.jsonl.gz"
SAMPLE_DOCUMENTS = REPO / "samples" / "colabench-sample" / "documents.jsonl"


def write_ingest_input(path: Path, count: int, kb: Path | None) -> str:
    """Write `count` knowledge-base documents to `path` (JSONL) and say where they came from."""
    rows: list[dict[str, object]] = []
    if kb is not None and kb.exists():
        opener = gzip.open if kb.suffix == ".gz" else open
        with opener(kb, "rt", encoding="utf-8") as handle:
            for line in handle:
                if len(rows) >= count:
                    break
                rows.append(json.loads(line))
        source = f"the first {len(rows)} documents of {kb}"
    else:
        sample = [json.loads(x) for x in SAMPLE_DOCUMENTS.read_text(encoding="utf-8").splitlines() if x.strip()]
        for i in range(count):
            doc = sample[i % len(sample)]
            rows.append({"doc_id": f"drill-{i:05d}", "title": doc["title"], "text": f"{doc['text']}\n\n(copy {i})"})
        source = f"{count} copies of the sample's documents under new ids"
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    return source


def readyz(port: int) -> int:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return int(sock.recv(200).split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def classify(status: int, payload: bytes) -> str:
    if status == 200 and b'"errors"' not in payload:
        return "ok"
    try:
        body = json.loads(payload)
    except ValueError:
        return f"http {status}, not JSON"
    codes = sorted({str((e.get("extensions") or {}).get("code")) for e in body.get("errors") or []})
    return f"http {status} {'/'.join(codes) or '-'}"


async def load(
    port: int, deck: list[tuple[str, bytes]], concurrency: int, seconds: float, stop: asyncio.Event | None = None
) -> list[tuple[float, str, float]]:
    """(time since start, outcome, ms) of every request of `concurrency` keep-alive clients for `seconds` (or
    until `stop` is set)."""
    out: list[tuple[float, str, float]] = []
    started = time.perf_counter()
    deadline = started + seconds
    stop = stop or asyncio.Event()

    async def client(offset: int) -> None:
        connection: Connection | None = None
        position = offset
        while time.perf_counter() < deadline and not stop.is_set():
            _kind, body = deck[position % len(deck)]
            position += concurrency
            t0 = time.perf_counter()
            try:
                if connection is None:
                    connection = await Connection.open(port)
                status, payload = await asyncio.wait_for(connection.post(body), timeout=30)
                outcome = classify(status, payload)
            except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
                outcome = f"connection {type(exc).__name__}"
                connection = None
                await asyncio.sleep(0.05)
            out.append((t0 - started, outcome, (time.perf_counter() - t0) * 1000))
        if connection is not None:
            connection.close()

    await asyncio.gather(*(client(i) for i in range(concurrency)))
    return out


def ingest_under_load(
    port: int, deck: list[tuple[str, bytes]], args: argparse.Namespace, neo4j_port: int, tmp: Path, api_pid: int
) -> None:
    """Phase 1b: the load keeps running while `colabench ingest` writes documents into the same graph."""
    source = write_ingest_input(tmp / "ingest.jsonl", args.ingest_docs, args.kb)
    env = {**os.environ, "COLABENCH_NEO4J_PORT": str(neo4j_port), "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    env.pop("NEO4J_URI", None)
    env["COLABENCH_DATA_DIR"] = str(tmp / "ingest-data")
    command = [sys.executable, "-m", "cli", "ingest", str(tmp / "ingest.jsonl"), "--format", "kb"]
    marks: dict[str, float] = {}
    outcome: dict[str, object] = {}

    async def phase() -> list[tuple[float, str, float]]:
        t0 = time.perf_counter()
        stop = asyncio.Event()
        task = asyncio.create_task(load(port, deck, args.concurrency, 3600, stop))
        await asyncio.sleep(5)
        marks["start"] = time.perf_counter() - t0
        with (tmp / "ingest.log").open("wb") as log:
            process = await asyncio.to_thread(
                subprocess.run, command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        marks["end"] = time.perf_counter() - t0
        outcome["code"] = process.returncode
        await asyncio.sleep(5)
        stop.set()
        return await task

    rss_start = tree_rss_mib(api_pid)
    events = asyncio.run(phase())
    rss_end = tree_rss_mib(api_pid)
    during = [(o, ms) for t, o, ms in events if marks["start"] <= t < marks["end"]]
    good = [ms for o, ms in during if o == "ok"]
    bad = Counter(o for o, _ in during if o != "ok")
    seconds = marks["end"] - marks["start"]
    print(
        f"\n== API drill: ingest under load ({source}; load average {os.getloadavg()[0]:.1f}) =="
    )
    print(
        f"ingest exit {outcome['code']} after {seconds:.1f} s; during it {len(during):,} requests, "
        f"{len(during) / max(seconds, 1e-9):.0f} req/s, p50 {percentile(good, 0.5):.1f} ms, "
        f"p95 {percentile(good, 0.95):.1f} ms, errors {sum(bad.values())} {dict(bad)}; "
        f"API RSS {rss_start:.0f} -> {rss_end:.0f} MiB"
    )
    if outcome["code"] != 0:
        print((tmp / "ingest.log").read_text()[-2000:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of steady load (300 = 5 minutes)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--outage", type=float, default=20.0, help="seconds Neo4j stays down (0: no outage)")
    parser.add_argument(
        "--ingest-docs", type=int, default=300, help="documents ingested under load in phase 1b (0 skips it)"
    )
    parser.add_argument("--kb", type=Path, default=SHARED_KB, help="knowledge-base JSONL(.gz) to take them from")
    parser.add_argument("--sample-s", type=float, default=5.0, help="seconds between memory samples")
    parser.add_argument("--heap", default="1g", help="Neo4j's heap (as the drills and tests run it)")
    parser.add_argument(
        "--oversized-query", action=argparse.BooleanOptionalAction, default=True,
        help="halfway through the steady load, send one query larger than a transaction may hold",
    )
    parser.add_argument("--oversized-rows", type=int, default=30_000_000, help="integers the oversized query sorts")
    parser.add_argument(
        "--unbounded", action="store_true", help="start Neo4j with the old bounds (1,536 MiB total, none per query)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="colabench-api-drill-") as tmp:
        kind = UnboundedNeo4jSettings if args.unbounded else Neo4jSettings
        settings = kind(local_port=free_port(), heap=args.heap, pagecache_mib=256)
        neo4j = LocalNeo4jServer(settings, home=Path(tmp) / "neo4j")
        status = neo4j.start(timeout_s=300)
        driver = open_driver(settings)
        try:
            ids = prepare_graph(driver)
            with driver.session() as session:
                head = int(session.run("MATCH (h:LogHead) RETURN h.seq AS s").single()["s"])  # type: ignore[index]
        except BaseException:
            neo4j.stop()
            raise
        finally:
            driver.close()
        port = free_port()
        log_path = Path(tmp) / "api.log"
        server: subprocess.Popen[bytes] | None = None
        deck = mixed_requests(ids, head)
        try:
            server = start_api(port, settings.local_port, log_path)
            watch = open_driver(settings)
            bounds = neo4j_memory_settings(watch)
            sampler = Sampler(server.pid, int(status.pid or 0), watch, args.sample_s)
            probe: dict[str, Any] = {}

            async def steady_phase() -> list[tuple[float, str, float]]:
                stop = asyncio.Event()
                sampling = asyncio.create_task(sampler.run(stop))
                loading = asyncio.create_task(load(port, deck, args.concurrency, args.duration))
                if args.oversized_query:
                    await asyncio.sleep(args.duration / 2)
                    probe["start"] = args.duration / 2
                    probe["outcome"], probe["seconds"] = await asyncio.to_thread(
                        oversized_query, watch, args.oversized_rows
                    )
                    probe["alive"] = await asyncio.to_thread(lambda: watch.execute_query("RETURN 1").records[0][0])
                out = await loading
                stop.set()
                await sampling
                return out

            steady = asyncio.run(steady_phase())
            good = [ms for _t, o, ms in steady if o == "ok"]
            bad = Counter(o for _t, o, _ms in steady if o != "ok")
            print(
                f"\n== API drill: steady load, {args.concurrency} clients, {args.duration:.0f} s "
                f"(machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}) =="
            )
            print(
                f"Neo4j heap {settings.heap}; "
                + ", ".join(f"{k} {v}" for k, v in sorted(bounds.items()))
                + (" (--unbounded: the old bounds)" if args.unbounded else "")
            )
            print(
                f"{len(steady):,} requests, {len(steady) / args.duration:.0f} req/s, "
                f"p50 {percentile(good, 0.5):.1f} ms, "
                f"p95 {percentile(good, 0.95):.1f} ms, errors {sum(bad.values())} {dict(bad)}"
            )
            for line in sampler.report():
                print(line)
            if probe:
                during = Counter(
                    o for t, o, _ms in steady if probe["start"] <= t <= probe["start"] + probe["seconds"] + 1
                )
                print(
                    f"oversized query ({args.oversized_rows:,} integers sorted) at {probe['start']:.0f} s: "
                    f"{probe['outcome']} after {probe['seconds']:.1f} s; Neo4j answers afterwards: "
                    f"{probe['alive'] == 1}; the clients meanwhile: {dict(during)}"
                )
            watch.close()

            if args.ingest_docs > 0:
                ingest_under_load(port, deck, args, settings.local_port, Path(tmp), server.pid)
            if args.outage <= 0:
                return

            # Outage: kill Neo4j under load, keep it down, restart it, keep the load on until it recovers.
            ready_seen: list[tuple[float, int]] = []
            marks: dict[str, float] = {}

            async def outage() -> list[tuple[float, str, float]]:
                t0 = time.perf_counter()
                # The load runs until 30 s after /readyz is 200 again, however long the restart takes.
                stop = asyncio.Event()
                task = asyncio.create_task(load(port, deck, args.concurrency, 3600, stop))
                await asyncio.sleep(10)
                os.kill(int(status.pid or 0), signal.SIGKILL)
                marks["killed"] = time.perf_counter() - t0
                while time.perf_counter() - t0 < marks["killed"] + args.outage:
                    ready_seen.append((time.perf_counter() - t0, await asyncio.to_thread(readyz, port)))
                    await asyncio.sleep(1)
                marks["restart"] = time.perf_counter() - t0
                await asyncio.to_thread(neo4j.start, 300)
                marks["up"] = time.perf_counter() - t0
                while await asyncio.to_thread(readyz, port) != 200 and time.perf_counter() - t0 < marks["up"] + 60:
                    await asyncio.sleep(0.5)
                marks["ready"] = time.perf_counter() - t0
                await asyncio.sleep(30)
                stop.set()
                return await task

            events = asyncio.run(outage())
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.kill()
            neo4j.stop()
        down = [(t, o) for t, o, _ in events if marks["killed"] <= t < marks["up"]]
        after = [(t, o) for t, o, _ in events if t >= marks["ready"] + 2]
        first_ok = next((t for t, o, _ in events if t >= marks["restart"] and o == "ok"), None)
        print(f"\n== API drill: Neo4j SIGKILLed under load at {marks['killed']:.0f} s, down {args.outage:.0f} s ==")
        print(f"while down: {len(down):,} responses: {dict(Counter(o for _, o in down))}")
        for label, lo, hi in (("killed", "killed", "restart"), ("starting", "restart", "up")):
            part = [o for t, o, _ in events if marks[lo] <= t < marks[hi]]
            slow = [ms for t, o, ms in events if marks[lo] <= t < marks[hi] and o != "ok"]
            print(
                f"  {label} ({marks[lo]:.0f}-{marks[hi]:.0f} s): {dict(Counter(part))}; "
                f"error reply p50 {percentile(slow, 0.5):.1f} ms, max {max(slow, default=0):.0f} ms"
            )
        print(f"/readyz while down: {dict(Counter(code for _, code in ready_seen))}")
        print(
            f"Neo4j restart took {marks['up'] - marks['restart']:.1f} s; "
            f"/readyz 200 {marks['ready'] - marks['up']:.1f} s "
            f"after it was up; first good reply {((first_ok or float('nan')) - marks['up']):.1f} s after it was up"
        )
        print(
            f"after recovery: {len(after):,} requests, errors {sum(1 for _, o in after if o != 'ok')} "
            f"{dict(Counter(o for _, o in after if o != 'ok'))}"
        )
        lines = [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith("{")]
        errors = [x for x in lines if x.get("level") == "error"]
        print(
            f"API log: {len(lines):,} JSON lines, {len(errors)} at error level, "
            f"{sum(1 for x in errors if 'exc' in x)} with a traceback; messages: "
            f"{dict(Counter(str(x.get('msg'))[:60] for x in errors).most_common(3))}"
        )


if __name__ == "__main__":
    main()
