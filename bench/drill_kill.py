"""Kill -9 drill: SIGKILL the CLI at random points of `ingest`, `memory build` and `run`, resume each, and
compare the event log with an uninterrupted run of the same commands.

    PYTHONPATH=. python bench/drill_kill.py [--kills 20] [--seed 11] [--dataset sample] [--items 6]
    PYTHONPATH=. python bench/drill_kill.py --kill-neo4j     # SIGKILL Neo4j itself during ingest and run

With `--kill-neo4j` the kills of the ingest and run phases SIGKILL the Neo4j server process instead of the CLI
(memory build keeps CLI kills): the command must stop with one message (no traceback), Neo4j is started again
on the same data and the command resumed; printed per kill: the command's exit code and last line.

A throwaway Neo4j on a free port and the fake OpenAI server (tests/fake_openai) for the LLM. For each phase
the uninterrupted command is timed first; a kill lands at a random 10-80% of that time, or 0-1.5 s after the
killed command appended its first events, whichever comes first (so most kills cut a command mid-write).
Printed: per phase the kills that landed and the log against the reference after that phase; at the end the
log fingerprint ((type, key) multiset, timings excluded), duplicate and missing events, exact content-id
overlap, the chain check and `graph rebuild --check`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.drill_common import (
    DrillEnv,
    LogFacts,
    Neo4jKill,
    cli,
    cli_killed_after,
    drill_env,
    log_facts,
    neo4j_killed_after,
    wipe,
)
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy


def phases(dataset: str, items: int) -> list[tuple[str, list[str]]]:
    return [
        ("ingest", ["ingest", dataset]),
        ("memory build", ["memory", "build", "--system", "raw_turns"]),
        (
            "run",
            [
                "run",
                "--methods",
                "HYBRID,MEMKB_RAW_TURNS",
                "--dataset",
                dataset,
                "--judges",
                "accuracy",
                "--concurrency",
                "2",
                "--items",
                str(items),
            ],
        ),
    ]


def run_reference(
    env: DrillEnv, steps: list[tuple[str, list[str]]]
) -> tuple[LogFacts, dict[str, float], dict[str, LogFacts]]:
    wipe(env.driver)
    seconds: dict[str, float] = {}
    per_phase: dict[str, LogFacts] = {}
    for name, args in steps:
        started = time.perf_counter()
        done = cli(args, env.env)
        seconds[name] = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"reference {name} failed ({done.returncode}): {done.stderr[-2000:]}")
        print(f"reference {name}: {seconds[name]:.1f} s", flush=True)
        per_phase[name] = log_facts(env.store())
    return per_phase[steps[-1][0]], seconds, per_phase


def run_killed(
    env: DrillEnv,
    steps: list[tuple[str, list[str]]],
    seconds: dict[str, float],
    kills: dict[str, int],
    rng: random.Random,
    reference: dict[str, LogFacts],
    neo4j_phases: frozenset[str] = frozenset(),
    neo4j_kills: list[Neo4jKill] | None = None,
) -> dict[str, tuple[int, int, int]]:
    wipe(env.driver)
    landed: dict[str, tuple[int, int, int]] = {}
    for name, args in steps:
        hit = mid_write = 0
        for k in range(kills[name]):
            delay = rng.uniform(0.1, 0.8) * seconds[name]
            seq_before = env.store().head().seq
            grew = lambda before=seq_before: env.store().head().seq > before  # noqa: E731
            jitter = rng.uniform(0, 1.5)
            outcome = ""
            if name in neo4j_phases:
                kill = neo4j_killed_after(args, env, delay, grew=grew, jitter_s=jitter)
                killed = kill.landed
                if killed and neo4j_kills is not None:
                    neo4j_kills.append(kill)
                last = kill.stderr_tail.splitlines()[-1] if kill.stderr_tail else "-"
                outcome = (
                    f"; command exit {kill.returncode}{', TRACEBACK' if kill.traceback else ''}: {last[:150]}; "
                    f"Neo4j restarted in {kill.restart_s:.1f} s"
                    if killed
                    else ""
                )
            else:
                killed = cli_killed_after(args, env.env, delay, grew=grew, jitter_s=jitter)
            wrote = env.store().head().seq > seq_before
            hit += killed
            mid_write += killed and wrote
            print(
                f"{name}: {'Neo4j ' if name in neo4j_phases else ''}kill {k + 1}/{kills[name]} at {delay:.1f} s: "
                f"{'killed' if killed else 'had finished'}"
                f"{' (after it appended events)' if killed and wrote else ''}{outcome}",
                flush=True,
            )
        done = cli(args, env.env)  # the resume that runs to the end
        if done.returncode != 0:
            raise SystemExit(f"resumed {name} failed ({done.returncode}): {done.stderr[-2000:]}")
        landed[name] = (hit, mid_write, kills[name])
        now, then = log_facts(env.store()), reference[name]
        same = "identical" if now.fingerprint() == then.fingerprint() else "DIFFERENT"
        print(
            f"after {name}: {hit} kills landed ({mid_write} after events were appended); log fingerprint {same} "
            f"({now.fingerprint()} vs {then.fingerprint()}), duplicate events {now.duplicates_against(then)}, "
            f"missing {now.missing_against(then)}, chain {'verifies' if now.chain_ok else 'BROKEN'}",
            flush=True,
        )
    return landed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20, help="kills in total, split over the three phases")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--dataset", default="sample")
    parser.add_argument("--items", type=int, default=6, help="items per method in the run phase")
    parser.add_argument("--latency-ms", type=float, default=30.0, help="fake endpoint latency (kills land mid-call)")
    parser.add_argument(
        "--kill-neo4j", action="store_true", help="SIGKILL the Neo4j server (not the CLI) during ingest and run"
    )
    args = parser.parse_args()
    neo4j_phases = frozenset({"ingest", "run"}) if args.kill_neo4j else frozenset()
    neo4j_kills: list[Neo4jKill] = []
    rng = random.Random(args.seed)
    steps = phases(args.dataset, args.items)
    share = [round(args.kills * w) for w in (0.35, 0.25)]
    kills = {"ingest": share[0], "memory build": share[1], "run": args.kills - sum(share)}
    with FakeOpenAI(AutoPolicy(), latency_s=args.latency_ms / 1000) as fake:
        llm = {
            "COLABENCH_LLM_BASE_URL": fake.base_url,
            "COLABENCH_LLM_MODEL": "fake-model",
            "COLABENCH_LLM_CACHE_MODE": "off",  # so repeated work has to reach the endpoint (and the log)
        }
        with drill_env(**llm) as env:
            reference, seconds, per_phase = run_reference(env, steps)
            requests_reference = fake.request_count
            landed = run_killed(env, steps, seconds, kills, rng, per_phase, neo4j_phases, neo4j_kills)
            drilled = log_facts(env.store())
            rebuild = cli(["graph", "rebuild", "--check"], env.env)
            requests_drilled = fake.request_count - requests_reference
    print("\n== kill -9 drill ==")
    for name, (hit, mid_write, tried) in landed.items():
        print(
            f"{name}: {hit} of {tried} kills landed mid-command, {mid_write} after the command had appended "
            f"events (reference {seconds[name]:.1f} s)"
        )
    if args.kill_neo4j:
        failed = [k for k in neo4j_kills if k.returncode != 0]
        lines = Counter(k.stderr_tail.splitlines()[-1][:100] if k.stderr_tail else "-" for k in failed)
        restarts = [k.restart_s for k in neo4j_kills]
        print(
            f"Neo4j kills: {len(neo4j_kills)} landed; the command exited non-zero after {len(failed)} "
            f"(0 after {len(neo4j_kills) - len(failed)}), tracebacks {sum(k.traceback for k in neo4j_kills)}; "
            f"restart {min(restarts, default=0):.1f}-{max(restarts, default=0):.1f} s; last lines: {dict(lines)}"
        )
    print(f"events: reference {reference.events:,}, drilled {drilled.events:,}")
    print(
        f"log fingerprint: reference {reference.fingerprint()}, drilled {drilled.fingerprint()} "
        f"({'identical' if reference.fingerprint() == drilled.fingerprint() else 'DIFFERENT'})"
    )
    print(
        f"duplicate events: {drilled.duplicates_against(reference)}; "
        f"missing events: {drilled.missing_against(reference)}"
    )
    same = len(reference.content_ids & drilled.content_ids)
    print(
        f"identical content ids: {same:,} of {reference.events:,} (the rest differ in timings only when the "
        "fingerprint matches)"
    )
    print(f"endpoint requests: reference {requests_reference:,}, drilled (all kills and resumes) {requests_drilled:,}")
    print(f"chain: {'verifies' if drilled.chain_ok else 'BROKEN: ' + str(drilled.chain_problem)}")
    print(f"graph rebuild --check: exit {rebuild.returncode}")
    differing = sorted(
        {t for (t, _k), n in drilled.keys.items() if reference.keys.get((t, _k), 0) != n}
        | {t for (t, _k), n in reference.keys.items() if drilled.keys.get((t, _k), 0) != n}
    )
    if differing:
        print(f"types that differ: {', '.join(differing)}")
        for t in differing:
            print(f"  {t}: reference {reference.by_type.get(t, 0)}, drilled {drilled.by_type.get(t, 0)}")
    ok = reference.fingerprint() == drilled.fingerprint() and drilled.chain_ok and rebuild.returncode == 0
    ok = ok and not any(k.traceback for k in neo4j_kills)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
