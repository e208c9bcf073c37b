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
    GraphFacts,
    LogFacts,
    Neo4jKill,
    cli,
    cli_killed_after,
    content_names,
    drill_env,
    dump_state,
    graph_facts,
    graphiti_memory_ids,
    log_facts,
    neo4j_killed_after,
    wipe,
)
from tests.fake_openai import FakeOpenAI
from tests.fake_openai.policy import AutoPolicy

SYSTEMS = "raw_turns,mem0,graphiti,amem"  # every memory system the fake endpoint's AutoPolicy serves
METHODS = "HYBRID,MEMKB_RAW_TURNS,MEM0,GRAPHITI,AMEM"


def phases(dataset: str, items: int, systems: list[str], methods: str) -> list[tuple[str, list[str]]]:
    """ingest, one `memory build` per system, then `run`: each a phase with kills of its own."""
    steps: list[tuple[str, list[str]]] = [("ingest", ["ingest", dataset])]
    steps += [(f"memory build {system}", ["memory", "build", "--system", system]) for system in systems]
    run = ["run", "--methods", methods, "--dataset", dataset, "--judges", "accuracy", "--concurrency", "2"]
    steps.append(("run", [*run, "--items", str(items)]))
    return steps


def split_kills(total: int, names: list[str]) -> dict[str, int]:
    """`total` kills over the phases: a fifth for ingest, three tenths for run, the rest shared by the memory
    builds (at least one each when there are enough)."""
    memory = [n for n in names if n.startswith("memory build")]
    ingest, run = round(total * 0.2), round(total * 0.3)
    left = total - ingest - run
    kills = {"ingest": ingest, "run": run}
    for i, name in enumerate(memory):
        kills[name] = left // len(memory) + (1 if i < left % len(memory) else 0)
    return {n: kills.get(n, 0) for n in names}


def run_reference(
    env: DrillEnv, steps: list[tuple[str, list[str]]], keep: Path | None = None
) -> tuple[LogFacts, dict[str, float], dict[str, LogFacts], dict[str, GraphFacts]]:
    wipe(env.driver)
    seconds: dict[str, float] = {}
    per_phase: dict[str, LogFacts] = {}
    graphs: dict[str, GraphFacts] = {}
    for name, args in steps:
        started = time.perf_counter()
        done = cli(args, env.env)
        seconds[name] = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"reference {name} failed ({done.returncode}): {done.stderr[-2000:]}")
        print(f"reference {name}: {seconds[name]:.1f} s", flush=True)
        per_phase[name] = log_facts(env.store())
        graphs[name] = graph_facts(env.driver, content_names(env))
    if keep is not None:
        dump_state(env, keep / "reference.jsonl")
    return per_phase[steps[-1][0]], seconds, per_phase, graphs


def run_killed(
    env: DrillEnv,
    steps: list[tuple[str, list[str]]],
    seconds: dict[str, float],
    kills: dict[str, int],
    rng: random.Random,
    reference: dict[str, LogFacts],
    graphs: dict[str, GraphFacts],
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
        graph_now, graph_then = graph_facts(env.driver, content_names(env)), graphs[name]
        same = "identical" if now.fingerprint() == then.fingerprint() else "DIFFERENT"
        same_graph = "identical" if graph_now.fingerprint() == graph_then.fingerprint() else "DIFFERENT"
        same_sdk = "same" if graph_now.sdk_store == graph_then.sdk_store else "DIFFERENT"
        print(
            f"after {name}: {hit} kills landed ({mid_write} after events were appended); log fingerprint {same} "
            f"({now.fingerprint()} vs {then.fingerprint()}), duplicate events {now.duplicates_against(then)}, "
            f"missing {now.missing_against(then)}, chain {'verifies' if now.chain_ok else 'BROKEN'}; "
            f"graph fingerprint {same_graph}, Graphiti store counts {same_sdk}",
            flush=True,
        )
        for line in graph_now.differences(graph_then)[:12]:
            print(f"  {line}", flush=True)
    return landed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=24, help="kills in total, split over the phases")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--dataset", default="sample")
    parser.add_argument("--systems", default=SYSTEMS, help="memory systems built (one phase each)")
    parser.add_argument("--methods", default=METHODS, help="methods of the run phase")
    parser.add_argument("--items", type=int, default=6, help="items per method in the run phase")
    parser.add_argument("--latency-ms", type=float, default=30.0, help="fake endpoint latency (kills land mid-call)")
    parser.add_argument(
        "--kill-neo4j", action="store_true", help="SIGKILL the Neo4j server (not the CLI) during ingest and run"
    )
    parser.add_argument("--keep", type=Path, help="folder to write both logs and graphs to (reference/drilled.jsonl)")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    neo4j_phases = frozenset({"ingest", "run"}) if args.kill_neo4j else frozenset()
    neo4j_kills: list[Neo4jKill] = []
    rng = random.Random(args.seed)
    systems = [x for x in args.systems.split(",") if x]
    steps = phases(args.dataset, args.items, systems, args.methods)
    kills = split_kills(args.kills, [name for name, _ in steps])
    with FakeOpenAI(AutoPolicy(), latency_s=args.latency_ms / 1000) as fake:
        llm = {
            "COLABENCH_LLM_BASE_URL": fake.base_url,
            "COLABENCH_LLM_MODEL": "fake-model",
            "COLABENCH_LLM_CACHE_MODE": "off",  # so repeated work has to reach the endpoint (and the log)
        }
        with drill_env(**llm) as env:
            reference, seconds, per_phase, graphs = run_reference(env, steps, args.keep)
            requests_reference = fake.request_count
            reference_ids = graphiti_memory_ids(env.store())
            landed = run_killed(env, steps, seconds, kills, rng, per_phase, graphs, neo4j_phases, neo4j_kills)
            drilled = log_facts(env.store())
            drilled_ids = graphiti_memory_ids(env.store())
            drilled_graph = graph_facts(env.driver, content_names(env))
            if args.keep is not None:
                dump_state(env, args.keep / "drilled.jsonl")
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
    reference_graph = graphs[steps[-1][0]]
    same_graph = reference_graph.fingerprint() == drilled_graph.fingerprint()
    print(
        f"graph fingerprint (projection, without {', '.join(sorted(reference_graph.volatile_seen)) or 'nothing'}): "
        f"reference {reference_graph.fingerprint()}, drilled {drilled_graph.fingerprint()} "
        f"({'identical' if same_graph else 'DIFFERENT'}; {sum(reference_graph.elements.values()):,} nodes and "
        "relationships)"
    )
    print(
        f"Graphiti's own store: reference {reference_graph.sdk_store}, drilled {drilled_graph.sdk_store} "
        f"({'same' if reference_graph.sdk_store == drilled_graph.sdk_store else 'DIFFERENT'})"
    )
    for line in drilled_graph.differences(reference_graph):
        print(f"  {line}")
    # The comparisons above name Graphiti's facts by content (RandomIds); their ids must also be the same as stored.
    print(
        f"Graphiti memory ids as stored: reference {len(reference_ids)}, drilled {len(drilled_ids)}, in both "
        f"{len(reference_ids & drilled_ids)} ({'same' if reference_ids == drilled_ids else 'DIFFERENT'})"
    )
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
    ok = ok and same_graph and reference_graph.sdk_store == drilled_graph.sdk_store and reference_ids == drilled_ids
    ok = ok and not any(k.traceback for k in neo4j_kills)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
