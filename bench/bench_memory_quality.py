"""Benchmark: the no-LLM part of `eval memory` (coverage by query) on a 10-profile dataset.

Setup: a throwaway Neo4j (bench/neo4j_for_bench.py) holding a synthetic dataset shaped like the paper's
(10 profiles, 60 public user-assistant pairs each, 35 facts per profile of 7 kinds, 30 of them disclosed by a
user turn) and its `raw_turns` memory (one card per user turn, built by the real build). Prints the wall time
of `compute_coverage` (every fact, memory and turn of the 10 profiles; cold first call, then the median and
max of the warm ones). Target: under 5 s.

    python bench/bench_memory_quality.py [--profiles 10] [--pairs 60] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.memory.prepare import build_profiles  # noqa: E402
from agents.memory_quality.coverage import compute_coverage  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.events import (  # noqa: E402
    FactDisclosed,
    FactRecorded,
    NewEvent,
    ProfileCreated,
    SessionStarted,
    TurnAppended,
)
from graph.store import EventStore  # noqa: E402

KINDS = ("condition", "medication", "family", "diet", "plans", "household", "measurement")


def dataset_events(n_profiles: int, n_pairs: int, n_facts: int = 35, n_disclosed: int = 30) -> list[NewEvent]:
    events: list[Any] = []
    for p in range(n_profiles):
        pid = f"p{p:02d}"
        events.append(ProfileCreated(profile_id=pid, dataset="bench-mq"))
        for f in range(n_facts):
            events.append(
                FactRecorded(fact_id=f"{pid}-f{f}", profile_id=pid, text=f"{pid} fact {f}", category=KINDS[f % 7])
            )
        for s in range(n_pairs // 6):
            sid = f"{pid}-s{s}"
            events.append(SessionStarted(session_id=sid, profile_id=pid, ordinal=s))
            for k in range(12):
                pair = s * 6 + k // 2
                role = "user" if k % 2 == 0 else "assistant"
                text = f"{pid} pair {pair}: " + ("a message about my week" if role == "user" else "a reply")
                events.append(TurnAppended(turn_id=f"{sid}-t{k}", session_id=sid, ordinal=k, role=role, text=text))
                if role == "user" and pair < n_disclosed:
                    events.append(FactDisclosed(fact_id=f"{pid}-f{pair}", turn_id=f"{sid}-t{k}"))
    return [NewEvent(e, actor="bench") for e in events]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--profiles", type=int, default=10)
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    encoder = load_encoder()
    with bench_neo4j() as (driver, _pid):
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        events = dataset_events(args.profiles, args.pairs)
        started = time.perf_counter()
        for i in range(0, len(events), 2_000):
            store.append(events[i : i + 2_000])
        profiles = [f"p{p:02d}" for p in range(args.profiles)]
        build_profiles("raw_turns", store, None, profiles)
        print(f"setup: {len(events):,} events and raw_turns cards in {time.perf_counter() - started:.1f} s", flush=True)
        timings = []
        coverage = None
        for _ in range(args.repeats + 1):
            t0 = time.perf_counter()
            coverage = compute_coverage(driver, "neo4j", "raw_turns", profiles)
            timings.append(time.perf_counter() - t0)
        assert coverage is not None
        print(
            f"dataset: {args.profiles} profiles, {coverage.n_facts} facts ({coverage.n_points} expected points), "
            f"{coverage.turns.n_turns} turns, {coverage.n_memories} memories; recall {coverage.recall:.3f}"
        )
        warm = timings[1:]
        print(
            f"compute_coverage: cold {timings[0]:.3f} s, warm median {statistics.median(warm):.3f} s, "
            f"max {max(warm):.3f} s (target < 5 s)"
        )


if __name__ == "__main__":
    main()
