"""Synthesis harness overhead and throughput (prints figures).

A throwaway Neo4j (bench/neo4j_for_bench.py) holding the bundled sample's KB; the fake OpenAI-compatible server
playing every synthesis role (tests/fake_openai/synthesis_script.py); response cache off, so every call reaches
the endpoint.

1. Instant endpoint, concurrency 1: per stage, wall time, the time inside LLM calls (openai client + HTTP) and
   the rest (the harness: views, searches, checks, appends), per unit and per accepted item.
2. An endpoint answering after `--latency-ms` (default 250): the whole pipeline's throughput (accepted items per
   minute, LLM calls per second) at --concurrency 1, 2, 4, 8; with `--ray`, also with the units in that many Ray
   actors (`synth --executor ray`) on a local Ray instance the benchmark starts (actor start-up included; run it
   with the Ray environment's python, $(scripts/setup_ray_env.sh)/bin/python).

    python bench/bench_synthesis.py [--profiles 4] [--latency-ms 250] [--levels 1,2,4,8] [--ray]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.llm.roles import LLMRoles  # noqa: E402
from agents.prompts.registry import PromptSet  # noqa: E402
from agents.synthesis.config import SynthesisConfig  # noqa: E402
from agents.synthesis.context import SynthContext  # noqa: E402
from agents.synthesis.pipeline import run_stages  # noqa: E402
from agents.synthesis.registry import stage_names  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j_server  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from query.retriever import Retriever  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.synthesis_script import SynthesisPolicy  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"


def synthesize(
    store: EventStore, fake: FakeOpenAI, dataset: str, profiles: int, concurrency: int, ray_neo4j: Any = None
) -> tuple[list[dict[str, Any]], float]:
    roles = LLMRoles(
        overrides={"synthesis": {"base_url": fake.base_url, "model": "fake", "retry_base_s": 0.0, "concurrency": 64}},
        cache_path=Path(tempfile.mkdtemp()) / "unused.sqlite",
        cache_mode="off",
    )
    assert store.encoder is not None
    ctx = SynthContext(
        store=store,
        retriever=Retriever(store.driver, store.encoder),
        roles=roles,
        prompts=PromptSet(),
        concurrency=concurrency,
        config=SynthesisConfig(
            dataset=dataset, profiles=profiles, seed_docs=profiles, topics_per_profile=2, max_user_turns=2
        ),
    )
    pool = None
    started = time.perf_counter()
    if ray_neo4j is not None:
        from agents.synthesis.ray_units import RayUnits

        pool = RayUnits(workers=concurrency, roles=roles, prompts=ctx.prompts, config=ctx.config, neo4j=ray_neo4j)
        ctx.remote = pool
    try:
        results = []
        for stage in stage_names():
            t0 = time.perf_counter()
            result = run_stages(ctx, [stage])[0]
            result["wall_s"] = time.perf_counter() - t0
            results.append(result)
    finally:
        if pool is not None:
            pool.close()
        roles.close()
    return results, time.perf_counter() - started


def accepted(result: dict[str, Any]) -> int:
    """Accepted units of a stage (outcomes accepted, accepted_after_revision, accepted_<direction>)."""
    return sum(int(v) for k, v in result["counts"].items() if k.startswith("accepted"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--levels", default="1,2,4,8")
    parser.add_argument("--ray", action="store_true", help="part 2 also with the units in Ray actors")
    args = parser.parse_args()
    encoder = load_encoder()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    with bench_neo4j_server() as (settings, driver, _):
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        write_events(store, load_input(SAMPLE))
        with FakeOpenAI(SynthesisPolicy()) as fake:
            results, total = synthesize(store, fake, "bench-instant", args.profiles, 1)
        print(f"\n1. instant endpoint, concurrency 1, {args.profiles} profiles x 2 topics, cache off")
        print("| stage | units | accepted | LLM calls | wall s | in LLM calls s | harness s | harness ms per unit |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        items = 0
        harness_items = 0.0
        for r in results:
            usage = r["usage"]["total"]
            units = int(r["counts"]["planned"]) - int(r["counts"]["skipped_done"])
            harness = r["wall_s"] - float(usage["seconds"])
            if r["stage"] in ("items", "augment"):
                items += accepted(r)
                harness_items += harness
            print(
                f"| {r['stage']} | {units} | {accepted(r)} | {usage['calls']} | {r['wall_s']:.2f} | "
                f"{usage['seconds']:.2f} | {harness:.2f} | {1000 * harness / max(units, 1):.0f} |"
            )
        print(
            f"whole pipeline {total:.2f} s; harness per accepted item (stages III + augment): "
            f"{1000 * harness_items / max(items, 1):.0f} ms over {items} items"
        )
        print(f"\n2. endpoint answering after {args.latency_ms:.0f} ms, {args.profiles} profiles")
        print("| executor | concurrency | wall s | accepted items | items per minute | LLM calls per s | speed-up |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        levels = [int(x) for x in args.levels.split(",")]
        modes = ["threads"]
        if args.ray:
            from graph.ray_runtime import start_local_ray

            start_local_ray(num_cpus=max(levels))
            modes.append("ray")
        base: float | None = None
        for mode in modes:
            for level in levels:
                with FakeOpenAI(SynthesisPolicy(), latency_s=args.latency_ms / 1000) as fake:
                    results, total = synthesize(
                        store, fake, f"bench-{mode}-c{level}", args.profiles, level, settings if mode == "ray" else None
                    )
                items = sum(accepted(r) for r in results if r["stage"] in ("items", "augment"))
                calls = sum(int(r["usage"]["total"]["calls"]) for r in results)
                base = base or total
                print(
                    f"| {mode} | {level} | {total:.1f} | {items} | {60 * items / total:.1f} | {calls / total:.2f} | "
                    f"{base / total:.2f}x |"
                )
        print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
