"""LLM-fault drill: a run against an endpoint that fails a share of its requests (default 20%: 429, 500,
timeouts, malformed bodies, cut-off JSON), compared item by item with a fault-free run of the same methods.

    PYTHONPATH=. python bench/drill_llm_faults.py [--fault-rate 0.2] [--max-retries 2] [--seed 7] [--items 10]

A throwaway Neo4j and the fake OpenAI server (tests/fake_openai, AutoPolicy). The reference run goes first
with no faults; the faulted run is a `--fresh` batch of the same command. Printed: the faults served by kind,
then per outcome the attempts of the faulted run: answered with the reference's verdict, answered but
flagged (the reply was not a valid answer), failed with a reason (the endpoint kept failing after the
retries), and the two that must stay 0: attempts lost (no terminal state) and verdicts that differ from the
reference without a flag or a failure.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.drill_common import DrillEnv, cli, drill_env
from tests.fake_openai import FakeOpenAI, Fault
from tests.fake_openai.policy import AutoPolicy

FAULTS = {
    "429": Fault.rate_limit(0.0),
    "500": Fault.server_error(),
    "timeout": Fault.timeout(2.5),
    "malformed_body": Fault.malformed_body(),
    "cut_off_json": Fault.invalid_json_content(),
}


class FaultyFake(FakeOpenAI):
    """The fake endpoint failing each request with probability `rate` (kind drawn uniformly, seeded)."""

    def __init__(self, seed: int, **kwargs: Any) -> None:
        super().__init__(AutoPolicy(), **kwargs)
        self.rate = 0.0
        self.served: Counter[str] = Counter()
        self._rng = random.Random(seed)
        self._fault_lock = threading.Lock()

    def _next_fault(self, body: dict[str, Any]) -> Fault | None:
        queued = super()._next_fault(body)
        if queued is not None:
            return queued
        with self._fault_lock:
            if self._rng.random() >= self.rate:
                self.served["none"] += 1
                return None
            kind = self._rng.choice(sorted(FAULTS))
            self.served[kind] += 1
            return FAULTS[kind]


def attempts(env: DrillEnv, exclude_runs: set[str]) -> list[dict[str, Any]]:
    """Per planned (run, item): the attempt's status, verdict, flags and error (None when no attempt exists)."""
    query = (
        "MATCH (r:Run) WHERE NOT r.id IN $exclude UNWIND r.item_ids AS iid "
        "OPTIONAL MATCH (a:Attempt {item_id: iid})-[:IN_RUN]->(r) "
        "RETURN r.id AS run_id, r.method AS method, iid AS item_id, a.status AS status, a.verdict AS verdict, "
        "coalesce(a.flags, []) AS flags, a.error AS error"
    )
    with env.driver.session() as session:
        return [dict(r) for r in session.run(query, exclude=sorted(exclude_runs))]


def run_ids(env: DrillEnv) -> set[str]:
    with env.driver.session() as session:
        return {r["id"] for r in session.run("MATCH (r:Run) RETURN r.id AS id")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--max-retries", type=int, default=2, help="the client's retries per request")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dataset", default="sample")
    parser.add_argument("--methods", default="HYBRID,MEMKB_RAW_TURNS")
    parser.add_argument("--items", type=int, default=10, help="items per method")
    args = parser.parse_args()
    with FaultyFake(args.seed) as fake:
        llm = {
            "COLABENCH_LLM_BASE_URL": fake.base_url,
            "COLABENCH_LLM_MODEL": "fake-model",
            "COLABENCH_LLM_CACHE_MODE": "off",
            "COLABENCH_LLM_TIMEOUT_S": "1.0",
            "COLABENCH_LLM_MAX_RETRIES": str(args.max_retries),
            "COLABENCH_LLM_RETRY_BASE_S": "0.05",
            "COLABENCH_LLM_RETRY_MAX_S": "0.3",
        }
        with drill_env(**llm) as env:
            for step in (["ingest", args.dataset], ["memory", "build", "--system", "raw_turns"]):
                done = cli(step, env.env)
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(step)} failed: {done.stderr[-2000:]}")
            command = [
                "run",
                "--methods",
                args.methods,
                "--dataset",
                args.dataset,
                "--judges",
                "accuracy",
                "--concurrency",
                "2",
                "--items",
                str(args.items),
            ]
            started = time.perf_counter()
            reference_run = cli(command, env.env)
            print(f"reference run: exit {reference_run.returncode}, {time.perf_counter() - started:.1f} s", flush=True)
            reference = attempts(env, set())
            before = run_ids(env)
            fake.rate = args.fault_rate
            requests_before = fake.request_count
            started = time.perf_counter()
            faulted_run = cli([*command, "--fresh"], env.env)
            seconds = time.perf_counter() - started
            fake.rate = 0.0
            faulted = attempts(env, before)
            requests = fake.request_count - requests_before
            report = cli(["report", "--latest", "--no-traces"], env.env)
    print("\n== LLM-fault drill ==")
    served = {k: v for k, v in fake.served.items() if k != "none"}
    print(
        f"faulted run: exit {faulted_run.returncode}, {seconds:.1f} s, {requests:,} endpoint requests, "
        f"{sum(served.values()):,} faults ({sum(served.values()) / max(1, requests):.1%}): "
        + ", ".join(f"{k} {v}" for k, v in sorted(served.items()))
    )
    ref_verdict = {(r["method"], r["item_id"]): r["verdict"] for r in reference}
    outcome: Counter[str] = Counter()
    for a in faulted:
        key = (a["method"], a["item_id"])
        if a["status"] == "answered":
            if a["flags"]:
                outcome["answered, flagged " + "/".join(sorted(a["flags"]))] += 1
            elif a["verdict"] == ref_verdict.get(key):
                outcome["answered, same verdict as the reference"] += 1
            elif a["verdict"] is None:
                outcome["answered, judgment failed (with reason)"] += 1
            else:
                outcome["SILENTLY DIFFERENT verdict"] += 1
        elif a["status"] == "error" and a["error"]:
            outcome["failed with a reason"] += 1
        else:
            outcome[f"LOST (status {a['status']!r}, no reason)"] += 1
    print(f"attempts planned: {len(faulted)} (reference: {len(reference)})")
    for name, n in sorted(outcome.items()):
        print(f"  {name}: {n}")
    reasons = Counter((a["error"] or "").split(":")[0][:80] for a in faulted if a["status"] == "error")
    for reason, n in reasons.most_common(5):
        print(f"  reason x{n}: {reason}")
    lost = sum(n for k, n in outcome.items() if k.startswith("LOST"))
    silent = outcome["SILENTLY DIFFERENT verdict"]
    print(f"lost attempts: {lost}; silently different verdicts: {silent}")
    print(
        f"report --latest: exit {report.returncode}; failure lines: "
        + json.dumps([ln.strip() for ln in report.stdout.splitlines() if "fail" in ln.lower()][:6])
    )
    sys.exit(0 if lost == 0 and silent == 0 else 1)


if __name__ == "__main__":
    main()
