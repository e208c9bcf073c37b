"""LLM-fault drill: a run whose endpoint fails a share of its requests (default 20%, seeded: HTTP 500 and 503,
timeouts past the client's, garbage bodies, replies cut in the middle), then the same command again without
faults, compared with a fault-free reference run of the same methods.

    PYTHONPATH=. python bench/drill_llm_faults.py [--fault-rate 0.2] [--max-retries 2] [--seed 7] [--items 4]

A throwaway Neo4j and the fake OpenAI server (tests/fake_openai, AutoPolicy). Each role asks its own model name
(`fake-answerer`, `fake-judge`, `fake-state`, `fake-memory`), so the fake knows which role every request and every
fault was for. The methods (default HYBRID, MEMKB_RAW_TURNS and MEM0) use every run role: answerer, judge,
state (MemKB's state list) and memory (Mem0's build, which the run does itself).

1. Reference: ingest, `memory build --system raw_turns`, `run` with no faults and the response cache off.
2. The graph is emptied and built again the same way; the same `run` goes to the faulty endpoint with the
   response cache on (a file of the drill's own).
3. The same `run` again with the faults off: it resumes the batch.

Printed: the faults served per role and kind; per role what the run record says (RunFinished/RunLeftIncomplete
usage summed over the batch's runs: endpoint requests, retries, invalid replies) and the EndpointFailed events,
checked against the fake's own counts (every request the fake saw is in the record; every transport fault is a
retry or a failure; every cut reply of a structured call is an invalid reply); the response cache scanned for
any reply the fake served as a fault (must be 0); after the rerun: runs finished, attempts answered and judged,
verdicts against the reference, memories against the reference. Exit 1 when a must-be-zero count is not 0.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.drill_common import DrillEnv, cli, drill_env, log_facts, wipe
from tests.fake_openai import FakeOpenAI, Fault, Reply
from tests.fake_openai.policy import AutoPolicy

ROLES = ("answerer", "judge", "state", "memory")
MODELS = {f"fake-{role}": role for role in ROLES}
TRANSPORT = {
    "http 500": Fault.server_error(),
    "http 503": Fault.http(503),
    "timeout": Fault.timeout(8.0),  # the client gives up at 3 s
    "garbage body": Fault.malformed_body(),
}
CUT = "cut reply"
KINDS = (*sorted(TRANSPORT), CUT)


def cut_reply(reply: Reply) -> Reply:
    """The reply cut half-way, as a server marks a reply it stopped early (finish_reason `length`): the first half
    of its text, or of a tool call's name and arguments written out as text. A half reply that claims to be
    complete cannot be told from a short answer by any client (a connection dropped mid-body is a garbage body,
    drilled on its own), so the drill does not inject that."""
    if reply.content:
        text = reply.content
    elif reply.tool_calls:
        name, arguments = reply.tool_calls[0]
        text = json.dumps({"name": name, "arguments": arguments})
    else:
        text = "{"
    return Reply(content=text[: max(1, len(text) // 2)], finish_reason="length")


class FaultyFake(FakeOpenAI):
    """The fake endpoint failing each request with probability `rate` (kind drawn uniformly, seeded), counting
    requests and faults per role (the role named by the request's model)."""

    def __init__(self, seed: int, **kwargs: Any) -> None:
        self.policy = AutoPolicy()
        super().__init__(self._respond, **kwargs)
        self.rate = 0.0
        self.seen: Counter[str] = Counter()  # role -> requests
        self.faults: Counter[tuple[str, str]] = Counter()  # (role, kind) -> faults served
        self.cut_structured: Counter[str] = Counter()  # role -> cut replies to a structured (JSON) request
        self.cut_texts: set[str] = set()
        self._rng = random.Random(seed)
        self._fault_lock = threading.Lock()
        self._local = threading.local()

    def _next_fault(self, body: dict[str, Any]) -> Fault | None:
        queued = super()._next_fault(body)
        self._local.cut = False
        if queued is not None:
            return queued
        role = MODELS.get(str(body.get("model")), str(body.get("model")))
        with self._fault_lock:
            self.seen[role] += 1
            if self._rng.random() >= self.rate:
                return None
            kind = self._rng.choice(KINDS)
            self.faults[(role, kind)] += 1
            if kind == CUT:
                self._local.cut = True
                if body.get("response_format"):
                    self.cut_structured[role] += 1
                return None
            return TRANSPORT[kind]

    def _respond(self, body: dict[str, Any]) -> Reply:
        reply = self.policy(body)
        if getattr(self._local, "cut", False):
            reply = cut_reply(reply)
            with self._fault_lock:
                self.cut_texts.add(str(reply.content))
        return reply


def batch_records(env: DrillEnv, exclude: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The run records (last RunFinished/RunLeftIncomplete per run) and EndpointFailed payloads of the runs not
    in `exclude`."""
    ends: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    for event in env.store().read():
        payload = dict(event.payload)
        if payload.get("run_id") in exclude:
            continue
        if event.type in ("RunFinished", "RunLeftIncomplete"):
            ends[payload["run_id"]] = {"type": event.type, **payload}
        elif event.type == "EndpointFailed":
            failures.append(payload)
    return list(ends.values()), failures


def attempts(env: DrillEnv) -> dict[tuple[str, str], dict[str, Any]]:
    query = (
        "MATCH (r:Run) UNWIND r.item_ids AS iid "
        "OPTIONAL MATCH (a:Attempt {item_id: iid})-[:IN_RUN]->(r) "
        "OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment {kind: 'accuracy'}) "
        "RETURN r.id AS run_id, r.method AS method, r.status AS run_status, iid AS item_id, a.status AS status, "
        "a.verdict AS verdict, coalesce(a.flags, []) AS flags, a.error AS error, j IS NOT NULL AS judged"
    )
    with env.driver.session() as session:
        return {(r["method"], r["item_id"]): dict(r) for r in session.run(query)}


def run_ids(env: DrillEnv) -> set[str]:
    with env.driver.session() as session:
        return {r["id"] for r in session.run("MATCH (r:Run) RETURN r.id AS id")}


def memory_keys(env: DrillEnv) -> Counter[tuple[str, str]]:
    return Counter({k: n for k, n in log_facts(env.store()).keys.items() if k[0] == "MemoryWritten"})


def cached_faults(cache: Path, cut_texts: set[str]) -> tuple[int, int]:
    """(replies in the cache, cached replies that are a fault the fake served)."""
    if not cache.exists():
        return 0, 0
    with sqlite3.connect(cache) as db:
        rows = [json.loads(r[0]) for r in db.execute("SELECT response FROM responses")]
    return len(rows), sum(1 for r in rows if r.get("content") in cut_texts)


def prepare(env: DrillEnv, dataset: str) -> None:
    wipe(env.driver)
    for step in (["ingest", dataset], ["memory", "build", "--system", "raw_turns"]):
        done = cli(step, env.env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(step)} failed: {done.stderr[-2000:]}")


def timed(command: list[str], env: dict[str, str], label: str) -> int:
    started = time.perf_counter()
    done = cli(command, env)
    last = (done.stderr.strip().splitlines() or ["-"])[-1][:160]
    seconds = time.perf_counter() - started
    print(f"{label}: exit {done.returncode}, {seconds:.1f} s; last stderr line: {last}", flush=True)
    return done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--max-retries", type=int, default=2, help="the client's retries per request")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dataset", default="tests/fixtures/mini_bundle")
    parser.add_argument("--methods", default="HYBRID,MEMKB_RAW_TURNS,MEM0")
    parser.add_argument("--items", type=int, default=4, help="items per method")
    args = parser.parse_args()
    fake = FaultyFake(args.seed)
    with fake:
        llm = {
            "COLABENCH_LLM_BASE_URL": fake.base_url,
            **{f"COLABENCH_LLM_{role.upper()}_MODEL": model for model, role in MODELS.items()},
            "COLABENCH_LLM_TIMEOUT_S": "3.0",
            "COLABENCH_LLM_MAX_RETRIES": str(args.max_retries),
            "COLABENCH_LLM_RETRY_BASE_S": "0.05",
            "COLABENCH_LLM_RETRY_MAX_S": "0.3",
        }
        with drill_env(**llm) as env:
            cache = env.home / "llm_responses.sqlite"
            command = ["run", "--methods", args.methods, "--dataset", args.dataset, "--judges", "accuracy"]
            # the endpoint check is the fake's own reply (never faulted), skipped so a busy machine cannot fail it
            command += ["--concurrency", "2", "--items", str(args.items), "--no-endpoint-check"]
            reference_env = {**env.env, "COLABENCH_LLM_CACHE_MODE": "off"}
            faulty_env = {**env.env, "COLABENCH_LLM_CACHE_MODE": "use", "COLABENCH_LLM_CACHE": str(cache)}

            prepare(env, args.dataset)
            timed(command, reference_env, "reference run (no faults, cache off)")
            reference = attempts(env)
            reference_memory = memory_keys(env)

            prepare(env, args.dataset)
            fake.seen.clear()
            fake.rate = args.fault_rate
            faulted_code = timed(command, faulty_env, f"faulted run ({args.fault_rate:.0%} faults, cache on)")
            fake.rate = 0.0
            seen = Counter(fake.seen)
            records, failures = batch_records(env, set())
            after_faults = attempts(env)
            cached, cached_bad = cached_faults(cache, fake.cut_texts)
            rerun_code = timed(command, faulty_env, "rerun (no faults, cache on)")
            converged = attempts(env)
            final_records, _ = batch_records(env, set())
            converged_memory = memory_keys(env)
            cached_after, cached_bad_after = cached_faults(cache, fake.cut_texts)

    print(f"\n== LLM-fault drill: {args.methods}, {args.items} items, fault rate {args.fault_rate:.0%} ==")
    usage: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        for role, counters in (record.get("usage") or {}).items():
            if role in ROLES and isinstance(counters, dict):
                for name in ("endpoint_requests", "retries", "invalid_replies", "calls"):
                    usage[role][name] += int(counters.get(name) or 0)
    failed: Counter[str] = Counter(str(f.get("role", "?")).split("@")[0].split(":")[0] for f in failures)
    exhausted: Counter[str] = Counter(
        str(f.get("role", "?")).split("@")[0].split(":")[0] for f in failures if "kept failing" in str(f.get("error"))
    )
    total_faults = sum(fake.faults.values())
    print(
        f"faulted run: exit {faulted_code}; {sum(seen.values()):,} endpoint requests, {total_faults:,} faults "
        f"({total_faults / max(1, sum(seen.values())):.1%}): "
        + ", ".join(f"{k} {sum(n for (_r, kk), n in fake.faults.items() if kk == k)}" for k in KINDS)
    )
    unaccounted = 0
    header = "role      requests  faults (500/503/timeout/garbage/cut)  record: requests retries invalid failed"
    print(header)
    for role in ROLES:
        by_kind = [fake.faults[(role, k)] for k in ("http 500", "http 503", "timeout", "garbage body", CUT)]
        transport = sum(by_kind[:4])
        u = usage[role]
        # every request the fake saw is in the record; every transport fault became a retry or a failure that gave up
        gap_requests = seen[role] - u["endpoint_requests"]
        gap_transport = transport - (u["retries"] + exhausted[role])
        gap_cut = fake.cut_structured[role] - u["invalid_replies"] if role != "memory" else 0
        unaccounted += abs(gap_requests) + max(0, gap_transport) + max(0, gap_cut)
        print(
            f"{role:<9} {seen[role]:>8}  {'/'.join(str(n) for n in by_kind):<36}  "
            f"{u['endpoint_requests']:>8} {u['retries']:>7} {u['invalid_replies']:>7} {failed[role]:>6}"
            f"   (gaps: requests {gap_requests}, transport faults {gap_transport}, structured cuts {gap_cut})"
        )
    print(
        f"EndpointFailed events: {len(failures)} by role {dict(failed)}; gave up after retries {dict(exhausted)}; "
        f"stages {dict(Counter(str(f.get('stage')) for f in failures))}"
    )
    outcome = Counter(
        "answered and judged" if a["status"] == "answered" and a["judged"] else f"status {a['status']}"
        for a in after_faults.values()
    )
    print(f"after the faulted run: attempts {dict(outcome)}; runs {dict(Counter(r['type'] for r in records))}")
    print(
        f"response cache after the faulted run: {cached} replies, {cached_bad} of them a fault the fake served; "
        f"after the rerun: {cached_after} replies, {cached_bad_after} faults"
    )
    statuses = Counter(r["type"] for r in final_records)
    complete = sum(1 for a in converged.values() if a["status"] == "answered" and a["judged"])
    differ = [k for k, a in converged.items() if a["verdict"] != (reference.get(k) or {}).get("verdict")]
    flagged = sum(1 for a in converged.values() if a["flags"])
    print(
        f"rerun: exit {rerun_code}; runs {dict(statuses)}; attempts answered and judged {complete} of "
        f"{len(converged)} (reference {len(reference)}); verdicts that differ from the reference {len(differ)}; "
        f"flagged {flagged}"
    )
    same_memory = converged_memory == reference_memory
    print(
        f"memories (MemoryWritten keys) after the rerun: {sum(converged_memory.values())}, reference "
        f"{sum(reference_memory.values())} ({'identical' if same_memory else 'DIFFERENT'})"
    )
    print(f"unaccounted faults: {unaccounted}; faults in the cache: {cached_bad + cached_bad_after}")
    ok = (
        unaccounted == 0
        and cached_bad + cached_bad_after == 0
        and rerun_code == 0
        and set(statuses) == {"RunFinished"}
        and complete == len(converged) == len(reference)
        and not differ
        and same_memory
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
