"""Memory systems side by side: build cost per pair, and search latency of each system's own (SDK-native)
search against the project's `memory_search` for that system and against `memkb_search` (prints figures).

Setup: a throwaway Neo4j (bench/neo4j_for_bench.py) holding the bundled sample (3 profiles), and the scripted
fake OpenAI-compatible server (tests/fake_openai) answering each SDK's extraction requests so that every system
keeps about one memory per user turn (Mem0: one memory per user message; Graphiti: one fact per user turn; A-MEM:
one note per pair), so memory counts are comparable. The response cache is off: every build call reaches the
endpoint, which answers after `--latency-ms` (default 250, a stand-in for a real endpoint).

1. Build cost per pair for each system: wall seconds, LLM calls and tokens per public user-assistant pair.
2. Search, warm, the same `--queries` queries (default 200: item questions and user-turn texts of the sample,
   cycled over the profiles) for every system, k=5, query embedding included where the path embeds:
   the SDK's own search (Mem0 `Memory.search`, which runs on the graph store; Graphiti's hybrid search;
   A-MEM's Chroma search), the project's `memory_search` (the system's recipe over Memory nodes), and
   `memkb_search` (MEMKB on Mem0's memories); and how often the SDK's top 5 equals the project's.
   Goals: project/SDK p50 ratio <= 1.0; memkb_search p50 below
   Graphiti's SDK search p50.

    python bench/bench_memory.py [--systems mem0,graphiti,amem] [--queries 200] [--latency-ms 250]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from agents.history import load_public_history  # noqa: E402
from agents.llm.roles import LLMRoles  # noqa: E402
from agents.memory.pairs import history_pairs  # noqa: E402
from agents.memory.prepare import open_memory_system, prepare_memory  # noqa: E402
from agents.memory.rankers import sdk_rankers  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from bench.stats import percentile  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from query.recipes import RECIPES  # noqa: E402
from query.retriever import Retriever  # noqa: E402
from tests.fake_openai import FakeOpenAI, Reply  # noqa: E402
from tests.fake_openai.amem_script import AmemScript, is_amem_request  # noqa: E402
from tests.fake_openai.graphiti_script import GraphitiScript  # noqa: E402
from tests.fake_openai.mem0_script import Mem0Script  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"


def responder() -> Mem0Script:
    amem, graphiti = AmemScript(), GraphitiScript()

    def others(body: dict[str, Any]) -> Reply:
        return amem(body) if is_amem_request(body) else graphiti(body)

    return Mem0Script(fallback=others)


def queries(store: EventStore, profiles: list[str], n: int) -> list[tuple[str, str]]:
    """(profile, query): item questions and user-turn texts of each profile, cycled, `n` in all."""
    pools: dict[str, list[str]] = {}
    with store.driver.session(database=store.database) as session:
        for p in profiles:
            rows = session.run("MATCH (i:Item {profile_id: $p}) RETURN i.question AS q ORDER BY i.id", p=p)
            pools[p] = [r["q"] for r in rows]
            turns = load_public_history(store.driver, store.database, p)
            pools[p] += [t.text[:300] for t in turns if t.role == "user" and t.text.strip()]
    rng = random.Random(7)
    for pool in pools.values():
        rng.shuffle(pool)
    out = []
    for i in range(n):
        p = profiles[i % len(profiles)]
        pool = pools[p]
        out.append((p, pool[(i // len(profiles)) % len(pool)]))
    return out


def timed(fn: Any, work: list[tuple[str, str]]) -> list[float]:
    out = []
    for profile, q in work:
        t0 = time.perf_counter()
        fn(profile, q)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def line(name: str, ms: list[float]) -> str:
    return (
        f"{name:34} {len(ms):>4} {percentile(ms, 0.5):8.1f} {percentile(ms, 0.95):8.1f} {statistics.fmean(ms):8.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default="mem0,graphiti,amem")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=250.0)
    args = parser.parse_args()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    encoder = load_encoder()
    with (
        bench_neo4j() as (driver, _pid),
        tempfile.TemporaryDirectory(prefix="colabench-bench-memory-") as tmp,
        FakeOpenAI(responder(), latency_s=args.latency_ms / 1000) as fake,
    ):
        os.environ["COLABENCH_DATA_DIR"] = str(Path(tmp) / "data")
        # Graphiti opens its own (async) connection from the settings: point it at the bench's server.
        address = driver.get_server_info().address
        os.environ["NEO4J_URI"] = f"bolt://{address[0]}:{address[1]}"
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        write_events(store, load_input(SAMPLE))
        with driver.session() as session:
            profiles = [r["id"] for r in session.run("MATCH (p:Profile) RETURN p.id AS id ORDER BY id")]
        n_pairs = {p: len(history_pairs(load_public_history(driver, store.database, p))) for p in profiles}
        print(f"sample: {len(profiles)} profiles, {sum(n_pairs.values())} public pairs; endpoint latency "
              f"{args.latency_ms:.0f} ms; load average {os.getloadavg()[0]:.2f} (2 cores)")
        retriever = Retriever(driver, encoder, store.database)
        settings = {"base_url": fake.base_url, "model": "fake-model", "retry_base_s": 0.0, "timeout_s": 30.0}
        roles = LLMRoles(overrides={"memory": settings}, cache_mode="off")
        llm = roles.client("memory")

        print("\n== build cost per public pair (cache off, every call reaches the endpoint)")
        print(f"{'system':10} {'pairs':>6} {'memories':>9} {'s/pair':>8} {'calls/pair':>11} {'tok in/pair':>12} "
              f"{'tok out/pair':>13}")
        for system in systems:
            reports = [
                prepare_memory(system, store, retriever, p, llm=llm, links=system == "mem0") for p in profiles
            ]
            pairs = sum(r.pairs_built for r in reports) or 1
            seconds = sum(r.seconds for r in reports)
            mems = sum(r.memories_added for r in reports)
            calls = sum(r.llm_calls for r in reports)
            tin = sum(r.tokens_in for r in reports)
            tout = sum(r.tokens_out for r in reports)
            print(f"{system:10} {pairs:>6} {mems:>9} {seconds / pairs:8.2f} {calls / pairs:11.2f} "
                  f"{tin / pairs:12.0f} {tout / pairs:13.0f}")

        work = queries(store, profiles, args.queries)
        warm = work[:10]
        print(f"\n== search latency, k=5, warm, {len(work)} queries over {len(profiles)} profiles (ms)")
        print(f"{'path':34} {'n':>4} {'p50':>8} {'p95':>8} {'mean':>8}")
        # Every path runs on every query, interleaved, so load changes on the machine hit all paths alike.
        instances = {system: open_memory_system(system, store, retriever, llm) for system in systems}
        rankers = sdk_rankers(store, systems)  # GRAPHITI ranks with Graphiti's own search
        rankers.__enter__()
        paths: dict[str, Any] = {}
        for system, instance in instances.items():
            paths[f"{system}: SDK search"] = lambda p, q, i=instance: i.sdk_search(p, q, 5)
            recipes = [instance.search_recipe] + [n for n in RECIPES if n == f"{instance.search_recipe}_RRF"]
            for name in recipes:
                paths[f"{system}: memory_search ({name})"] = (
                    lambda p, q, r=name: retriever.search(r, q, profile_id=p, k=5)
                )
        if "mem0" in systems:
            paths["memkb_search (MEMKB on mem0)"] = lambda p, q: retriever.search("MEMKB", q, profile_id=p, k=5)
        times: dict[str, list[float]] = {name: [] for name in paths}
        try:
            # Parity: does the project's ranking give the SDK's own top 5 (the SDK may return fewer, e.g. Mem0's
            # 0.1 score threshold: then its list must be a prefix of ours)?
            print(f"\n== parity of the top 5 over the same {len(work)} queries (SDK search vs the project's ranking)")
            for system, instance in instances.items():
                for name in [instance.search_recipe] + [n for n in RECIPES if n == f"{instance.search_recipe}_RRF"]:
                    same = 0
                    for profile, q in work:
                        theirs = instance.sdk_search(profile, q, 5)
                        found = retriever.search_memories(name, q, profile_id=profile, k=5).memories
                        ours = [m.memory_id for m in found]
                        same += theirs == ours[: len(theirs)] and bool(theirs or not ours)
                    share = 100 * same / len(work)
                    print(f"  {system} ({name}): identical top 5 on {same}/{len(work)} queries ({share:.1f}%)")
            print()
            for fn in paths.values():
                timed(fn, warm)
            for item in work:
                for name, fn in paths.items():
                    times[name] += timed(fn, [item])
        finally:
            rankers.__exit__(None, None, None)
            for instance in instances.values():
                instance.close()
        for name, ms in times.items():
            print(line(name, ms))
        p50: dict[str, float] = {}
        for system, instance in instances.items():
            p50[f"{system} sdk"] = percentile(times[f"{system}: SDK search"], 0.5)
            p50[f"{system} ours"] = percentile(times[f"{system}: memory_search ({instance.search_recipe})"], 0.5)
        if "mem0" in systems:
            p50["memkb"] = percentile(times["memkb_search (MEMKB on mem0)"], 0.5)

        print("\n== goals")
        for system in systems:
            ratio = p50[f"{system} ours"] / p50[f"{system} sdk"]
            verdict = "meets" if ratio <= 1.0 else "misses"
            print(f"  {system}: project / SDK p50 = {ratio:.2f} (goal <= 1.00: {verdict})")
        if "memkb" in p50 and "graphiti sdk" in p50:
            verdict = "meets" if p50["memkb"] < p50["graphiti sdk"] else "misses"
            print(f"  memkb_search p50 {p50['memkb']:.1f} ms vs Graphiti SDK p50 {p50['graphiti sdk']:.1f} ms "
                  f"(goal: below: {verdict})")
        retriever.close()
        roles.close()


if __name__ == "__main__":
    main()
