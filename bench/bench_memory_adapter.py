"""The memory adapter protocol's cost (prints figures): build seconds per pair of `http:ref` (the reference
adapter over HTTP on loopback), and search latency of the same keyword memory three ways, warm, k=5: in process
(`KeywordMemory.search`, no HTTP), the adapter's search over HTTP (`sdk_search`: one POST /v1/search plus
validation), and `memory_search` with recipe `HTTP:REF` (the adapter's ranking, then the cards read from the
graph). The difference between the first two is the protocol's overhead per search.

Setup: a throwaway Neo4j (bench/neo4j_for_bench.py) holding the bundled sample (3 profiles); the reference
adapter (agents/memory/adapter_server) on a thread of this process; queries = the sample's user-turn texts,
cycled over the profiles, the three paths interleaved in a rotating order.

    python bench/bench_memory_adapter.py [--queries 200]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from agents.history import load_public_history  # noqa: E402
from agents.memory.adapter_server import KeywordMemory, create_app, serve_in_thread  # noqa: E402
from agents.memory.prepare import open_memory_system, prepare_memory  # noqa: E402
from agents.memory.rankers import sdk_rankers  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from bench.stats import percentile  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from query.retriever import Retriever  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    encoder = load_encoder()
    memory = KeywordMemory()
    with (
        bench_neo4j() as (driver, _pid),
        tempfile.TemporaryDirectory(prefix="colabench-bench-adapter-") as tmp,
        serve_in_thread(create_app(memory)) as url,
    ):
        os.environ["COLABENCH_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["COLABENCH_MEMORY_ADAPTER_REF_URL"] = url
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        write_events(store, load_input(SAMPLE))
        with driver.session() as session:
            profiles = [r["id"] for r in session.run("MATCH (p:Profile) RETURN p.id AS id ORDER BY id")]
        retriever = Retriever(driver, encoder, store.database)
        print(f"sample: {len(profiles)} profiles; load average {os.getloadavg()[0]:.2f} (2 cores)")

        pairs = memories = 0
        started = time.perf_counter()
        for profile in profiles:
            report = prepare_memory("http:ref", store, retriever, profile)
            pairs += report.pairs_built
            memories += report.memories_added
        seconds = time.perf_counter() - started
        per_pair = 1000 * seconds / max(pairs, 1)
        print(f"\n== build: {pairs} pairs, {memories} memories, {seconds:.2f} s, {per_pair:.1f} ms per pair "
              "(one POST /v1/add each, writes and step in one transaction)")

        queries: list[tuple[str, str]] = []
        for profile in profiles:
            turns = load_public_history(driver, store.database, profile)
            queries += [(profile, t.text) for t in turns if t.role == "user" and t.text.strip()]
        chosen = [queries[i % len(queries)] for i in range(args.queries)]
        system = open_memory_system("http:ref", store)
        times: dict[str, list[float]] = {"in process (KeywordMemory.search)": [], "adapter over HTTP (sdk_search)": [],
                                         "memory_search HTTP:REF": []}
        same = 0
        with sdk_rankers(store, ["http:ref"]):
            paths = {
                "in process (KeywordMemory.search)": lambda p, q: [m.id for m in memory.search(p, q, 5)],
                "adapter over HTTP (sdk_search)": lambda p, q: system.sdk_search(p, q, 5),
                "memory_search HTTP:REF": lambda p, q: [
                    h.memory_id for h in retriever.search_memories("HTTP:REF", q, profile_id=p, k=5).memories
                ],
            }
            for profile, query in chosen:  # warm-up: every path once per query
                ours, theirs = paths["memory_search HTTP:REF"](profile, query), system.sdk_search(profile, query, 5)
                same += ours == theirs
            names = list(paths)
            for i, (profile, query) in enumerate(chosen):
                for name in names[i % 3 :] + names[: i % 3]:
                    t0 = time.perf_counter()
                    paths[name](profile, query)
                    times[name].append(1000 * (time.perf_counter() - t0))
        system.close()
        retriever.close()
        print(f"\n== search, warm, k=5, {len(chosen)} queries (memory_search top 5 = adapter's: {same}/{len(chosen)})")
        print(f"{'path':<38} {'p50 ms':>8} {'p95 ms':>8}")
        for name, values in times.items():
            print(f"{name:<38} {percentile(values, 0.5):>8.2f} {percentile(values, 0.95):>8.2f}")


if __name__ == "__main__":
    main()
