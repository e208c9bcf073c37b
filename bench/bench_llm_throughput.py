"""Throughput of `run` against a real llama.cpp server (issue 25, item 5): the `make smoke-llm` llama-server
(SmolLM2-135M, built and served by scripts/llama_server.sh) with several slots (`-np`), at run concurrency
1, 2, 4 (`run --concurrency N`, each role's request limit set to N too).

Per level the server is started afresh (an empty prefix cache, so no level profits from an earlier one's
prompts), the LLM response cache is off (every call reaches the server), and one `run --fresh` answers the
same attempts on a throwaway Neo4j holding the sample (or the server COLABENCH_BENCH_NEO4J_URI names, which the
bench wipes). Between the harness and the server sits a recording
pass-through proxy of this script (loopback, one thread per request) that notes when each request was in flight
and reads the reply's usage and llama.cpp timings. Printed per level:

- attempts per minute and tokens per second (prompt and completion tokens, from the replies' usage) over the run's
  window: its RunStarted event to its last AttemptFinished (process start-up and Neo4j connection left out,
  printed apart);
- the harness's share of the window: the time no request was in flight at the server (the union of the
  proxy's request intervals taken from the window). This is time the server waited on the harness (retrieval,
  event writes, prompt building), not the harness's CPU time. The proxy's own forwarding is counted as server
  time (a few ms per request against seconds of generation), so the share is a slight underestimate.
  At concurrency 1 the run record's own figure (1 - the ledger's LLM call seconds / window) is printed beside it;
- the prefix-cache hit rate: cached prompt tokens (`usage.prompt_tokens_details.cached_tokens`, else llama.cpp's
  `timings.cache_n`) over all prompt tokens;
- the server's own generation speed (`timings.predicted_per_second`, mean over replies) and the load average.

SmolLM2's answers mean nothing; what is measured is the harness around a real server. Goal: harness < 5 % of the
window.

    python bench/bench_llm_throughput.py [--levels 1,2,4] [--slots 4] [--methods HYBRID,KEYWORD] [--items 6]
                                         [--max-tokens 256] [--judges none]
                                         [--build | --base-url URL --model NAME | --fake-latency-ms MS]

Without --build, a machine where llama-server is not built yet prints "skipped" (so `make bench` does not start a
20-minute build).

`--fake-latency-ms MS` measures the harness against the project's fake endpoint (tests/fake_openai) instead, each
reply held MS ms, every level on one fake: a stand-in for a machine without llama-server, whose output says
so. Its replies answer at once without a tool call (as SmolLM2 did in the measured runs); give MS as the real
server's measured time per request so the harness share compares (2540 ms: the concurrency-1 level of the
2026-12-04 figures in docs/benchmarks.md). Its prefix-cache and generation figures are the fake's, not a server's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.neo4j_for_bench import bench_neo4j_server  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"
LLAMA = REPO / "scripts" / "llama_server.sh"
CTX_PER_SLOT = 8192  # SmolLM2's training context: llama-server caps every slot at it


@dataclass
class Exchange:
    """One request as the proxy saw it."""

    started: float
    ended: float
    status: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None
    generation_tps: float | None = None


@dataclass
class Recorder:
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, exchange: Exchange) -> None:
        with self.lock:
            self.exchanges.append(exchange)


def _read_usage(body: bytes, exchange: Exchange) -> None:
    try:
        data = json.loads(body)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    usage = data.get("usage") or {}
    exchange.prompt_tokens = int(usage.get("prompt_tokens") or 0)
    exchange.completion_tokens = int(usage.get("completion_tokens") or 0)
    details = usage.get("prompt_tokens_details") or {}
    timings = data.get("timings") or {}
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        exchange.cached_tokens = details["cached_tokens"]
    elif isinstance(timings.get("cache_n"), int):
        exchange.cached_tokens = timings["cache_n"]
    if isinstance(timings.get("predicted_per_second"), int | float):
        exchange.generation_tps = float(timings["predicted_per_second"])


def start_proxy(upstream_host: str, upstream_port: int, recorder: Recorder) -> ThreadingHTTPServer:
    """A loopback pass-through to the server that records each POST's interval, usage and timings."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _forward(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization")}
            started = time.time()
            upstream = http.client.HTTPConnection(upstream_host, upstream_port, timeout=3600)
            try:
                upstream.request(method, self.path, body=body, headers=headers)
                reply = upstream.getresponse()
                data = reply.read()
                status, content_type = reply.status, reply.getheader("Content-Type") or "application/json"
            finally:
                upstream.close()
            exchange = Exchange(started=started, ended=time.time(), status=status)
            if method == "POST":
                _read_usage(data, exchange)
                recorder.add(exchange)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._forward("GET")

        def do_POST(self) -> None:
            self._forward("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_llama(slots: int, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", str(LLAMA), "serve", str(port), str(CTX_PER_SLOT * slots), str(slots)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 300  # a generous bound on a condition: the model loads in seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama-server exited with {proc.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return proc, port
        except OSError:
            time.sleep(0.5)
    stop_llama(proc)
    raise SystemExit(f"llama-server did not become healthy in 300 s; see {log}")


def stop_llama(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL: its listener closes but the process can hang."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def slot_context(host: str, port: int) -> int | None:
    """The per-slot context llama.cpp's server reports at /props (None when the server has no /props)."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/props", timeout=10) as reply:
            props = json.loads(reply.read())
    except (OSError, ValueError):
        return None
    value = (props.get("default_generation_settings") or {}).get("n_ctx")
    return int(value) if isinstance(value, int) else None


def run_window(store: EventStore, batch: str) -> tuple[float, float, int]:
    """(start, end, answered): the epoch seconds of the batch's first RunStarted and last AttemptFinished."""
    query = (
        "MATCH (r:Run {batch_id: $b}) MATCH (e:Event) WHERE e.seq >= r.seq AND e.payload CONTAINS r.id "
        "AND e.type IN ['RunStarted', 'AttemptFinished'] RETURN e.type AS type, e.recorded_at AS at"
    )
    with store.driver.session() as session:
        rows = [dict(r) for r in session.run(query, b=batch)]
    starts = [datetime.fromisoformat(r["at"]).timestamp() for r in rows if r["type"] == "RunStarted"]
    ends = [datetime.fromisoformat(r["at"]).timestamp() for r in rows if r["type"] == "AttemptFinished"]
    if not starts or not ends:
        raise SystemExit(f"batch {batch}: no RunStarted or no AttemptFinished in the graph")
    return min(starts), max(ends), len(ends)


def batch_usage(store: EventStore, batch: str) -> dict[str, Any]:
    """The LLM usage summed over the batch's runs (their records' `usage.total`)."""
    total: dict[str, float] = {}
    with store.driver.session() as session:
        for row in session.run("MATCH (r:Run {batch_id: $b}) RETURN r.usage AS u", b=batch):
            usage = json.loads(row["u"] or "{}").get("total", {})
            for key in ("seconds", "calls", "endpoint_requests"):
                total[key] = total.get(key, 0.0) + float(usage.get(key) or 0)
    return total


def busy_seconds(exchanges: list[Exchange], start: float, end: float) -> float:
    """Seconds of [start, end] with at least one request in flight (the union of the intervals)."""
    spans = sorted((max(e.started, start), min(e.ended, end)) for e in exchanges)
    busy, reach = 0.0, start
    for lo, hi in spans:
        if hi <= reach:
            continue
        busy += hi - max(lo, reach)
        reach = hi
    return busy


def batches(store: EventStore) -> set[str]:
    with store.driver.session() as session:
        return {r["b"] for r in session.run("MATCH (r:Run) RETURN DISTINCT r.batch_id AS b")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,2,4", help="run concurrency levels")
    parser.add_argument("--slots", type=int, default=4, help="llama-server parallel slots (-np)")
    parser.add_argument("--methods", default="HYBRID,KEYWORD")
    parser.add_argument("--items", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=256, help="each reply's cap (SmolLM2 rambles)")
    parser.add_argument("--judges", default="none")
    parser.add_argument(
        "--build", action="store_true", help="build llama-server first when it is not built (7-20 min on 2 cores)"
    )
    parser.add_argument(
        "--base-url",
        help="measure this running OpenAI-compatible server (http://host:port/v1) instead of starting llama-server "
        "per level (its prefix cache then carries over from level to level)",
    )
    parser.add_argument("--model", default="smollm2-135m", help="the model name to ask for (with --base-url)")
    parser.add_argument(
        "--fake-latency-ms",
        type=float,
        help="measure against the fake endpoint answering after this many ms per request (no llama-server; "
        "labelled in the output)",
    )
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",") if n.strip()]
    if args.fake_latency_ms is not None:
        if args.base_url or args.build:
            raise SystemExit("--fake-latency-ms replaces the server: not with --base-url or --build")
        from tests.fake_openai import FakeOpenAI
        from tests.fake_openai.server import Reply

        def answer(_body: dict[str, Any]) -> Reply:
            return Reply.text("The answer, from what the history says, is in the documents I was shown.")

        with FakeOpenAI(answer, latency_s=args.fake_latency_ms / 1000, n_ctx=CTX_PER_SLOT) as fake:
            args.base_url = fake.base_url
            args.server_label = (
                f"FAKE endpoint (tests/fake_openai) holding each reply {args.fake_latency_ms:.0f} ms, no tool calls: "
                "not a real server"
            )
            measure_levels(args, levels)
        return
    if not args.base_url and not args.build and subprocess.run(["bash", str(LLAMA), "ready"]).returncode != 0:
        print(
            "skipped: llama-server or the SmolLM2 model is not there yet (`scripts/llama_server.sh prepare` or "
            "`make smoke-llm` builds it once, 7-20 min on 2 cores; or pass --build)",
            flush=True,
        )
        return

    if not args.base_url:
        prepared = subprocess.run(["bash", str(LLAMA), "prepare"], stdout=subprocess.PIPE, text=True)
        if prepared.returncode != 0:
            raise SystemExit("scripts/llama_server.sh prepare failed")
    measure_levels(args, levels)


def measure_levels(args: argparse.Namespace, levels: list[int]) -> None:
    with tempfile.TemporaryDirectory(prefix="colabench-bench-llm-") as home:  # noqa: SIM117 - home first
        with bench_neo4j_server(heap="1g", pagecache_mib=256) as (settings, driver, _pid):
            store = EventStore(driver, encoder=load_encoder())
            store.ensure_schema()
            write_events(store, load_input(SAMPLE))
            config = Path(home) / "empty.toml"
            config.write_text("")
            base_env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("COLABENCH_LLM_")},
                "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "COLABENCH_CONFIG": str(config), "COLABENCH_DATA_DIR": str(Path(home) / "data"),
                "NEO4J_URI": settings.effective_uri, "COLABENCH_LLM_MODEL": args.model,
                "COLABENCH_LLM_CACHE_MODE": "off", "COLABENCH_LLM_MAX_TOKENS": str(args.max_tokens),
                "COLABENCH_LLM_TIMEOUT_S": "600",
            }  # fmt: skip
            server = (
                getattr(args, "server_label", None) or f"{args.model} at {args.base_url} (one server for every level)"
                if args.base_url
                else f"SmolLM2-135M on llama-server with {args.slots} slot(s), started afresh per level"
            )
            print(
                f"{args.methods} x {args.items} sample items, judges {args.judges}, {server}, max_tokens "
                f"{args.max_tokens}; {os.cpu_count()} CPU(s) "
                f"({platform.processor() or platform.machine()}), load average before "
                + " / ".join(f"{v:.1f}" for v in os.getloadavg()),
                flush=True,
            )
            for level in levels:
                measure(store, base_env, args, level, Path(home))


