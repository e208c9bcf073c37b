"""Why knowledge-base keyword lists come back shorter than the channel depth: few matching documents, or the
keyword channel's read of `chunks` (100) index hits, which a document's several matching chunks can fill with
fewer than `depth` (50) documents. On the KB sample of bench_keyword_channel (the first documents with QA by
sha256 of their id, and a stable subset of their questions), for each question and analyzer (english, plain):
the documents with a chunk matching any query term in the whole full-text index, the documents the 100-chunk
read gives, and the chunks needed to reach the depth; then recall of HYBRID and KEYWORD (both analyzers) with
the keyword read deepened until the depth is filled (query.knowledge, `fill_keyword`) and without (one read),
paired (exact McNemar on recall_any@10), with the short keyword lists and the search times of each.

    python bench/bench_kb_keyword_depth.py [--kb-docs 1000] [--kb-limit 500] [--no-eval] [--timing-rounds N]
        [--out test-artifacts/kb_keyword_depth]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_keyword_channel import KB, KS, METRICS, kb_sample  # noqa: E402

ANALYZER_NAMES = ("english", "plain")


def depth_counts(driver: Any, items: list[Any], depth: int, chunks: int) -> dict[str, Any]:
    """Per analyzer: for each question, (documents matching in the whole index, documents of the `chunks`
    read, chunks needed to reach `depth` documents or None)."""
    from graph.cypher_files import load_cypher
    from query.keyword_analyzers import get_analyzer
    from query.lucene import build_lucene_query

    with driver.session() as session:
        total = int(session.run(load_cypher("query/count_chunks")).single()["n"])
        out: dict[str, Any] = {}
        for name in ANALYZER_NAMES:
            analyzer = get_analyzer(name)
            per_item = []
            for item in items:
                lucene = build_lucene_query(item.question, None, analyzer.lucene_terms)
                if lucene is None:
                    per_item.append({"item_id": item.item_id, "matching": 0, "read": 0, "to_fill": None})
                    continue
                query = load_cypher("query/bench/fulltext_doc_ids")
                params = {"index": analyzer.fulltext_index, "lucene": lucene}
                every = [r["doc_id"] for r in session.run(query, limit=total, **params)]
                read = [r["doc_id"] for r in session.run(query, limit=chunks, **params)]
                seen: set[str] = set()
                to_fill = None
                for position, doc_id in enumerate(every, start=1):
                    seen.add(doc_id)
                    if len(seen) == depth:
                        to_fill = position
                        break
                per_item.append(
                    {"item_id": item.item_id, "matching": len(set(every)), "read": len(set(read)), "to_fill": to_fill}
                )
            out[name] = per_item
    return {"total_chunks": total, "per_item": out}


def count_lines(counts: dict[str, Any], depth: int, chunks: int) -> list[str]:
    lines = [f"KB sample: {counts['total_chunks']:,} chunks; depth {depth} documents, read {chunks} chunks"]
    for name, per_item in counts["per_item"].items():
        n = len(per_item)
        short_read = [r for r in per_item if r["read"] < depth]
        few = [r for r in short_read if r["matching"] < depth]
        cut = [r for r in short_read if r["matching"] >= depth]
        fills = sorted(r["to_fill"] for r in per_item if r["to_fill"] is not None)
        lines.append(
            f"  {name}: {len(short_read)} of {n} questions get fewer than {depth} documents from the {chunks}-chunk "
            f"read; of these {len(cut)} have >= {depth} matching documents in the index (the read cuts them) and "
            f"{len(few)} have fewer (few match). Matching documents per question: median "
            f"{np.median([r['matching'] for r in per_item]):.0f}, min {min(r['matching'] for r in per_item)}; "
            f"documents of the read: median {np.median([r['read'] for r in per_item]):.0f}; chunks read to reach "
            f"{depth} documents: median {np.median(fills):.0f}, p90 {np.percentile(fills, 90):.0f}, max {max(fills)}"
            if fills
            else f"  {name}: no question reaches {depth} documents"
        )
    return lines


def evaluate(retriever: Any, dataset: Any, fill: bool) -> list[Any]:
    from agents.retrieval_eval.runner import evaluate_items
    from query.recipes import HYBRID, KEYWORD

    retriever.knowledge.fill_keyword = fill
    recipes = [
        HYBRID.with_keyword(a).model_copy(update={"name": f"HYBRID_{a.upper()}"}) for a in ANALYZER_NAMES
    ] + [KEYWORD.with_keyword(a).model_copy(update={"name": f"KEYWORD_{a.upper()}"}) for a in ANALYZER_NAMES]
    rows = evaluate_items(retriever, dataset, recipes, KS)
    return [r for r in rows if r.level == "document" and r.skipped is None]


def eval_lines(before: list[Any], after: list[Any]) -> list[str]:
    from bench.stats import mcnemar_exact

    def by(rows: list[Any]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            out.setdefault(r.recipe, {})[r.item_id] = r
        return out

    b, a = by(before), by(after)
    lines = [
        f"  {'recipe':<16} {'read':<10} {'any@5':>6} {'any@10':>6} {'all@10':>6}  short keyword lists  ms p50 / p95"
        "   any@10 deepened vs one read"
    ]
    for recipe in b:
        for label, got in (("one read", b[recipe]), ("deepened", a[recipe])):
            means = [np.mean([r.metrics[m] for r in got.values()]) for m in METRICS]
            short = sum(1 for r in got.values() if r.short_keyword())
            ms = [r.ms for r in got.values() if r.ms is not None]
            paired = ""
            if label == "deepened":
                common = [i for i in got if i in b[recipe]]
                hit = {i: (got[i].metrics["recall_any@10"], b[recipe][i].metrics["recall_any@10"]) for i in common}
                plus = sum(1 for new, old in hit.values() if new > old)
                minus = sum(1 for new, old in hit.values() if new < old)
                changed = sum(1 for i in common if got[i].ranked != b[recipe][i].ranked)
                paired = f"+{plus}/-{minus} p={mcnemar_exact(plus, minus):.2g}, top-10 order changed for {changed}"
            lines.append(
                f"  {recipe:<16} {label:<10} {means[0]:>6.3f} {means[1]:>6.3f} {means[2]:>6.3f}  "
                f"{short:>4} of {len(got):<14,} "
                f"{np.median(ms):>5.1f} / {np.percentile(ms, 95):>5.1f}   {paired}"
            )
    return lines


def timing_lines(retriever: Any, items: list[Any], rounds: int) -> list[str]:
    """Search times of HYBRID (both analyzers) with one read and deepened, interleaved per question (the order
    alternates), so that a warming cache or a change of machine load falls on both alike."""
    from query.recipes import HYBRID

    times: dict[tuple[str, bool], list[float]] = {}
    for analyzer in ANALYZER_NAMES:
        recipe = HYBRID.with_keyword(analyzer)
        for position, item in enumerate(items * rounds):
            for fill in (False, True) if position % 2 == 0 else (True, False):
                retriever.knowledge.fill_keyword = fill
                started = time.perf_counter()
                retriever.search(recipe, item.question, k=10)
                times.setdefault((analyzer, fill), []).append((time.perf_counter() - started) * 1000)
    lines = [f"  search time, HYBRID k=10, interleaved ({rounds} round(s) of {len(items)} questions), ms p50 / p95:"]
    for (analyzer, fill), got in times.items():
        label = "deepened" if fill else "one read"
        lines.append(f"    {analyzer:<8} {label:<9} {np.median(got):6.1f} / {np.percentile(got, 95):6.1f}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb-docs", type=int, default=1000, help="KB documents in the sample (with their QA)")
    parser.add_argument("--kb-limit", type=int, default=500, help="KB questions (stable subset)")
    parser.add_argument("--no-eval", action="store_true", help="only count the documents (no recall)")
    parser.add_argument("--timing-rounds", type=int, default=0, help="interleaved HYBRID search timing rounds")
    parser.add_argument("--out", type=Path, default=REPO / "test-artifacts" / "kb_keyword_depth")
    args = parser.parse_args()
    if not (KB / "qa.jsonl.gz").exists():
        print(f"skipped: {KB} is not present")
        return 0
    from agents.retrieval_eval.datasets import prepare_dataset
    from bench.neo4j_for_bench import bench_neo4j
    from graph.embeddings import load_encoder
    from graph.store import EventStore
    from query.recipes import HYBRID
    from query.retriever import Retriever

    started = time.perf_counter()
    path = kb_sample(args.kb_docs, args.out / "kb_sample")
    encoder = load_encoder()
    depth, chunks = HYBRID.channel_depth, HYBRID.channel_chunks
    with bench_neo4j() as (driver, _pid):
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        dataset = prepare_dataset(store, "medquad", path, limit=args.kb_limit)
        items = [i for i in dataset.items if i.skip_knowledge is None]
        counts = depth_counts(driver, items, depth, chunks)
        lines = count_lines(counts, depth, chunks)
        print("\n".join(lines), flush=True)
        result: dict[str, Any] = {"counts": counts}
        retriever = Retriever(driver, encoder)
        try:
            if not args.no_eval:
                before = evaluate(retriever, dataset, fill=False)
                after = evaluate(retriever, dataset, fill=True)
                lines += eval_lines(before, after)
                result["rows"] = {
                    "one_read": [r.model_dump(mode="json") for r in before],
                    "deepened": [r.model_dump(mode="json") for r in after],
                }
            if args.timing_rounds:
                lines += timing_lines(retriever, items, args.timing_rounds)
        finally:
            retriever.close()
    lines.append(f"({time.perf_counter() - started:.0f} s)")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kb_keyword_depth.json").write_text(json.dumps(result), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
