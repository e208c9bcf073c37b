"""The retrieval line's memory figures under every granularity and session definition, on the shared
LongMemEval dev slice (S, 13 questions) and LoCoMo (`../shared/data`), in a throwaway Neo4j of their own.

For each dataset and granularity (turn, round, session) it runs `eval retrieval`'s pipeline with KEYWORD,
SEMANTIC and HYBRID (no LLM) and prints, per memory level (turn, round, session_whole,
session_turn2session, session_round2session, session_best_turn, session_best_round), the scored and
skipped item counts and recall_any@5, recall_all@5, NDCG@10 (micro means). The JSON of every run goes to
`--out` (default test-artifacts/retrieval_sessions/).

    python bench/bench_retrieval_sessions.py [--datasets longmemeval,locomo] [--granularities turn,round,session]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared" / "data"
DATASETS = {
    "longmemeval": SHARED / "longmemeval_dev" / "longmemeval_s_dev.json.gz",
    "locomo": SHARED / "locomo" / "locomo10.json",
}
KS = [1, 3, 5, 10]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="longmemeval,locomo")
    parser.add_argument("--granularities", default="turn,round,session")
    parser.add_argument("--recipes", default="KEYWORD,SEMANTIC,HYBRID")
    parser.add_argument("--out", type=Path, default=REPO / "test-artifacts" / "retrieval_sessions")
    args = parser.parse_args()

    from agents.retrieval_eval.pipeline import run_retrieval_eval
    from bench.neo4j_for_bench import bench_neo4j
    from graph.embeddings import load_encoder
    from graph.store import EventStore
    from query.recipes import parse_recipes
    from query.retriever import Retriever

    recipes = parse_recipes(args.recipes)
    args.out.mkdir(parents=True, exist_ok=True)
    encoder = load_encoder()
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 15 or (total and done >= total):
            last[0] = now
            print(f"progress: {phase} {done:,}/{total:,}", flush=True)

    lines: list[str] = []
    for name in args.datasets.split(","):
        path = DATASETS[name]
        if not path.exists():
            print(f"skipped {name}: {path} is not present")
            continue
        with bench_neo4j() as (driver, _pid):
            store = EventStore(driver, encoder=encoder)
            store.ensure_schema()
            retriever = Retriever(driver, encoder)
            try:
                for granularity in args.granularities.split(","):
                    started = time.perf_counter()
                    report = run_retrieval_eval(
                        store, retriever, name, path, recipes, KS, progress=progress, granularity=granularity
                    )
                    seconds = time.perf_counter() - started
                    out = args.out / f"{name}_{granularity}.json"
                    out.write_text(json.dumps(report.model_dump(mode="json"), indent=1), encoding="utf-8")
                    for note in report.notes:
                        if note.startswith("LoCoMo:"):
                            lines.append(f"{name}: {note}")
                    lines.extend(report.keyword_channel)
                    for s in report.summaries:
                        if s.line != "memory":
                            continue
                        m = s.micro
                        lines.append(
                            f"{name:<11} {granularity:<7} {s.level:<22} {s.recipe:<8} n={s.n_items:<5} "
                            f"skipped={s.n_skipped:<4} any@5={m.get('recall_any@5', float('nan')):.3f} "
                            f"all@5={m.get('recall_all@5', float('nan')):.3f} "
                            f"ndcg@10={m.get('ndcg@10', float('nan')):.3f}"
                        )
                    print(f"{name} at {granularity} granularity: {seconds:.1f} s -> {out}", flush=True)
            finally:
                retriever.close()
    print("\n".join(dict.fromkeys(lines)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
