"""Retrieval side by side with a peer: colabench's HYBRID and SEMANTIC recipes against neo4j-graphrag's
HybridRetriever and VectorRetriever (Neo4j's own GraphRAG package) on the same Neo4j, the same
`chunk_embedding` (vector) and `chunk_text` (full-text) indexes, the same ONNX query encoder and the same
MedQuAD questions of the shared health knowledge base (`../shared/data/kb`, see its SOURCE.md).

The peer is a benchmark-only extra (requirements-bench.lock): `make bench-peer` builds a venv layered on the
project's and runs this file. Without the package the benchmark says so and stops.

Accuracy: every question's relevant documents are the `doc_id`s of its QA pairs (identical question texts are
merged); a system's document ranking is colabench's document list (k=10) or the peer's chunk list (top_k
chunks) reduced to distinct documents in order. R@1, R@5, MRR@10 per system, and exact McNemar tests on
R@1 for each pair (colabench vs peer). Latency: the timed questions are new to every system (each system
embeds each query once, no cache is shared), the four systems run interleaved in a rotating order per
question, and p50 / p95 / mean are printed with the p50 ratio colabench / peer and the median of the
per-question ratios (the two timings of a question are moments apart, so that ratio is the sturdiest on a busy
machine). `--two-statements` adds colabench HYBRID with its channels as two statements fused in Python (the path
before the one-statement change, same hits) as a fifth system.

    python bench/bench_peer_retrieval.py [--subset all|sample|N] [--questions 2000] [--timed 200] [--peer-top-k 20]
                                         [--two-statements]

`--subset` ingests part of the knowledge base: `sample` = the 1,368 KB documents of the bundled sample (their
vectors are cached once the sample was ingested; the questions are those all of whose documents it holds), N =
the first N documents in sha256(doc_id) order plus every document a measured question needs.
The benchmark uses a throwaway Neo4j (or the server named by COLABENCH_BENCH_NEO4J_URI, which it wipes unless
`--keep-graph` is given: then a second run on that server skips the ingest).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.stats import mcnemar_exact, percentile  # noqa: E402

KB = REPO.parent / "shared" / "data" / "kb"
SAMPLE_DOCS = REPO / "samples" / "colabench-sample" / "documents.jsonl"
PAIRS = (("colabench HYBRID", "peer hybrid"), ("colabench SEMANTIC", "peer vector"))
TWO_STATEMENTS = "colabench HYBRID 2st"


def load_questions(n: int) -> list[tuple[str, frozenset[str]]]:
    """The first n distinct MedQuAD questions in sha256(qid) order, each with every document that answers it."""
    with gzip.open(KB / "qa.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    records.sort(key=lambda r: hashlib.sha256(r["qid"].encode()).hexdigest())
    relevant: dict[str, set[str]] = {}
    for r in records:
        relevant.setdefault(r["question"], set()).add(r["doc_id"])
    return [(q, frozenset(docs)) for q, docs in list(relevant.items())[:n]]


def sample_doc_ids() -> set[str]:
    """The knowledge-base documents the bundled sample carries (their vectors are in the embedding cache once
    the sample has been ingested, so this subset needs no embedding on a busy machine)."""
    with open(SAMPLE_DOCS, encoding="utf-8") as handle:
        return {json.loads(line)["doc_id"] for line in handle}


def kb_input(subset: str, needed: set[str], workdir: Path) -> tuple[Path, set[str] | None]:
    """The knowledge-base file to ingest and its document ids (None: the whole KB). `subset`: "all", "sample"
    (the sample's KB documents) or N (the first N documents in sha256(doc_id) order plus every one in `needed`)."""
    if subset == "all":
        return KB / "documents.jsonl.gz", None
    with gzip.open(KB / "documents.jsonl.gz", "rt", encoding="utf-8") as handle:
        lines = handle.readlines()
    if subset == "sample":
        wanted = sample_doc_ids()
        keep = [line for line in lines if json.loads(line)["doc_id"] in wanted]
    else:
        n_docs = int(subset)
        ranked = sorted(lines, key=lambda line: hashlib.sha256(json.loads(line)["doc_id"].encode()).hexdigest())
        keep = ranked[:n_docs] + [line for line in ranked[n_docs:] if json.loads(line)["doc_id"] in needed]
    path = workdir / "kb-subset.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(keep)
    return path, {json.loads(line)["doc_id"] for line in keep}


def scores(ranking: list[str], relevant: frozenset[str]) -> tuple[int, int, float]:
    hit1 = int(bool(ranking[:1]) and ranking[0] in relevant)
    hit5 = int(any(d in relevant for d in ranking[:5]))
    rr = next((1.0 / i for i, d in enumerate(ranking[:10], start=1) if d in relevant), 0.0)
    return hit1, hit5, rr


def distinct_docs(doc_ids: list[str]) -> list[str]:
    return list(dict.fromkeys(doc_ids))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--subset",
        default="all",
        help="documents to ingest: all, sample (the bundled sample's 1,368 KB documents; no embedding needed "
        "once the sample was ingested) or a number N (N hashed documents plus those the questions need)",
    )
    parser.add_argument("--questions", type=int, default=2000, help="questions scored for accuracy")
    parser.add_argument("--timed", type=int, default=200, help="questions timed (new to every system)")
    parser.add_argument("--peer-top-k", type=int, default=20, help="chunks the peer retrievers return")
    parser.add_argument(
        "--keep-graph",
        action="store_true",
        help="with COLABENCH_BENCH_NEO4J_URI: do not wipe that server; documents an earlier run ingested are "
        "skipped, so repeated runs need no ingest (the server must hold nothing but the knowledge base)",
    )
    parser.add_argument(
        "--two-statements",
        action="store_true",
        help="also time colabench HYBRID with its two channels as separate statements fused in Python (the path "
        "before the one-statement change; same hits), to show what that change buys on this machine",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from neo4j_graphrag.embeddings.base import Embedder
        from neo4j_graphrag.retrievers import HybridRetriever, VectorRetriever
        from neo4j_graphrag.types import RetrieverResultItem
    except ImportError:
        # `make bench` runs every benchmark with the project venv, which does not hold the peer.
        print(
            "SKIPPED: neo4j-graphrag is not installed in this interpreter; run `make bench-peer` (it builds the "
            "benchmark venv from requirements-bench.lock, layered on the project's)"
        )
        return
    import neo4j_graphrag

    from bench.neo4j_for_bench import bench_neo4j
    from graph.cypher_files import load_cypher
    from graph.embeddings import load_encoder
    from graph.store import EventStore
    from ingest.pipeline import load_input, write_events
    from query.query_vectors import QueryEmbedder
    from query.retriever import Retriever

    if not (KB / "qa.jsonl.gz").is_file():
        sys.exit(f"the shared knowledge base is missing: {KB}")
    if args.subset not in ("all", "sample") and not args.subset.isdigit():
        sys.exit(f"--subset must be all, sample or a number of documents, got {args.subset!r}")
    wanted = args.questions + args.timed
    questions = load_questions(wanted)
    if args.subset == "sample":
        # Only questions every relevant document of which the subset holds.
        inside = sample_doc_ids()
        questions = [(q, docs) for q, docs in load_questions(10**6) if docs <= inside][:wanted]
    n_scored = max(0, len(questions) - args.timed)
    scored, timed = questions[:n_scored], questions[n_scored:]
    needed = {d for _, docs in questions for d in docs}
    encoder = load_encoder()

    class SameEncoder(Embedder):  # type: ignore[misc]
        """The peer's embedder: colabench's query encoder (single-threaded ONNX twin), without a cache."""

        def __init__(self) -> None:
            super().__init__()
            self.raw = QueryEmbedder(encoder, size=1)._raw

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in self.raw.encode([text])[0]]

    with (
        tempfile.TemporaryDirectory(prefix="colabench-peer-") as tmp,
        bench_neo4j(keep=args.keep_graph) as (driver, _pid),
    ):
        path, doc_ids = kb_input(args.subset, needed, Path(tmp))
        n_docs = 6256 if doc_ids is None else len(doc_ids)
        store = EventStore(driver, "neo4j", encoder)
        store.ensure_schema()
        print(f"ingesting {n_docs:,} knowledge-base documents ({path.name}) ...", flush=True)
        t0 = time.perf_counter()
        write_events(store, load_input(path, "kb"))
        with driver.session() as session:
            counted = session.run(load_cypher("query/count_chunks")).single()
        n_chunks = int(counted["n"]) if counted else 0
        print(f"ingested in {time.perf_counter() - t0:.0f} s: {n_chunks:,} chunks", flush=True)

        def colabench(recipe: str, one_statement: bool = True) -> Callable[[str], list[str]]:
            retriever = Retriever(driver, encoder, one_statement=one_statement)
            return lambda q: [h.doc_id for h in retriever.search(recipe, q, k=10).documents]

        def as_item(record: Any) -> Any:
            return RetrieverResultItem(content=record["node"]["doc_id"], metadata={"score": record["score"]})

        def peer(kind: str) -> Callable[[str], list[str]]:
            embedder = SameEncoder()
            # The same content a colabench hit carries: document id, snippet text and its line range.
            props = ["doc_id", "text", "start_line", "end_line"]
            shared = {"return_properties": props, "result_formatter": as_item}
            if kind == "hybrid":
                retriever: Any = HybridRetriever(driver, "chunk_embedding", "chunk_text", embedder, **shared)
            else:
                retriever = VectorRetriever(driver, "chunk_embedding", embedder, **shared)

            def run(q: str) -> list[str]:
                found = retriever.search(query_text=q, top_k=args.peer_top_k)
                return distinct_docs([str(item.content) for item in found.items])

            return run

        def systems() -> dict[str, Callable[[str], list[str]]]:
            made = {
                "colabench HYBRID": colabench("HYBRID"),
                "peer hybrid": peer("hybrid"),
                "colabench SEMANTIC": colabench("SEMANTIC"),
                "peer vector": peer("vector"),
            }
            if args.two_statements:
                made[TWO_STATEMENTS] = colabench("HYBRID", one_statement=False)
            return made

        names = list(systems())
        failures: dict[str, int] = dict.fromkeys(names, 0)

        def attempt(fn: Callable[[str], list[str]], name: str, q: str) -> list[str]:
            try:
                return fn(q)
            except Exception as exc:  # the peer passes raw text to Lucene; a parse error is a failed query
                failures[name] += 1
                if failures[name] <= 3:
                    print(f"  {name} failed on {q[:60]!r}: {type(exc).__name__}: {str(exc)[:120]}", flush=True)
                return []

        # Accuracy.
        run = systems()
        for fn in run.values():
            fn("warm-up query about blood pressure")
        hits: dict[str, list[tuple[int, int, float]]] = {name: [] for name in names}
        for i, (q, relevant) in enumerate(scored, start=1):
            for name, fn in run.items():
                hits[name].append(scores(attempt(fn, name, q), relevant))
            if i % 250 == 0:
                print(f"  scored {i}/{len(scored)} questions", flush=True)

        # Latency: fresh systems (empty query caches), interleaved in a rotating order.
        run = systems()
        for name, fn in run.items():
            for q, _ in questions[:5]:
                attempt(fn, name, q)
        times: dict[str, list[float]] = {name: [] for name in names}
        load_before = os.getloadavg()
        for i, (q, _) in enumerate(timed):
            order = names[i % len(names) :] + names[: i % len(names)]
            for name in order:
                t = time.perf_counter()
                attempt(run[name], name, q)
                times[name].append((time.perf_counter() - t) * 1000)
        load = os.getloadavg()

    print(
        f"\n== colabench vs neo4j-graphrag {neo4j_graphrag.__version__} (peer top_k {args.peer_top_k} chunks), "
        f"{n_docs:,} documents / {n_chunks:,} chunks, {len(scored)} questions scored, {len(timed)} timed"
    )
    print(
        f"load average (1, 5, 15 min) {' '.join(f'{x:.2f}' for x in load_before)} before the timed questions, "
        f"{' '.join(f'{x:.2f}' for x in load)} after ({os.cpu_count()} cores)"
    )
    print(f"{'system':20} {'p50 ms':>7} {'p95 ms':>7} {'mean ms':>8} {'R@1':>6} {'R@5':>6} {'MRR@10':>7} {'failed':>6}")
    for name in names:
        h = hits[name]
        ms = times[name]
        print(
            f"{name:20} {percentile(ms, 0.5):7.1f} {percentile(ms, 0.95):7.1f} {statistics.fmean(ms):8.1f} "
            f"{statistics.fmean(x[0] for x in h):6.3f} {statistics.fmean(x[1] for x in h):6.3f} "
            f"{statistics.fmean(x[2] for x in h):7.3f} {failures[name]:>6}"
        )
    pairs = [*PAIRS, (TWO_STATEMENTS, "peer hybrid"), ("colabench HYBRID", TWO_STATEMENTS)]
    for ours, theirs in pairs:
        if ours not in times or theirs not in times:
            continue
        b = sum(1 for x, y in zip(hits[ours], hits[theirs], strict=True) if x[0] and not y[0])
        c = sum(1 for x, y in zip(hits[ours], hits[theirs], strict=True) if y[0] and not x[0])
        ratio = percentile(times[ours], 0.5) / percentile(times[theirs], 0.5)
        # The same question's two timings are taken moments apart: their ratio is the sturdiest under load.
        paired = statistics.median(x / y for x, y in zip(times[ours], times[theirs], strict=True))
        print(
            f"{ours} vs {theirs}: p50 ratio {ratio:.2f}, median paired ratio {paired:.2f}; R@1 McNemar: {b} won, "
            f"{c} lost, p = {mcnemar_exact(b, c):.2g}"
        )


if __name__ == "__main__":
    main()
