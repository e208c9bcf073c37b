"""Benchmark the provenance API over loopback HTTP and print the figures.

Starts a throwaway Neo4j (bench/neo4j_for_bench.py), ingests the bundled sample, builds raw-turn memory cards and
links for its profiles, then runs the API as a separate uvicorn process (JSON request logs on, written to a
file) and measures, with a small asyncio HTTP/1.1 keep-alive load generator in this process:

1. `item` provenance latency: the full provenance query (requirements, statements with sessions, facts with
   their disclosing turns, knowledge spans with their text, support and history documents) for every sample
   item, one request at a time: p50 / p95 / p99 / max;
2. sustained throughput of a mixed read load (item 40 %, document 20 %, profile 15 %, neighbourhood 15 %,
   event-log page 10 %) with C concurrent connections for D seconds: requests/s overall and per 10-second
   window, error rate (non-200 or a GraphQL error), latency percentiles, and the server's resident memory
   sampled every 5 s (start, end, max);
3. `appendTurns` of 10 turns -> visible to `search`: time from sending the mutation until a RAW_TURNS search
   for one of the new statements returns the new memory card (mutation and search times separately).

    python bench/bench_api.py [--duration 30] [--concurrency 8] [--workers 1] [--item-rounds 10] [--appends 5]
    python bench/bench_api.py --duration 300        # the 5-minute stability run

Targets (issue 4): item p95 <= 30 ms; >= 300 req/s with 0 errors and stable memory; append-to-search <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from bench.stats import percentile  # noqa: E402
from graph.server import free_port  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"
TOKEN = "bench-token-" + "0" * 24
TARGETS = {"item p95 ms": 30.0, "req/s": 300.0, "append->search s": 1.0}

ITEM = """query($id: ID!) { item(id: $id) { id question labels profile { id name }
  requirements { id text action statements { id text speaker at session { id startedAt } }
     facts { id text disclosedIn { id } } spans { docId docTitle startLine endLine text } }
  supportDocuments { id title nLines } historyDocuments { id title } } }"""
DOCUMENT = """query($id: ID!) { document(id: $id) { id title nLines lines(startLine: 1, endLine: 40) { text }
  exposures(first: 20) { turnId via startLine endLine } supportsItems { id } groundedRequirements { startLine
  endLine requirement { id } } related(first: 10) { weight document { id title } } } }"""
PROFILE = """query($id: ID!) { profile(id: $id) { id name facts(first: 50) { id text disclosedIn { id } }
  sessions(first: 20) { id startedAt turns(first: 20) { id role } } items { id } } }"""
NEIGHBORHOOD = """query($id: ID!) { neighborhood(id: $id, depth: 1, limit: 50) { truncated
  nodes { key id label caption } edges { key type source target } } }"""
EVENTS = """query($after: Int!) { events(after: $after, first: 50) { headSeq endCursor events { seq type } } }"""




# --- a minimal keep-alive HTTP/1.1 client (cheap enough to leave the CPU to the server) -----------------------


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def post(self, body: bytes, token: str | None = None) -> tuple[int, bytes]:
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        head = (
            f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        self.writer.write(head + body)
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), payload

    def close(self) -> None:
        self.writer.close()


def request(query: str, variables: dict[str, Any]) -> bytes:
    return json.dumps({"query": query, "variables": variables}).encode()


def ok(status: int, payload: bytes) -> bool:
    return status == 200 and b'"errors"' not in payload


# --- setup --------------------------------------------------------------------------------------------------


def prepare_graph(driver: Any) -> dict[str, list[str]]:
    """Ingest the sample, build raw-turn cards and links for every profile; return ids for the load mix."""
    from agents.memory.cards import update_profile_memory
    from graph.embeddings import load_encoder
    from graph.store import EventStore
    from ingest.pipeline import load_input, write_events
    from query.retriever import Retriever

    encoder = load_encoder()
    store = EventStore(driver, encoder=encoder)
    store.ensure_schema()
    started = time.perf_counter()
    write_events(store, load_input(SAMPLE))
    retriever = Retriever(driver, encoder)
    with driver.session() as session:
        profiles = [r["id"] for r in session.run("MATCH (p:Profile) RETURN p.id AS id ORDER BY id")]
        items = [r["id"] for r in session.run("MATCH (i:Item) RETURN i.id AS id ORDER BY id")]
        documents = [
            r["id"]
            for r in session.run(
                "MATCH (d:Document) WHERE (d)<-[:SUPPORTED_BY|USES_HISTORY_DOC|EXPOSED]-() "
                "RETURN DISTINCT d.id AS id ORDER BY id"
            )
        ]
        turns = [r["id"] for r in session.run("MATCH (t:Turn) RETURN t.id AS id ORDER BY id LIMIT 200")]
    for profile in profiles:
        update_profile_memory(store, retriever, profile)
    print(
        f"graph: sample ingested and memory built in {time.perf_counter() - started:.1f} s "
        f"({len(items)} items, {len(profiles)} profiles, {len(documents)} documents in the mix)"
    )
    return {"items": items, "profiles": profiles, "documents": documents, "turns": turns}


def start_server(port: int, neo4j_port: int, workers: int, log_path: Path, cache: bool) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "COLABENCH_NEO4J_PORT": str(neo4j_port),
        "COLABENCH_API_TOKEN": TOKEN,
        "COLABENCH_API_RESPONSE_CACHE_ENTRIES": "4096" if cache else "0",
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
    }
    env.pop("NEO4J_URI", None)
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "api.app:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if b"200 OK" in sock.recv(200):
                    return process
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the API did not become ready; see {log_path}")


def tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and its children (uvicorn workers)."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(c) for c in children)
        except OSError:
            continue
    return total


# --- measurements -------------------------------------------------------------------------------------------


async def measure_items(port: int, items: list[str], rounds: int) -> list[float]:
    connection = await Connection.open(port)
    bodies = [request(ITEM, {"id": i}) for i in items]
    for body in bodies[:5]:
        await connection.post(body)  # warm-up: query plans and caches
    latencies: list[float] = []
    for _ in range(rounds):
        for body in bodies:
            started = time.perf_counter()
            status, payload = await connection.post(body)
            latencies.append((time.perf_counter() - started) * 1000)
            if not ok(status, payload):
                raise SystemExit(f"item query failed: {status} {payload[:300]!r}")
    connection.close()
    return latencies


def mixed_requests(ids: dict[str, list[str]], head: int) -> list[tuple[str, bytes]]:
    """A shuffled deck of requests in the stated proportions (40/20/15/15/10)."""
    deck: list[tuple[str, bytes]] = []
    for index in range(200):
        slot = index % 20
        if slot < 8:
            deck.append(("item", request(ITEM, {"id": ids["items"][index % len(ids["items"])]})))
        elif slot < 12:
            deck.append(("document", request(DOCUMENT, {"id": ids["documents"][index % len(ids["documents"])]})))
        elif slot < 15:
            deck.append(("profile", request(PROFILE, {"id": ids["profiles"][index % len(ids["profiles"])]})))
        elif slot < 18:
            deck.append(("neighborhood", request(NEIGHBORHOOD, {"id": ids["turns"][index % len(ids["turns"])]})))
        else:
            deck.append(("events", request(EVENTS, {"after": (index * 37) % max(1, head - 50)})))
    return deck


async def measure_load(
    port: int, deck: list[tuple[str, bytes]], concurrency: int, duration: float, server_pid: int
) -> dict[str, Any]:
    latencies: dict[str, list[float]] = {}
    errors: list[str] = []
    completions: list[float] = []
    rss: list[tuple[float, float]] = []
    started = time.perf_counter()
    deadline = started + duration

    async def client(offset: int) -> None:
        connection = await Connection.open(port)
        position = offset
        while time.perf_counter() < deadline:
            kind, body = deck[position % len(deck)]
            position += concurrency
            t0 = time.perf_counter()
            try:
                status, payload = await connection.post(body)
            except (OSError, asyncio.IncompleteReadError) as exc:
                errors.append(f"{kind}: {exc}")
                connection = await Connection.open(port)
                continue
            t1 = time.perf_counter()
            latencies.setdefault(kind, []).append((t1 - t0) * 1000)
            completions.append(t1 - started)
            if not ok(status, payload):
                errors.append(f"{kind}: {status} {payload[:200]!r}")
        connection.close()

    async def sample_memory() -> None:
        while time.perf_counter() < deadline:
            rss.append((time.perf_counter() - started, tree_rss_mib(server_pid)))
            await asyncio.sleep(5)
        rss.append((time.perf_counter() - started, tree_rss_mib(server_pid)))

    await asyncio.gather(sample_memory(), *(client(i) for i in range(concurrency)))
    elapsed = time.perf_counter() - started
    windows = [0] * (int(duration // 10) + 1)
    for t in completions:
        windows[min(int(t // 10), len(windows) - 1)] += 1
    return {
        "elapsed": elapsed,
        "requests": len(completions),
        "errors": errors,
        "latencies": latencies,
        "windows": [w / 10 for w in windows[: int(duration // 10)]],
        "rss": rss,
    }


async def measure_append_to_search(port: int, profile: str, trials: int) -> list[dict[str, float]]:
    connection = await Connection.open(port)
    session_id = f"bench-{uuid.uuid4().hex[:8]}"
    opening = """mutation($p: ID!, $s: String!) { appendSession(profile: $p, sessionId: $s,
        turns: [{role: "user", text: "Starting a benchmark session."}]) { sessionId } }"""
    status, payload = await connection.post(request(opening, {"p": profile, "s": session_id}), TOKEN)
    if not ok(status, payload):
        raise SystemExit(f"appendSession failed: {payload[:300]!r}")
    append = """mutation($s: ID!, $turns: [TurnInput!]!) { appendTurns(session: $s, turns: $turns) {
        appendedTurnIds memoryCounts timingsMs } }"""
    search = """query($p: ID!, $q: String!) { search(profile: $p, query: $q, recipe: "RAW_TURNS", k: 5) {
        memories { sourceTurnIds } } }"""
    results = []
    for trial in range(trials):
        marker = uuid.uuid4().hex[:6]
        turns = []
        for n in range(5):
            turns.append(
                {
                    "role": "user",
                    "text": f"Note {marker}-{n}: my neighbour's cat Biscuit{marker}{n} "
                    f"visited on day {trial * 5 + n} and knocked over the pill organiser.",
                }
            )
            turns.append({"role": "assistant", "text": f"Thanks, noted ({marker}-{n})."})
        target = turns[6]["text"]
        t0 = time.perf_counter()
        status, payload = await connection.post(request(append, {"s": session_id, "turns": turns}), TOKEN)
        t1 = time.perf_counter()
        if not ok(status, payload):
            raise SystemExit(f"appendTurns failed: {payload[:300]!r}")
        appended = json.loads(payload)["data"]["appendTurns"]
        wanted = appended["appendedTurnIds"][6]
        found = False
        while not found and time.perf_counter() - t0 < 10:
            status, payload = await connection.post(request(search, {"p": profile, "q": target}), None)
            hits = json.loads(payload)["data"]["search"]["memories"] if ok(status, payload) else []
            found = any(wanted in h["sourceTurnIds"] for h in hits)
        t2 = time.perf_counter()
        results.append(
            {
                "append_s": t1 - t0,
                "search_s": t2 - t1,
                "total_s": t2 - t0,
                "visible": float(found),
                "memory_ms": float(appended["timingsMs"].get("memory", 0.0)),
            }
        )
    connection.close()
    return results


def run_reads(
    port: int,
    pid: int,
    neo4j_pid: int | None,
    ids: dict[str, list[str]],
    head: int,
    args: argparse.Namespace,
    label: str,
    log_path: Path,
) -> None:
    print(f"\n=== {label}, {args.workers} worker(s)")
    item_latencies = asyncio.run(measure_items(port, ids["items"], args.item_rounds))
    print(
        f"1. item provenance, one request at a time, {len(item_latencies)} requests "
        f"({len(ids['items'])} items x {args.item_rounds}): p50 {percentile(item_latencies, 0.5):.1f} ms, "
        f"p95 {percentile(item_latencies, 0.95):.1f} ms, p99 {percentile(item_latencies, 0.99):.1f} ms, "
        f"max {max(item_latencies):.1f} ms  (target p95 <= {TARGETS['item p95 ms']:.0f} ms)"
    )
    cpu_before = process_cpu_seconds(pid)
    neo4j_before = process_cpu_seconds(neo4j_pid) if neo4j_pid else 0.0
    client_before = time.process_time()
    load = asyncio.run(measure_load(port, mixed_requests(ids, head), args.concurrency, args.duration, pid))
    cpu = process_cpu_seconds(pid) - cpu_before
    neo4j_cpu = (process_cpu_seconds(neo4j_pid) - neo4j_before) if neo4j_pid else float("nan")
    client_cpu = time.process_time() - client_before
    rate = load["requests"] / load["elapsed"]
    all_latencies = [v for values in load["latencies"].values() for v in values]
    error_rate = len(load["errors"]) / max(1, load["requests"] + len(load["errors"]))
    print(
        f"2. mixed read load, {args.concurrency} connections, {load['elapsed']:.0f} s: {load['requests']} requests, "
        f"{rate:.0f} req/s (target >= {TARGETS['req/s']:.0f}), errors {len(load['errors'])} ({error_rate:.2%}), "
        f"latency p50 {percentile(all_latencies, 0.5):.1f} ms, p95 {percentile(all_latencies, 0.95):.1f} ms, "
        f"p99 {percentile(all_latencies, 0.99):.1f} ms"
    )
    per = 1000 / max(1, load["requests"])
    print(
        f"   CPU per request: API {cpu * per:.2f} ms, Neo4j {neo4j_cpu * per:.2f} ms, load generator "
        f"{client_cpu * per:.2f} ms (2 cores = 2,000 ms of CPU per second for everything on the machine)"
    )
    for kind, values in sorted(load["latencies"].items()):
        print(
            f"   {kind:13s} {len(values):6d} requests, p50 {percentile(values, 0.5):6.1f} ms, "
            f"p95 {percentile(values, 0.95):6.1f} ms"
        )
    print("   req/s per 10 s window: " + ", ".join(f"{w:.0f}" for w in load["windows"]))
    rss = load["rss"]
    print(
        "   API RSS (MiB) every 5 s: "
        + ", ".join(f"{m:.0f}" for _, m in rss)
        + f"  (start {rss[0][1]:.0f}, end {rss[-1][1]:.0f}, max {max(m for _, m in rss):.0f})"
    )
    for error in load["errors"][:5]:
        print(f"   error: {error}")
    print(f"   API log: {sum(1 for _ in log_path.open())} lines")


def run_appends(port: int, ids: dict[str, list[str]], args: argparse.Namespace) -> None:
    appends = asyncio.run(measure_append_to_search(port, ids["profiles"][0], args.appends))
    totals = [a["total_s"] for a in appends]
    print(
        f"3. appendTurns of 10 turns -> visible to a RAW_TURNS search, {len(appends)} trials: "
        f"median {statistics.median(totals):.2f} s, max {max(totals):.2f} s "
        f"(target <= {TARGETS['append->search s']:.0f} s); all visible: {all(a['visible'] for a in appends)}"
    )
    for a in appends:
        print(
            f"   append {a['append_s'] * 1000:6.0f} ms (memory update {a['memory_ms']:5.0f} ms), "
            f"then search {a['search_s'] * 1000:5.0f} ms"
        )


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its children (uvicorn workers), from /proc."""
    total, pending, ticks = 0.0, [pid], os.sysconf("SC_CLK_TCK")
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of mixed load (300 = 5 minutes)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent keep-alive connections")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    parser.add_argument("--item-rounds", type=int, default=10, help="passes over the 28 sample items")
    parser.add_argument("--appends", type=int, default=5, help="appendTurns -> search trials")
    parser.add_argument(
        "--cache",
        choices=["both", "off", "on"],
        default="both",
        help="run the reads with the response cache off, on, or both",
    )
    args = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    with bench_neo4j() as (driver, neo4j_pid), tempfile.TemporaryDirectory(prefix="colabench-api-bench-") as tmp:
        ids = prepare_graph(driver)
        neo4j_port = int(driver.get_server_info().address[1])
        with driver.session() as session:
            head = int(session.run("MATCH (h:LogHead) RETURN h.seq AS s").single()["s"])  # type: ignore[index]
        modes = {"both": [False, True], "off": [False], "on": [True]}[args.cache]
        for cache in modes:
            port = free_port()
            log_path = Path(tmp) / f"api-cache-{'on' if cache else 'off'}.log"
            server = start_server(port, neo4j_port, args.workers, log_path, cache)
            label = "response cache ON" if cache else "response cache OFF"
            try:
                run_reads(port, server.pid, neo4j_pid, ids, head, args, label, log_path)
                if cache or len(modes) == 1:
                    run_appends(port, ids, args)
            finally:
                server.terminate()
                try:
                    server.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.kill()
        print(f"\nmachine load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
