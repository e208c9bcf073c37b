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
   `memkb_search` (MEMKB on Mem0's memories); and how often the SDK's top 5 equals the project's (for
   `memkb_search`: its memories against Mem0's search, which ranks the same memories). Every path runs on
   every query, in an order that rotates per query.
3. Accuracy on the sample's item questions (gold: the turns their requirements are stated in): R@1, R@5 and
   MRR@5 of each path's top 5 memories (a memory is relevant when it is DERIVED_FROM a gold turn), and exact
   McNemar tests on R@1 of `memkb_search` against each SDK search.
   Goals: project/SDK p50 ratio <= 1.0; memkb_search p50 below Graphiti's and Mem0's SDK search p50.

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
from bench.stats import mcnemar_exact, percentile  # noqa: E402
from graph.cypher_files import load_cypher  # noqa: E402
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
MEMKB_PATH = "memkb_search (MEMKB on mem0)"


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


def gold_items(store: EventStore, profiles: list[str]) -> list[tuple[str, str, frozenset[str]]]:
    """(profile, question, gold turn ids) of the profiles' items whose requirements name the turns they are
    stated in (the evaluator's gold, query/eval_items)."""
    with store.driver.session(database=store.database) as session:
        ids = [r["id"] for r in session.run(load_cypher("query/bench/profile_items"), profile_ids=profiles)]
        rows = list(session.run(load_cypher("query/eval_items"), item_ids=ids))
    return [
        (r["profile_id"], r["question"], frozenset(t["turn_id"] for t in r["turns"])) for r in rows if r["turns"]
    ]


def source_turns(store: EventStore, memory_ids: list[str], known: dict[str, frozenset[str]]) -> None:
    """Fill `known` with the DERIVED_FROM turns of the memories not in it yet."""
    wanted = [m for m in dict.fromkeys(memory_ids) if m not in known]
    if not wanted:
        return
    with store.driver.session(database=store.database) as session:
        for r in session.run(load_cypher("query/memory_sources"), memory_ids=wanted):
            known[r["memory_id"]] = frozenset(r["turn_ids"])


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
        # Every path returns its top 5 memory ids (timed with the conversion, which is negligible).
        for system, instance in instances.items():
            paths[f"{system}: SDK search"] = lambda p, q, i=instance: i.sdk_search(p, q, 5)
            recipes = [instance.search_recipe] + [n for n in RECIPES if n == f"{instance.search_recipe}_RRF"]
            for name in recipes:
                paths[f"{system}: memory_search ({name})"] = lambda p, q, r=name: [
                    m.memory_id for m in retriever.search(r, q, profile_id=p, k=5).memories
                ]
        # memkb_search's stage timings (its own timings_ms), to show where its time goes.
        memkb_stages: dict[str, list[float]] = {}

        def memkb_ids(profile: str, q: str) -> list[str]:
            found = retriever.search("MEMKB", q, profile_id=profile, k=5)
            for stage, ms in found.timings_ms.items():
                memkb_stages.setdefault(stage, []).append(ms)
            return [m.memory_id for m in found.memories]

        if "mem0" in systems:
            paths[MEMKB_PATH] = memkb_ids
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
            if "mem0" in instances:
                # memkb_search ranks Mem0's memories by cosine, as Mem0's search does: the same memories.
                same = 0
                for profile, q in work:
                    theirs = instances["mem0"].sdk_search(profile, q, 5)
                    ours = paths[MEMKB_PATH](profile, q)
                    same += theirs == ours[: len(theirs)] and bool(theirs or not ours)
                print(f"  memkb_search memories vs Mem0 search: identical top 5 on {same}/{len(work)} queries "
                      f"({100 * same / len(work):.1f}%)")
            print()
            for fn in paths.values():
                timed(fn, warm)
            names = list(paths)
            for j, item in enumerate(work):
                # A rotating order, so no path always runs first (or right after another) on a busy machine.
                for name in names[j % len(names) :] + names[: j % len(names)]:
                    times[name] += timed(paths[name], [item])
            items = gold_items(store, profiles)
            known: dict[str, frozenset[str]] = {}
            accuracy: dict[str, list[tuple[int, int, float]]] = {name: [] for name in paths}
            for profile, q, gold in items:
                for name, fn in paths.items():
                    ranked = fn(profile, q)
                    source_turns(store, ranked, known)
                    relevant = [bool(known.get(m, frozenset()) & gold) for m in ranked[:5]]
                    rr = next((1.0 / i for i, hit in enumerate(relevant, start=1) if hit), 0.0)
                    accuracy[name].append((int(relevant[:1] == [True]), int(any(relevant)), rr))
        finally:
            rankers.__exit__(None, None, None)
            for instance in instances.values():
                instance.close()
        for name, ms in times.items():
            print(line(name, ms))
        if memkb_stages:
            # Stages on worker threads overlap; "total" is the search's wall time.
            stages = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in memkb_stages.items())
            print(f"  memkb_search stage medians (ms, every call above): {stages}")
        print(f"\n== accuracy on {len(items)} item questions (gold: the turns their requirements are stated in; "
              "a memory counts when DERIVED_FROM one)")
        print(f"{'path':34} {'R@1':>6} {'R@5':>6} {'MRR@5':>6}")
        for name, rows in accuracy.items():
            if rows:
                r1, r5, mrr = (statistics.fmean(r[i] for r in rows) for i in range(3))
                print(f"{name:34} {r1:6.3f} {r5:6.3f} {mrr:6.3f}")
        if MEMKB_PATH in accuracy:
            memkb_rows = accuracy[MEMKB_PATH]
            for system in systems:
                theirs = accuracy[f"{system}: SDK search"]
                b = sum(1 for x, y in zip(memkb_rows, theirs, strict=True) if x[0] and not y[0])
                c = sum(1 for x, y in zip(memkb_rows, theirs, strict=True) if y[0] and not x[0])
                print(f"  memkb_search vs {system} SDK search, R@1 McNemar: {b} won, {c} lost, "
                      f"p = {mcnemar_exact(b, c):.2g}")
        p50: dict[str, float] = {}
        for system, instance in instances.items():
            p50[f"{system} sdk"] = percentile(times[f"{system}: SDK search"], 0.5)
            p50[f"{system} ours"] = percentile(times[f"{system}: memory_search ({instance.search_recipe})"], 0.5)
        if "mem0" in systems:
            p50["memkb"] = percentile(times[MEMKB_PATH], 0.5)

        print("\n== goals")
        for system in systems:
            ratio = p50[f"{system} ours"] / p50[f"{system} sdk"]
            verdict = "meets" if ratio <= 1.0 else "misses"
            print(f"  {system}: project / SDK p50 = {ratio:.2f} (goal <= 1.00: {verdict})")
        for system, label in (("graphiti", "Graphiti"), ("mem0", "Mem0")):
            if "memkb" in p50 and f"{system} sdk" in p50:
                theirs = p50[f"{system} sdk"]
                verdict = "meets" if p50["memkb"] < theirs else "misses"
                print(f"  memkb_search p50 {p50['memkb']:.1f} ms vs {label} SDK p50 {theirs:.1f} ms, ratio "
                      f"{p50['memkb'] / theirs:.2f} (goal: below: {verdict})")
        print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
        retriever.close()
        roles.close()


if __name__ == "__main__":
    main()
