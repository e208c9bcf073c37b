"""Where the cold first pass of `eval qa --feed rag` spends its harness time (prints figures).

Same set-up as bench/bench_eval_qa.py (a throwaway Neo4j, the shared dev slice or the shipped fixture, the
instant fake endpoint, cache off), but nothing is warmed: the first pass runs under cProfile, and the
report lists the phases per question, the cumulative time of the entry points that matter (event-log
appends, encoder calls, LLM client calls, unit ranking) and the functions with the most cumulative time. A
second, warm pass with another k follows for comparison.

    python bench/profile_eval_qa_cold.py [--path FILE] [--k 10] [--top 25]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.bench_eval_qa import DEV, FIXTURE, one_pass  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.qa_script import QaScript  # noqa: E402

ENTRY_POINTS = {  # label -> (file suffix, function name); cumulative time, calls
    "dataset ingest (prepare)": ("agents/retrieval_eval/datasets.py", "prepare_dataset"),
    "event-log appends (all)": ("graph/store.py", "append"),
    "encoder calls (all)": ("graph/embeddings/cached.py", "encode"),
    "query embeddings (QueryEmbedder)": ("query/query_vectors.py", "embed"),
    "ONNX session opens": ("graph/embeddings/onnx_encoder.py", "load"),
    "LLM client chat": ("agents/llm/client.py", "chat"),
    "question indexing": ("agents/qa/feeds.py", "prepare_question"),
    "feeding (rank units)": ("agents/qa/feeds.py", "feed_units"),
}


def _entry_points(stats: pstats.Stats) -> list[str]:
    lines = []
    for label, (suffix, name) in ENTRY_POINTS.items():
        found = [
            (calls, cumtime)
            for (filename, _, function), (_, calls, _, cumtime, _) in stats.stats.items()  # type: ignore[attr-defined]
            if filename.endswith(suffix) and function == name
        ]
        calls = sum(c for c, _ in found)
        cum = sum(t for _, t in found)
        lines.append(f"  {label}: {cum:.2f} s in {calls} call(s)")
    return lines


def _line(label: str, outcome) -> str:  # type: ignore[no-untyped-def]
    n = max(1, len(outcome.per_question_ms))
    loop = outcome.seconds["questions"] * 1000 / n
    llm = outcome.llm_seconds * 1000 / n
    phases = ", ".join(f"{k} {v / n:.1f}" for k, v in sorted(outcome.phase_ms.items()))
    return f"{label}: {n} questions, loop {loop:.1f} ms/question, LLM {llm:.1f}, harness {loop - llm:.1f} ({phases})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, default=DEV if DEV.exists() else FIXTURE)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    started = time.perf_counter()
    encoder = load_encoder()
    print(f"encoder loaded in {time.perf_counter() - started:.1f} s (not called yet)", flush=True)
    with bench_neo4j() as (driver, _), FakeOpenAI(QaScript()) as fake:
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        profiler = cProfile.Profile()
        profiler.enable()
        cold = one_pass(store, fake, args.path, args.k, "direct", "none")
        profiler.disable()
        print(_line(f"cold pass k={args.k}", cold))
        stats = pstats.Stats(profiler)
        print("cumulative time of the entry points over the whole cold pass:")
        print("\n".join(_entry_points(stats)))
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
        print(out.getvalue())
        warm = one_pass(store, fake, args.path, args.k - 1, "direct", "none")
        print(_line(f"warm pass k={args.k - 1}", warm))


if __name__ == "__main__":
    main()
