"""What pacing requests costs and how a run behaves under rate limiting (prints figures). No Neo4j.

1. Limiter overhead: the time `EndpointLimiter.slot()` takes to give and take back a free slot (no waiting),
   alone and with `--threads` threads sharing it; then whole requests through `LLMClient` against the fake
   endpoint answering at 0 latency (response cache off), with the limiter's share of the request time.
2. A 429 storm: `--requests` distinct requests from `--threads` threads to a fake endpoint that answers every
   request HTTP 429 `--refusals` times (Retry-After `--retry-after` s) before answering it; the endpoint
   allows `--endpoint-concurrency` requests in flight (optionally `--rpm` per minute). Printed: requests sent,
   429s received, retries, seconds slept before retries, seconds waited for a slot, wall time, every request
   answered or not.

    python bench/bench_rate_limits.py [--calls 2000] [--requests 200] [--threads 8] [--refusals 2]
        [--retry-after 0.05] [--endpoint-concurrency 4] [--rpm N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.llm.accounting import UsageLedger  # noqa: E402
from agents.llm.client import LLMClient  # noqa: E402
from agents.llm.rate_limit import EndpointLimiter  # noqa: E402
from agents.llm.settings import load_role_settings  # noqa: E402
from tests.fake_openai import FakeOpenAI, Reply  # noqa: E402


def _echo(body: dict[str, Any]) -> Reply:
    return Reply.text("ok")


def slot_microseconds(limiter: EndpointLimiter, calls: int, threads: int) -> float:
    """Mean microseconds per slot taken and given back, `calls` per thread."""

    def work() -> None:
        for _ in range(calls):
            with limiter.slot():
                pass

    workers = [threading.Thread(target=work) for _ in range(threads)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return (time.perf_counter() - started) / (calls * threads) * 1e6


def client(fake: FakeOpenAI, ledger: UsageLedger, **settings: Any) -> LLMClient:
    s = load_role_settings("answerer", base_url=fake.base_url, model="fake", timeout_s=30.0, **settings)
    return LLMClient(s, cache=None, ledger=ledger, cache_mode="off")


def overhead(args: argparse.Namespace) -> None:
    print("== limiter overhead ==")
    free = EndpointLimiter("bench", concurrency=max(1, args.threads))
    windowed = EndpointLimiter("bench", concurrency=max(1, args.threads), rpm=10**9)
    print(f"slot(), 1 thread: {slot_microseconds(free, args.calls, 1):.2f} us; with a per-minute window "
          f"{slot_microseconds(windowed, args.calls, 1):.2f} us")  # fmt: skip
    print(f"slot(), {args.threads} threads (never full): {slot_microseconds(free, args.calls // 4, args.threads):.2f} "
          "us per slot")  # fmt: skip
    with FakeOpenAI(_echo) as fake:
        ledger = UsageLedger()
        llm = client(fake, ledger)
        times = []
        for i in range(args.requests):
            started = time.perf_counter()
            llm.chat([{"role": "user", "content": f"overhead {i}"}])
            times.append(time.perf_counter() - started)
        llm.close()
    per_request_ms = statistics.median(times) * 1e3
    slot_us = slot_microseconds(free, args.calls, 1)
    print(f"request through LLMClient at 0 latency: median {per_request_ms:.2f} ms over {args.requests}; the "
          f"limiter's share {slot_us / 1e3 / per_request_ms * 100:.3f}%")  # fmt: skip


def storm(args: argparse.Namespace) -> None:
    print("== 429 storm ==")
    with FakeOpenAI(_echo) as fake:
        fake.rate_limit_each(times=args.refusals, retry_after=args.retry_after)
        ledger = UsageLedger()
        extra = {"endpoint_rpm": args.rpm} if args.rpm else {}
        llm = client(
            fake, ledger, concurrency=args.threads, endpoint_concurrency=args.endpoint_concurrency,
            max_retries=args.refusals + 1, retry_base_s=args.retry_after, retry_max_s=10.0, retry_seed=1, **extra,
        )  # fmt: skip
        answered = [0]
        lock = threading.Lock()
        todo = list(range(args.requests))

        def work() -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    i = todo.pop()
                llm.chat([{"role": "user", "content": f"storm {i}"}])
                with lock:
                    answered[0] += 1

        workers = [threading.Thread(target=work) for _ in range(args.threads)]
        started = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        wall = time.perf_counter() - started
        most = llm.limiter.most_in_flight
        llm.close()
    u = ledger.as_dict()["answerer"]
    print(f"{args.requests} requests, {args.threads} threads, endpoint concurrency {args.endpoint_concurrency}"
          + (f", {args.rpm}/min" if args.rpm else "") + f", {args.refusals} x 429 each (Retry-After "
          f"{args.retry_after:g} s)")  # fmt: skip
    print(f"answered {answered[0]}/{args.requests}; sent {u['endpoint_requests']} requests, {u['rate_limited']} x 429 "
          f"(the endpoint counted {fake.rate_limited}), {u['retries']} retries")  # fmt: skip
    print(f"waited {u['backoff_wait_s']:.2f} s backing off and {u['limiter_wait_s']:.2f} s for a slot (summed over "
          f"threads); wall {wall:.2f} s; at most {most} in flight")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20000, help="slot() calls per thread (overhead)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--refusals", type=int, default=2, help="429s per request before it is answered")
    parser.add_argument("--retry-after", type=float, default=0.05)
    parser.add_argument("--endpoint-concurrency", type=int, default=4)
    parser.add_argument("--rpm", type=int, default=None)
    args = parser.parse_args()
    overhead(args)
    storm(args)


if __name__ == "__main__":
    main()
