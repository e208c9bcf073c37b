"""Benchmark retrieval over the full shared knowledge base (6,256 documents) and print the figures.

Uses the configured Neo4j (NEO4J_URI, or the local server on COLABENCH_NEO4J_PORT); ingests the knowledge base
(`../shared/data/kb/documents.jsonl.gz`) and the bundled sample if they are missing (the first KB ingest embeds
~30k chunks: minutes on 2 cores; later runs read the embedding cache), and builds raw-turn cards and links for
the sample's profiles. Every measured query is new to the retriever, so query embedding is included.

Figures: p50 / p95 / mean latency of KEYWORD, SEMANTIC, HYBRID and MEMKB (memkb_search) searches, k=5; the mean
time of each stage; keyword-channel throughput (Lucene over the KB, one and four clients) and rank-bm25
throughput over per-profile memory cards; exact cosine scan versus the vector index by corpus size (the
crossover); memory use.

    python bench/bench_retrieval.py [--queries 200] [--no-ingest] [--skip-crossover]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.stats import percentile  # noqa: E402

KB = REPO.parent / "shared" / "data" / "kb"
SAMPLE = REPO / "samples" / "colabench-sample"
TARGETS = {"MEMKB p50": 20.0, "MEMKB p95": 50.0, "HYBRID p50": 15.0}



def load_questions(n: int, skip: int = 0) -> list[str]:
    with gzip.open(KB / "qa.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    records.sort(key=lambda r: hashlib.sha256(r["qid"].encode()).hexdigest())
    seen: dict[str, None] = {}
    for r in records:
        seen.setdefault(r["question"], None)
    return list(seen)[skip : skip + n]


def ensure_data(store, ingest: bool) -> None:  # type: ignore[no-untyped-def]
    from graph.cypher_files import load_cypher
    from ingest.pipeline import load_input, write_events

    with store.driver.session(database=store.database) as session:
        n_docs = session.run(load_cypher("query/bench/medquad_documents")).single()["n"]
    if n_docs < 5000:
        if not ingest:
            sys.exit(
                "the knowledge base is not in this graph; run without --no-ingest or `./colabench ingest "
                "../shared/data/kb/documents.jsonl.gz`"
            )
        print("ingesting the knowledge base (first time: embeds ~30k chunks) ...", flush=True)
        write_events(store, load_input(KB / "documents.jsonl.gz", "kb"))
    write_events(store, load_input(SAMPLE, "bundle"))


def time_searches(retriever, recipe: str, queries: list[tuple[str, str | None]]) -> dict[str, object]:  # type: ignore[no-untyped-def]
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    for text, profile in queries:
        started = time.perf_counter()
        result = retriever.search(recipe, text, profile_id=profile, k=5)
        totals.append((time.perf_counter() - started) * 1000)
        for stage, ms in result.timings_ms.items():
            if stage != "total":
                stages.setdefault(stage, []).append(ms)
    return {
        "p50": percentile(totals, 0.5),
        "p95": percentile(totals, 0.95),
        "mean": statistics.fmean(totals),
        "stages": {name: statistics.fmean(v) for name, v in stages.items()},
        "n": len(totals),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200, help="measured queries per recipe")
    parser.add_argument("--no-ingest", action="store_true", help="fail instead of ingesting missing data")
    parser.add_argument("--skip-crossover", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import numpy as np

    from agents.memory.cards import build_document_links, build_raw_turn_cards
    from graph.connection import open_driver
    from graph.cypher_files import load_cypher
    from graph.embeddings import load_encoder
    from graph.server import LocalNeo4jServer
    from graph.settings import Neo4jSettings
    from graph.store import EventStore
    from query.bm25 import BM25Index
    from query.corpus import Corpus
    from query.knowledge import KnowledgeChannels
    from query.lucene import build_lucene_query
    from query.retriever import Retriever

    settings = Neo4jSettings()
    driver = open_driver(settings)
    encoder = load_encoder()
    store = EventStore(driver, settings.database, encoder)
    store.ensure_schema()
    ensure_data(store, not args.no_ingest)
    with driver.session(database=settings.database) as session:
        profiles = [r["id"] for r in session.run(load_cypher("query/bench/dataset_profiles"), dataset="sample")]
        size = session.run(load_cypher("query/count_chunks")).single()
        n_docs, n_chunks = int(size["n_docs"]), int(size["n"])
    setup = Retriever(driver, encoder, settings.database)
    build_raw_turn_cards(store, profile_ids=profiles)
    build_document_links(store, setup, profile_ids=profiles)
    setup.close()
    print(
        f"graph: {n_docs:,} documents, {n_chunks:,} chunks; memkb profiles {profiles}; server {settings.effective_uri}"
    )
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores; other work on the machine inflates latencies)")
    from query.keyword_analyzers import DEFAULT_ANALYZER, describe_keyword_channel

    print("\n".join(describe_keyword_channel([DEFAULT_ANALYZER], driver, settings.database)))

    n = args.queries
    pools = {
        name: load_questions(n + 20, skip=i * (n + 20))
        for i, name in enumerate(("KEYWORD", "SEMANTIC", "HYBRID", "MEMKB_RAW_TURNS"))
    }
    results = {}
    for recipe, questions in pools.items():
        retriever = Retriever(driver, encoder, settings.database)
        profile_of = (lambda i: profiles[i % len(profiles)]) if recipe == "MEMKB_RAW_TURNS" else (lambda i: None)
        warm = [(q, profile_of(i)) for i, q in enumerate(questions[:20])]
        time_searches(retriever, recipe, warm)
        measured = [(q, profile_of(i)) for i, q in enumerate(questions[20:])]
        results[recipe] = time_searches(retriever, recipe, measured)
        retriever.close()

    print("\n== search latency, k=5, warm, query embedding included (ms)")
    print(
        f"{'recipe':16} {'n':>4} {'p50':>7} {'p95':>7} {'mean':>7}   mean ms per stage "
        "(stages overlap: keyword and states run beside the embedding)"
    )
    for recipe, r in results.items():
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items())  # type: ignore[union-attr]
        print(f"{recipe:16} {r['n']:>4} {r['p50']:7.1f} {r['p95']:7.1f} {r['mean']:7.1f}   {stages}")
    checks = {
        "MEMKB p50": results["MEMKB_RAW_TURNS"]["p50"],
        "MEMKB p95": results["MEMKB_RAW_TURNS"]["p95"],
        "HYBRID p50": results["HYBRID"]["p50"],
    }
    for name, value in checks.items():
        verdict = "meets" if value <= TARGETS[name] else "misses"  # type: ignore[operator]
        print(f"  target {name} <= {TARGETS[name]:.0f} ms: {value:.1f} ms ({verdict})")

    # Stage shares of the critical path for HYBRID and MEMKB.
    print("\n== share of each stage in the summed stage time")
    for recipe in ("HYBRID", "MEMKB_RAW_TURNS"):
        stages = results[recipe]["stages"]
        total = sum(stages.values())  # type: ignore[union-attr]
        print(f"{recipe:8} " + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in stages.items()))  # type: ignore[union-attr]

    # Keyword channel throughput.
    retriever = Retriever(driver, encoder, settings.database)
    lucenes = [q for q in (build_lucene_query(t) for t in load_questions(300, skip=2000)) if q]
    everything = Corpus()
    retriever.knowledge.keyword(lucenes[0], everything, 50, 100)
    started = time.perf_counter()
    for q in lucenes:
        retriever.knowledge.keyword(q, everything, 50, 100)
    sequential = len(lucenes) / (time.perf_counter() - started)
    with ThreadPoolExecutor(max_workers=4) as pool:
        started = time.perf_counter()
        list(pool.map(lambda q: retriever.knowledge.keyword(q, everything, 50, 100), lucenes))
        parallel = len(lucenes) / (time.perf_counter() - started)
    with driver.session(database=settings.database) as session:
        started = time.perf_counter()
        for q in lucenes:
            list(session.run(load_cypher("query/bench/bare_fulltext"), lucene=q, limit=100))
        bare = len(lucenes) / (time.perf_counter() - started)
    print("\n== keyword (BM25) channel throughput")
    print(
        "KB keyword channel (Lucene, top 100 chunks -> 50 documents with snippets): "
        f"{sequential:.0f} q/s one client, {parallel:.0f} q/s four clients"
    )
    print(f"bare Lucene query (ids and scores of 100 chunks): {bare:.0f} q/s one client")
    texts = load_questions(400, skip=2400)
    for label, size in (("sample profile", None), ("250-card profile", 250), ("1,000-card profile", 1000)):
        if size is None:
            with driver.session(database=settings.database) as session:
                rows = session.run(load_cypher("query/bench/profile_memory_texts"), profile_id=profiles[0])
                cards = [r["text"] for r in rows]
        else:
            with gzip.open(KB / "qa.jsonl.gz", "rt", encoding="utf-8") as handle:
                cards = [json.loads(line)["answer"][:400] for _, line in zip(range(size), handle, strict=False)]
        index = BM25Index([str(i) for i in range(len(cards))], cards)
        started = time.perf_counter()
        for t in texts:
            index.rank(t)
        print(
            f"memory keyword channel (rank-bm25, cached index) over a {label} ({len(cards)} cards): "
            f"{len(texts) / (time.perf_counter() - started):.0f} q/s"
        )
    retriever.close()

    if not args.skip_crossover:
        print("\n== exact cosine scan versus the vector index, by corpus size (ms, p50 of 30 queries)")
        vectors = [encoder.encoder.encode([q])[0].tolist() for q in load_questions(30, skip=3000)]  # type: ignore[attr-defined]
        with driver.session(database=settings.database) as session:
            docs = [(r["id"], r["n"]) for r in session.run(load_cypher("query/bench/chunked_documents"))]
        docs.sort(key=lambda d: hashlib.sha256(d[0].encode()).hexdigest())
        print(f"{'chunks':>8} {'exact':>8} {'index (filtered)':>17} {'index (whole KB)':>17}")
        knowledge = KnowledgeChannels(driver, settings.database, exact_max_chunks=0)
        crossover = None
        for target in (100, 300, 1000, 3000, 10000, n_chunks):
            subset, count = [], 0
            for doc_id, c in docs:
                if count >= target:
                    break
                subset.append(doc_id)
                count += c
            exact_ms, index_ms, whole_ms = [], [], []
            corpus = Corpus(doc_ids=tuple(subset))
            with driver.session(database=settings.database) as session:
                for v in vectors:
                    t = time.perf_counter()
                    list(session.run(load_cypher("query/semantic_chunks_exact"), vector=v, doc_ids=subset, depth=50))
                    exact_ms.append((time.perf_counter() - t) * 1000)
            for v in vectors:
                t = time.perf_counter()
                knowledge.semantic(np.asarray(v, dtype=np.float32), corpus, 50, 100)
                index_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                knowledge.semantic(np.asarray(v, dtype=np.float32), Corpus(), 50, 100)
                whole_ms.append((time.perf_counter() - t) * 1000)
            e, i, w = percentile(exact_ms, 0.5), percentile(index_ms, 0.5), percentile(whole_ms, 0.5)
            if crossover is None and e > i:
                crossover = count
            print(f"{count:>8,} {e:8.1f} {i:17.1f} {w:17.1f}")
        print(
            f"exact scan stops beating the index at about {crossover:,} chunks"
            if crossover
            else "exact scan beat the index at every size measured"
        )

    print("\n== memory cards: exact cosine over one profile (Cypher) vs the shared memory index, post-filtered")
    with driver.session(database=settings.database) as session:
        largest = [dict(r) for r in session.run(load_cypher("query/bench/largest_profiles"), system="raw_turns")]
        n_memories = session.run(load_cypher("query/bench/count_memories")).single()["n"]
    probe = Retriever(driver, encoder, settings.database)
    questions = load_questions(30, skip=3100)
    print(f"{n_memories:,} live cards in the graph")
    print(f"{'dataset':>16} {'cards':>6} {'exact p50':>10} {'index p50':>10} {'index recall of exact top 10':>30}")
    for row in largest:
        exact_ms, index_ms, recalls = [], [], []
        for q in questions:
            vector = probe.query_embedder.embed(q)
            t = time.perf_counter()
            cards = probe.memory.cards(row["profile_id"], "raw_turns", vector, None)
            exact_ms.append((time.perf_counter() - t) * 1000)
            top = {c.memory_id for c in sorted(cards, key=lambda c: -(c.cosine or 0.0))[:10]}
            t = time.perf_counter()
            with driver.session(database=settings.database) as session:
                found = [
                    r["memory_id"]
                    for r in session.run(
                        load_cypher("query/bench/memory_index"),
                        vector=vector.tolist(),
                        limit=200,
                        profile_id=row["profile_id"],
                        system="raw_turns",
                    )
                ]
            index_ms.append((time.perf_counter() - t) * 1000)
            recalls.append(len(top & set(found[:10])) / max(1, len(top)))
        print(
            f"{row['dataset']:>16} {row['n']:>6} {percentile(exact_ms, 0.5):>10.1f} "
            f"{percentile(index_ms, 0.5):>10.1f} {statistics.fmean(recalls):>30.2f}"
        )
    probe.close()

    usage = resource.getrusage(resource.RUSAGE_SELF)
    print("\n== memory")
    print(f"benchmark process peak RSS: {usage.ru_maxrss / 1024:.0f} MiB (encoder, driver, caches)")
    status = LocalNeo4jServer(settings).status() if not settings.is_external else None
    if status and status.pid:
        rss = next(
            (
                line.split()[1]
                for line in Path(f"/proc/{status.pid}/status").read_text().splitlines()
                if line.startswith("VmRSS")
            ),
            None,
        )
        if rss:
            print(
                f"Neo4j server RSS: {int(rss) / 1024:.0f} MiB "
                f"(heap {settings.heap}, page cache {settings.pagecache_mib} MiB)"
            )
    print(f"chunk vectors: {n_chunks:,} x {encoder.dim} float32 = {n_chunks * encoder.dim * 4 / 2**20:.0f} MiB")
    driver.close()


if __name__ == "__main__":
    main()
