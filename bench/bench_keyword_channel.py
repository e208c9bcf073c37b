"""The keyword channel's variants against an independent plain reference, on LoCoMo, LongMemEval dev and a KB
sample, each in a throwaway Neo4j of its own (or COLABENCH_BENCH_NEO4J_URI, wiped).

Variants (recipes of query.recipes with another keyword analyzer / padding): KEYWORD and HYBRID under the
`english` and `plain` analyzers (query.keyword_analyzers), HYBRID with the keyword list padded (BM25 0,
ties by id: the memory line to every card, the knowledge line to the channel depth) or not, SEMANTIC; on LoCoMo
under both image-caption formats (bracketed "[image: c]" and bare).
All run through the evaluation's own runner (agents.retrieval_eval).

Reference (written here, independent of query/): rank-bm25 BM25Okapi on lowercase `\\w+` tokens, cosine with
the project's encoder (the stored MiniLM vectors of the same cards / chunks), RRF k=60 over the two whole
lists; on the memory line over the same visible cards of the profile, on the KB over every chunk of the
sample (a document's score = its best chunk's).

Figures: recall_any@5, recall_any@10, recall_all@10 (micro means; memory line at turn level, KB at document
level), and for every variant against today's default (HYBRID, english, not padded) the exact McNemar p of
recall_any@10 with its discordant counts; plus how many items had a keyword list shorter than its budget.

    python bench/bench_keyword_channel.py [--datasets locomo,longmemeval,kb] [--locomo-limit N] [--locomo-samples N]
        [--kb-docs 400] [--out test-artifacts/keyword_channel]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# the shared data beside the main checkout; COLABENCH_SHARED_DATA names it from a worktree elsewhere
SHARED = Path(os.environ.get("COLABENCH_SHARED_DATA") or REPO.parent / "shared" / "data")
LOCOMO = SHARED / "locomo" / "locomo10.json"
LME = SHARED / "longmemeval_dev" / "longmemeval_s_dev.json.gz"
KB = SHARED / "kb"
KS = [5, 10]
METRICS = ("recall_any@5", "recall_any@10", "recall_all@10")
BASELINE = "HYBRID"
REFERENCE = "REFERENCE"
_WORD = re.compile(r"\w+")


def variants() -> list[Any]:
    from query.recipes import HYBRID, KEYWORD, SEMANTIC

    def named(recipe: Any, name: str, analyzer: str, padding: bool = False) -> Any:
        return recipe.with_keyword(analyzer, padding).model_copy(update={"name": name})

    out = [
        named(KEYWORD, "KEYWORD", "english"),
        named(KEYWORD, "KEYWORD_PLAIN", "plain"),
        SEMANTIC,
        named(HYBRID, "HYBRID", "english"),
        named(HYBRID, "HYBRID_PLAIN", "plain"),
    ]
    # padded: the memory line to every card, the knowledge line to the channel depth
    out += [named(HYBRID, "HYBRID_PADDED", "english", True), named(HYBRID, "HYBRID_PLAIN_PADDED", "plain", True)]
    return out


# --- the independent reference ----------------------------------------------------------------------


def ref_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def ref_rrf(lists: Sequence[Sequence[str]], k: float = 60.0, best_rank_ties: bool = False) -> list[str]:
    """RRF over whole lists, ties by id; `best_rank_ties` (a diagnostic, colabench's rule): ties by the best
    single-list rank, then the earlier list, then id."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    for position, ranked in enumerate(lists):
        for rank, item in enumerate(ranked, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            best[item] = min(best.get(item, (rank, position)), (rank, position))
    if best_rank_ties:
        return sorted(scores, key=lambda i: (-scores[i], *best[i], i))
    return sorted(scores, key=lambda i: (-scores[i], i))


def ref_bm25_order(ids: list[str], texts: list[str], query: str, distinct_query: bool = False) -> list[str]:
    """Every id by rank-bm25 Okapi score, ties by id; `distinct_query` (a diagnostic, colabench's plain query
    before issue 29) counts a repeated query word once."""
    from rank_bm25 import BM25Okapi

    tokenized = [ref_tokens(t) or ["\u0000"] for t in texts]
    terms = ref_tokens(query)
    scores = BM25Okapi(tokenized).get_scores(list(dict.fromkeys(terms)) if distinct_query else terms)
    return [ids[i] for i in sorted(range(len(ids)), key=lambda i: (-float(scores[i]), ids[i]))]


# The reference and, for attributing differences, the reference with one or both of colabench's former rules
# (name -> (query words counted once, ties by best single-list rank with semantic first)).
REFERENCE_FORMS = {
    REFERENCE: (False, False),
    "REF_DISTINCT_QUERY": (True, False),
    "REF_BEST_RANK_TIES": (False, True),
    "REF_BOTH": (True, True),
}


def reference_memory_rows(retriever: Any, items: list[Any]) -> list[Any]:
    """Turn-level rows of the reference on the memory line (same cards, same gold as the runner's)."""
    from agents.retrieval_eval.metrics import dedupe, lme_metrics
    from agents.retrieval_eval.report import ItemRow
    from agents.retrieval_eval.runner import _sources

    rows = []
    for item in items:
        forms = {
            name: ItemRow(
                item_id=item.item_id,
                dataset=item.dataset,
                group=item.group or item.dataset,
                type=item.type,
                recipe=name,
                line="memory",
                level="turn",
                gold=list(item.gold_turns),
            )
            for name in REFERENCE_FORMS
        }
        rows.extend(forms.values())
        if item.skip_memory or not item.profile_id or not item.gold_turns:
            for row in forms.values():
                row.skipped = item.skip_memory or "no gold turn"
            continue
        vector = retriever.query_embedder.embed(item.question)
        _n, cutoff = retriever._profile_context(item.profile_id, item.cutoff_turn_id, "raw_turns")
        cards = retriever.memory.cards(item.profile_id, "raw_turns", vector, cutoff)
        details = retriever.memory.details(cards)
        ids = [c.memory_id for c in cards]
        texts = [details[i].text if i in details else "" for i in ids]
        by_cos = {c.memory_id: float(c.cosine or 0.0) for c in cards}
        cosine = sorted(ids, key=lambda i: (-by_cos[i], i))
        for name, (distinct_query, best_rank_ties) in REFERENCE_FORMS.items():
            bm25 = ref_bm25_order(ids, texts, item.question, distinct_query)
            # colabench lists the semantic channel first, so its tie rule prefers the semantic rank
            fused = ref_rrf([cosine, bm25], best_rank_ties=best_rank_ties)[:50]
            sources = _sources(retriever, fused)
            units = dedupe(t for mid in fused for t, _ in sources.get(mid, []))
            forms[name].ranked = units[: max(KS)]
            forms[name].metrics = lme_metrics(units, set(item.gold_turns), KS)
    return rows


def reference_kb_rows(driver: Any, items: list[Any]) -> list[Any]:
    """Document-level rows of the reference over every chunk of the graph (the KB sample)."""
    from rank_bm25 import BM25Okapi

    from agents.retrieval_eval.metrics import lme_metrics
    from agents.retrieval_eval.report import ItemRow
    from graph.embeddings import load_encoder

    with driver.session() as session:
        chunks = session.run(
            "MATCH (c:Chunk) RETURN c.id AS id, c.doc_id AS doc, coalesce(c.text, '') + ' ' + "
            "coalesce(c.doc_title, '') AS text, c.embedding AS vec ORDER BY c.id"
        ).data()
    docs = [c["doc"] for c in chunks]
    bm25 = BM25Okapi([ref_tokens(c["text"]) or ["\u0000"] for c in chunks])
    matrix = np.asarray([c["vec"] for c in chunks], dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-12
    encoder = load_encoder()

    def by_doc(scores: np.ndarray) -> list[str]:
        best: dict[str, float] = {}
        for doc, score in zip(docs, scores.tolist(), strict=True):
            if doc not in best or score > best[doc]:
                best[doc] = score
        return sorted(best, key=lambda d: (-best[d], d))

    rows = []
    for item in items:
        row = ItemRow(
            item_id=item.item_id,
            dataset=item.dataset,
            group=item.group or item.dataset,
            type=item.type,
            recipe=REFERENCE,
            line="knowledge",
            level="document",
            gold=list(item.gold_docs),
        )
        if item.skip_knowledge:
            row.skipped = item.skip_knowledge
            rows.append(row)
            continue
        query_vec = np.asarray(encoder.encode([item.question])[0], dtype=np.float32)
        query_vec /= np.linalg.norm(query_vec) + 1e-12
        fused = ref_rrf([by_doc(np.asarray(bm25.get_scores(ref_tokens(item.question)))), by_doc(matrix @ query_vec)])
        row.ranked = fused[: max(KS)]
        row.metrics = lme_metrics(fused, set(item.gold_docs), KS)
        rows.append(row)
    return rows


# --- runs ----------------------------------------------------------------------------------------------


def kb_sample(n_docs: int, out: Path) -> Path:
    """The first `n_docs` KB documents with QA pairs (by sha256 of their id) and their QA pairs, as a KB folder."""
    with gzip.open(KB / "qa.jsonl.gz", "rt", encoding="utf-8") as handle:
        qa = [json.loads(line) for line in handle if line.strip()]
    with_qa = sorted({r["doc_id"] for r in qa}, key=lambda d: hashlib.sha256(d.encode()).hexdigest())[:n_docs]
    keep = set(with_qa)
    out.mkdir(parents=True, exist_ok=True)
    with (
        gzip.open(KB / "documents.jsonl.gz", "rt", encoding="utf-8") as src,
        gzip.open(out / "documents.jsonl.gz", "wt", encoding="utf-8") as dst,
    ):
        for line in src:
            if line.strip() and json.loads(line)["doc_id"] in keep:
                dst.write(line)
    with gzip.open(out / "qa.jsonl.gz", "wt", encoding="utf-8") as dst:
        for r in qa:
            if r["doc_id"] in keep:
                dst.write(json.dumps(r) + "\n")
    return out


def locomo_sample(n_samples: int, out: Path) -> Path:
    """The first `n_samples` conversations of locomo10.json (with all their questions) as a file of their own."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"locomo_first{n_samples}.json"
    samples = json.loads(LOCOMO.read_text(encoding="utf-8"))[:n_samples]
    path.write_text(json.dumps(samples), encoding="utf-8")
    return path


def run_config(name: str, kind: str, path: Path, caption: str | None, limit: int | None, out: Path) -> dict[str, Any]:
    from agents.memory.cards.raw_turn_cards import build_raw_turn_cards
    from agents.retrieval_eval.datasets import prepare_dataset
    from agents.retrieval_eval.runner import evaluate_items
    from bench.neo4j_for_bench import bench_neo4j
    from graph.embeddings import load_encoder
    from graph.store import EventStore
    from query.keyword_analyzers import describe_keyword_channel
    from query.retriever import Retriever

    started = time.perf_counter()
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 30 or (total and done >= total):
            last[0] = now
            print(f"  {name}: {phase} {done:,}/{total:,}", flush=True)

    encoder = load_encoder()
    with bench_neo4j() as (driver, _pid):
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        retriever = Retriever(driver, encoder)
        try:
            dataset = prepare_dataset(store, kind, path, limit=limit, progress=progress, caption=caption)
            if kind == "locomo":  # categories 1-4 (5 is adversarial, without evidence for most items)
                dataset.items = [i for i in dataset.items if i.type != "adversarial"]
            memory = kind != "medquad"
            if memory:
                build_raw_turn_cards(
                    store, profile_ids=dataset.profile_ids, progress=lambda d, t: progress("cards", d, t)
                )
            recipes = variants()
            rows = evaluate_items(retriever, dataset, recipes, KS, progress=lambda d, t: progress("evaluating", d, t))
            rows = [r for r in rows if r.level in ("turn", "document")]
            rows += (
                reference_memory_rows(retriever, dataset.items) if memory else reference_kb_rows(driver, dataset.items)
            )
            definition = describe_keyword_channel(["english", "plain"], driver)
        finally:
            retriever.close()
    result = {
        "name": name,
        "items": len(dataset.items),
        "notes": dataset.notes,
        "keyword_channel": definition,
        "seconds": round(time.perf_counter() - started, 1),
        "rows": [r.model_dump(mode="json") for r in rows],
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(result), encoding="utf-8")
    return result


def table(result: dict[str, Any]) -> list[str]:
    from agents.retrieval_eval.report import ItemRow
    from bench.stats import mcnemar_exact

    rows = [ItemRow.model_validate(r) for r in result["rows"]]
    by_recipe: dict[str, dict[str, ItemRow]] = {}
    for r in rows:
        if r.skipped is None:
            by_recipe.setdefault(r.recipe, {})[r.item_id] = r
    base = by_recipe.get(BASELINE, {})
    ref = by_recipe.get(REFERENCE, {})

    def paired(got: dict[str, ItemRow], other: dict[str, ItemRow]) -> str:
        common = [i for i in got if i in other]
        b = sum(1 for i in common if got[i].metrics["recall_any@10"] > other[i].metrics["recall_any@10"])
        c = sum(1 for i in common if got[i].metrics["recall_any@10"] < other[i].metrics["recall_any@10"])
        return f"+{b}/-{c} p={mcnemar_exact(b, c):.2g}"

    lines = [f"{result['name']}: {len(base):,} scored items ({result['seconds']:.0f} s)"]
    lines.append(
        f"  {'recipe':<20} {'any@5':>6} {'any@10':>6} {'all@10':>6}  {'any@10 vs ' + BASELINE:<20} "
        f"{'any@10 vs ' + REFERENCE:<20} short keyword lists"
    )
    for recipe, got in by_recipe.items():
        means = [np.mean([got[i].metrics[m] for i in got]) for m in METRICS]
        sized = [r for r in got.values() if r.list_sizes]
        short = f"{sum(1 for r in sized if r.short_keyword()):,} of {len(sized):,}" if sized else "not reported"
        if recipe.startswith("REF") or "SEMANTIC" in recipe:
            short = "-"
        lines.append(
            f"  {recipe:<20} {means[0]:>6.3f} {means[1]:>6.3f} {means[2]:>6.3f}  "
            f"{'' if recipe == BASELINE else paired(got, base):<20} "
            f"{'' if recipe == REFERENCE else paired(got, ref):<20} {short}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="locomo,longmemeval,kb")
    parser.add_argument("--locomo-limit", type=int, default=None, help="questions of LoCoMo (stable subset)")
    parser.add_argument("--locomo-samples", type=int, default=None, help="only the first N LoCoMo conversations")
    parser.add_argument("--kb-docs", type=int, default=400, help="KB documents in the sample (with their QA)")
    parser.add_argument("--kb-limit", type=int, default=500, help="KB questions (stable subset)")
    parser.add_argument("--captions", default="bracketed,bare")
    parser.add_argument("--out", type=Path, default=REPO / "test-artifacts" / "keyword_channel")
    parser.add_argument("--print-only", action="store_true", help="print the table of the JSON in --out")
    args = parser.parse_args()

    configs: list[tuple[str, str, Path, str | None, int | None]] = []
    for name in args.datasets.split(","):
        if name == "locomo":
            source = locomo_sample(args.locomo_samples, args.out) if args.locomo_samples and LOCOMO.exists() else LOCOMO
            configs += [(f"locomo_{c}", "locomo", source, c, args.locomo_limit) for c in args.captions.split(",")]
        elif name == "longmemeval":
            configs.append(("longmemeval_s_dev", "longmemeval", LME, None, None))
        elif name == "kb":
            configs.append(("kb_sample", "medquad", args.out / "kb_sample", None, args.kb_limit))
    lines: list[str] = []
    for name, kind, path, caption, limit in configs:
        saved = args.out / f"{name}.json"
        if args.print_only:
            if saved.exists():
                lines += table(json.loads(saved.read_text(encoding="utf-8")))
            continue
        if kind == "medquad":
            if not (KB / "qa.jsonl.gz").exists():
                print(f"skipped {name}: {KB} is not present")
                continue
            kb_sample(args.kb_docs, path)
        elif not path.exists():
            print(f"skipped {name}: {path} is not present")
            continue
        result = run_config(name, kind, path, caption, limit, args.out)
        lines += table(result)
        print("\n".join(table(result)), flush=True)
    if lines:
        definition = json.loads((args.out / f"{configs[0][0]}.json").read_text(encoding="utf-8"))["keyword_channel"]
        print("\n".join(definition + lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