def measure(store: EventStore, base_env: dict[str, str], args: argparse.Namespace, level: int, home: Path) -> None:
    proc: subprocess.Popen[bytes] | None = None
    if args.base_url:
        target = urlsplit(args.base_url)
        host, port, path = target.hostname or "127.0.0.1", target.port or 80, target.path.rstrip("/")
    else:
        proc, port = start_llama(args.slots, home / f"llama-server-{level}.log")
        host, path = "127.0.0.1", "/v1"
    recorder = Recorder()
    proxy = start_proxy(host, port, recorder)
    try:
        n_ctx = slot_context(host, port)
        env = {
            **base_env,
            "COLABENCH_LLM_BASE_URL": f"http://127.0.0.1:{proxy.server_address[1]}{path}",
            "COLABENCH_LLM_CONCURRENCY": str(level),  # each role's request limit: not below the run's
        }
        before = batches(store)
        launched = time.time()
        done = subprocess.run(
            [sys.executable, "-m", "cli", "run", "--methods", args.methods, "--dataset", "sample", "--items",
             str(args.items), "--judges", args.judges, "--no-report", "--fresh", "--concurrency", str(level)],
            env=env, cwd=REPO, capture_output=True, text=True,
        )  # fmt: skip
        exited = time.time()
    finally:
        proxy.shutdown()
        if proc is not None:
            stop_llama(proc)
    if done.returncode not in (0, 3):
        raise SystemExit(f"run exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    fresh = batches(store) - before
    if len(fresh) != 1:
        raise SystemExit(f"expected one new batch, found {sorted(fresh)}")
    batch = fresh.pop()
    start, end, answered = run_window(store, batch)
    window = end - start
    inside = [e for e in recorder.exchanges if e.ended > start and e.started < end]
    busy = busy_seconds(inside, start, end)
    prompt = sum(e.prompt_tokens for e in inside)
    completion = sum(e.completion_tokens for e in inside)
    known = [e for e in inside if e.cached_tokens is not None]
    cached = sum(e.cached_tokens or 0 for e in known)
    known_prompt = sum(e.prompt_tokens for e in known)
    hit = f"{cached / known_prompt:.1%} ({cached:,} of {known_prompt:,} prompt tokens)" if known_prompt else "n/a"
    speeds = [e.generation_tps for e in inside if e.generation_tps]
    errors = sum(1 for e in inside if e.status != 200)
    usage = batch_usage(store, batch)
    ledger = ""
    if level == 1 and window > 0:
        ledger = f"; run record: {max(0.0, 1 - usage.get('seconds', 0.0) / window):.1%} (ledger call seconds)"
    generation = f"{sum(speeds) / len(speeds):.1f} tokens/s per reply" if speeds else "n/a"
    load = os.getloadavg()
    print(
        f"concurrency {level}: {answered} attempts in {window:.1f} s = {answered / window * 60:.1f} attempts/min; "
        f"{len(inside)} requests ({errors} not 200), tokens/s {(prompt + completion) / window:.1f} "
        f"({prompt:,} prompt + {completion:,} completion; completion {completion / window:.1f}/s); "
        f"harness share {1 - busy / window:.1%} of the window{ledger}; prefix-cache hits {hit}; "
        f"server generation {generation}",
        flush=True,
    )
    print(
        f"  slot context {n_ctx}; process start-up to RunStarted {start - launched:.1f} s, last AttemptFinished "
        f"to exit {exited - end:.1f} s; run exit {done.returncode}; load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
