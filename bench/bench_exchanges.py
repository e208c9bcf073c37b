"""What keeping every LLM exchange costs (prints figures): bytes per attempt and the harness time it adds.

A throwaway Neo4j (bench/neo4j_for_bench.py) holds the bundled sample; the scripted fake endpoint
(tests/fake_openai, AutoPolicy) answers instantly and the response cache is off, so every model call is a
real request. Each method runs the same items with the accuracy judge twice per repeat, alternating: with the
exchange store (the default) and with it detached from the clients (the run as it was before exchanges were
kept). Printed per method:

- bytes per attempt: compressed part and exchange bytes added to the store by one attempt (answer turns plus
  the judge), the SQLite file growth per attempt, and the JSON bytes of the requests sent, for comparison
  (what storing every request whole would hold before compression);
- parts stored / part references: how much content addressing saves (a conversation re-sends its system
  prompt, question and earlier tool results on every turn);
- harness overhead per item (wall time of an attempt minus retrieval and the endpoint's own time; median
  over items, best of the repeats) with and without the store, and the difference: the store's cost.

    python bench/bench_exchanges.py [--methods HYBRID,MEMKB_RAW_TURNS] [--items 28] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.llm.exchanges import ExchangeStore  # noqa: E402
from agents.llm.roles import LLMRoles  # noqa: E402
from agents.methods import parse_methods  # noqa: E402
from agents.prompts.registry import PromptSet  # noqa: E402
from agents.runs.plan import RunOptions, plan_batch  # noqa: E402
from agents.runs.runner import execute_batch  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.policy import AutoPolicy  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"


def one_run(
    store: EventStore, retriever: Any, fake: FakeOpenAI, method: str, items: int, exchanges: Path, keep: bool
) -> dict[str, float]:
    base = {"base_url": fake.base_url, "model": "fake", "concurrency": 64, "retry_base_s": 0.0}
    roles = LLMRoles(
        overrides={r: dict(base) for r in ("answerer", "judge", "state")},
        cache_path=exchanges.parent / "unused-cache.sqlite",
        cache_mode="off",
        exchanges_path=exchanges,
    )
    kept = roles.exchanges
    spent = [0.0]
    if keep:
        put = kept.put

        def timed_put(**kwargs: Any) -> str:
            started = time.perf_counter()
            try:
                return put(**kwargs)
            finally:
                spent[0] += time.perf_counter() - started

        kept.put = timed_put  # type: ignore[method-assign]
    if not keep:
        # The run as before exchanges were kept: the clients (made during the run) get no store.
        roles.exchanges = None  # type: ignore[assignment]
    prompts = PromptSet()
    assert store.encoder is not None
    plan = plan_batch(
        store,
        parse_methods(method),
        RunOptions(dataset="sample", items=items, judges=("accuracy",), fresh=True),
        roles,
        prompts,
        encoder_id=store.encoder.encoder_id,
    )
    server_before, requests_before = fake.server_seconds, len(fake.requests)
    report = execute_batch(store, retriever, plan, roles, prompts, concurrency=1)
    roles.exchanges = kept
    roles.close()
    rows = [t for ts in report.timings.values() for t in ts if "total_s" in t]
    endpoint_ms = (fake.server_seconds - server_before) * 1000 / len(rows)
    sent = fake.requests[requests_before:]
    return {
        "attempts": float(len(rows)),
        "overhead_ms": statistics.median((t["total_s"] - t["tools_s"]) * 1000 for t in rows) - endpoint_ms,
        "request_json_bytes": float(sum(len(json.dumps(b)) for b in sent)),
        "requests": float(len(sent)),
        "store_ms": spent[0] * 1000 / len(rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--methods", default="HYBRID,MEMKB_RAW_TURNS")
    parser.add_argument("--items", type=int, default=28)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    encoder = load_encoder()
    scratch = Path(tempfile.mkdtemp(prefix="bench-exchanges-"))
    with bench_neo4j() as (driver, _pid):
        from query.retriever import Retriever

        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        write_events(store, load_input(SAMPLE))
        retriever = Retriever(driver, encoder)
        print(
            f"\n== keeping every LLM exchange: {args.items} items per run, accuracy judge, instant endpoint, "
            f"concurrency 1, cache off; best of {args.repeats} =="
        )
        print(
            f"{'method':<17}{'req/att':>8}{'stored B/att':>13}{'file B/att':>11}{'sent JSON B/att':>16}"
            f"{'parts/refs':>12}{'store ms/att':>13}{'overhead off':>13}{'on':>8}"
        )
        try:
            with FakeOpenAI(AutoPolicy()) as fake:
                for method in methods:
                    one_run(store, retriever, fake, method, 3, scratch / "warm.sqlite", True)  # warm paths
                    path = scratch / f"{method}.sqlite"
                    on: list[dict[str, float]] = []
                    off: list[dict[str, float]] = []
                    sizes: list[tuple[float, float]] = []
                    for _ in range(args.repeats):
                        off.append(one_run(store, retriever, fake, method, args.items, scratch / "off.sqlite", False))
                        before = _stored(path)
                        file_before = _file_bytes(path)
                        on.append(one_run(store, retriever, fake, method, args.items, path, True))
                        after = _stored(path)
                        stored = (after["part_bytes"] + after["exchange_bytes"]) - (
                            before["part_bytes"] + before["exchange_bytes"]
                        )
                        sizes.append((stored, _file_bytes(path) - file_before))
                    first = on[0]
                    stored_first, file_first = sizes[0]
                    final = ExchangeStore(path)
                    refs = _part_references(final)
                    counts = final.stored_bytes()
                    final.close()
                    best_on = min(r["overhead_ms"] for r in on)
                    best_off = min(r["overhead_ms"] for r in off)
                    store_ms = statistics.median(r["store_ms"] for r in on)
                    print(
                        f"{method:<17}{first['requests'] / first['attempts']:>8.1f}"
                        f"{stored_first / first['attempts']:>13,.0f}{file_first / first['attempts']:>11,.0f}"
                        f"{first['request_json_bytes'] / first['attempts']:>16,.0f}"
                        f"{counts['parts']:>6,}/{refs:<5,}{store_ms:>13.2f}{best_off:>13.1f}{best_on:>8.1f}"
                    )
        finally:
            retriever.close()
    print(
        "\nstored B/att: compressed bytes the first run of a method added (parts + exchange records); later runs of "
        "the same items add only what differs. store ms/att: time inside ExchangeStore.put per attempt (median of "
        "the repeats; the store's whole cost on the request path). overhead: ms per item outside retrieval and the "
        "endpoint, with the store detached (off) and attached (on); best of the repeats."
    )


def _stored(path: Path) -> dict[str, int]:
    store = ExchangeStore(path)
    try:
        return store.stored_bytes()
    finally:
        store.close()


def _file_bytes(path: Path) -> float:
    total = 0
    for suffix in ("", "-wal"):
        candidate = path.with_name(path.name + suffix)
        if candidate.exists():
            total += candidate.stat().st_size
    return float(total)


def _part_references(store: ExchangeStore) -> int:
    """How many part references the exchange records make (each message, tool list, response format)."""
    total = 0
    for row in store.rows():
        if row["kind"] == "exchange":
            record = store.record(row["sha256"])
            total += len(record.messages) + len(record.parts)
    return total


if __name__ == "__main__":
    main()
