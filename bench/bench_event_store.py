"""Event store throughput: batched append, replay, verify, fingerprint (prints figures).

Two synthetic logs: `facts` (FactRecorded only: one node + one relationship each) and `conversation`
(TurnAppended with NEXT links interleaved with FactDisclosed, the shape of real sessions).
Usage: python bench/bench_event_store.py [--events 40000] [--batch 1000,5000,10000] [--replays 2]
Replay figures are given per replay: the first after the append, then again on the same (warmer) server.
"""

from __future__ import annotations

import argparse
import time

from bench.neo4j_for_bench import bench_neo4j, peak_rss_mib, wipe
from graph.events import FactDisclosed, FactRecorded, NewEvent, ProfileCreated, SessionStarted, TurnAppended
from graph.fingerprint import compute_fingerprint
from graph.integrity import verify_chain
from graph.replay import drop_projection, replay
from graph.store import EventStore


def facts_log(n: int) -> list[NewEvent]:
    head = [NewEvent(ProfileCreated(profile_id="p", dataset="bench"), "bench")]
    return head + [
        NewEvent(FactRecorded(fact_id=f"f{i}", profile_id="p", text=f"fact number {i}"), "bench") for i in range(n - 1)
    ]


def conversation_log(n: int) -> list[NewEvent]:
    events = [NewEvent(ProfileCreated(profile_id="p", dataset="bench"), "bench")]
    n_facts = n // 6
    events += [
        NewEvent(FactRecorded(fact_id=f"f{i}", profile_id="p", text=f"fact {i}"), "bench") for i in range(n_facts)
    ]
    session = 0
    turn = 0
    while len(events) < n:
        if turn % 20 == 0:
            session += 1
            events.append(NewEvent(SessionStarted(session_id=f"s{session}", profile_id="p", ordinal=session), "bench"))
        tid = f"s{session}t{turn % 20}"
        events.append(
            NewEvent(
                TurnAppended(
                    turn_id=tid,
                    session_id=f"s{session}",
                    ordinal=turn % 20,
                    role="user" if turn % 2 == 0 else "assistant",
                    text=f"message {turn} of the conversation",
                ),
                "bench",
            )
        )
        if turn % 2 == 0 and turn // 2 < n_facts:
            events.append(NewEvent(FactDisclosed(fact_id=f"f{turn // 2}", turn_id=tid), "bench"))
        turn += 1
    return events[:n]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=40000)
    parser.add_argument("--batch", default="1000,5000,10000")
    parser.add_argument(
        "--replays", type=int, default=2, help="replays per log and batch (the first after the append pays the "
        "JVM's warm-up of the projection code; later ones show a server that has replayed before)"
    )
    args = parser.parse_args()
    batches = [int(b) for b in args.batch.split(",")]
    with bench_neo4j() as (driver, pid):
        store = EventStore(driver)
        print(f"{'log':<13}{'batch':>7}{'append ev/s':>13}{'replay ev/s':>28}{'verify ev/s':>13}{'fingerprint s':>15}")
        for name, build in (("facts", facts_log), ("conversation", conversation_log)):
            events = build(args.events)
            for batch in batches:
                wipe(driver)
                store.ensure_schema()
                started = time.perf_counter()
                for start in range(0, len(events), batch):
                    store.append(events[start : start + batch])
                append_rate = len(events) / (time.perf_counter() - started)
                started = time.perf_counter()
                fingerprint = compute_fingerprint(driver)
                fingerprint_s = time.perf_counter() - started
                replay_rates = []
                for _ in range(max(1, args.replays)):
                    drop_projection(store)
                    result = replay(store, page_size=batch)
                    replay_rates.append(result.events / result.seconds)
                    assert compute_fingerprint(driver).digest == fingerprint.digest, "replay changed the projection"
                started = time.perf_counter()
                report = verify_chain(store.read(page_size=10000), expected_head=store.head().hash)
                verify_rate = report.checked / (time.perf_counter() - started)
                assert report.ok
                print(
                    f"{name:<13}{batch:>7}{append_rate:>13,.0f}{' / '.join(f'{r:,.0f}' for r in replay_rates):>28}"
                    f"{verify_rate:>13,.0f}"
                    f"{fingerprint_s:>15.2f}"
                )
        jvm_peak = peak_rss_mib(pid)
        print(
            f"peak RSS: python {peak_rss_mib():.0f} MiB, Neo4j JVM {jvm_peak:.0f} MiB; {args.events:,} events per log"
        )


if __name__ == "__main__":
    main()
