"""`eval qa --feed rag` harness overhead per question with an instant endpoint (prints figures).

A throwaway Neo4j (bench/neo4j_for_bench.py), the shared LongMemEval dev slice when present (13 S questions,
41-57 sessions each) or else the shipped fixture (tests/fixtures/longmemeval_qa_mini), and the fake
OpenAI-compatible server answering at once (tests/fake_openai/qa_script.py: reader and judge). The response
cache is off, so every reader and judge call reaches the endpoint.

Per question the harness does: the rag feed (rank the question's units, optional time pruning), the reader
call, the judge call, and queueing its answer and verdict for the log (appended in batches at most 2 s apart).
Reported per pass: wall time of the question loop per question (the appends included), the part spent inside
the two LLM calls (openai client + HTTP + the fake's ~0 ms), the rest (the harness), and its phases. Indexing a
haystack (embedding its units) is a one-time cost per question, reported apart.

    python bench/bench_eval_qa.py [--path FILE] [--k 10] [--recipe RAW_TURNS|KEYWORD]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.llm.roles import LLMRoles  # noqa: E402
from agents.qa.feeds import make_feed_config  # noqa: E402
from agents.qa.runner import QaRunOutcome, run_qa  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.qa_script import QaScript  # noqa: E402

DEV = REPO.parent / "shared" / "data" / "longmemeval_dev" / "longmemeval_s_dev.json.gz"
FIXTURE = REPO / "tests" / "fixtures" / "longmemeval_qa_mini" / "longmemeval_s_qa.json"


def one_pass(
    store: EventStore, fake: FakeOpenAI, path: Path, k: int, reader: str, time_aware: str, recipe: str = "RAW_TURNS"
) -> QaRunOutcome:
    base = {"base_url": fake.base_url, "model": "fake", "retry_base_s": 0.0, "max_retries": 0}
    roles = LLMRoles(
        overrides={"answerer": dict(base), "judge": dict(base)},
        cache_path=Path(tempfile.mkdtemp()) / "unused.sqlite",
        cache_mode="off",
    )
    try:
        config = make_feed_config("rag", recipe, k, "round", "none", time_aware)
        return run_qa(
            store,
            path,
            config,
            reader=reader,
            reader_llm=roles.client("answerer"),
            judge_llm=roles.client("judge"),
            say=lambda _: None,
        )
    finally:
        roles.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, default=DEV if DEV.exists() else FIXTURE)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--recipe", default="RAW_TURNS", help="RAW_TURNS (cosine + BM25) or KEYWORD (BM25 only)")
    args = parser.parse_args()
    encoder = load_encoder()
    with bench_neo4j() as (driver, _), FakeOpenAI(QaScript()) as fake:
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        print(f"data: {args.path.name}; rag {args.recipe}, round units, k={args.k}; instant fake endpoint, cache off")
        passes = [("direct", "none"), ("direct", "rules"), ("chain-of-note", "none")]
        for n, (reader, time_aware) in enumerate(passes):
            outcome = one_pass(
                store, fake, args.path, args.k - n, reader, time_aware, args.recipe
            )  # k differs: a new run
            questions = len(outcome.per_question_ms)
            loop_ms = outcome.seconds["questions"] * 1000 / max(1, questions)  # every append included
            llm_ms = outcome.llm_seconds * 1000 / max(1, questions)
            phases = ", ".join(f"{k} {v / max(1, questions):.1f}" for k, v in sorted(outcome.phase_ms.items()))
            label = f"{reader}{f' +time({time_aware})' if time_aware != 'none' else ''} k={args.k - n}"
            print(
                f"{label:<22} {questions} questions: {loop_ms:6.1f} ms per question, of which {llm_ms:5.1f} ms inside "
                f"the 2 LLM calls -> harness {loop_ms - llm_ms:5.1f} ms (median question "
                f"{statistics.median(outcome.per_question_ms):.1f} ms before the last append); per question: {phases} "
                f"ms; one-time: prepare {outcome.seconds['prepare']:.1f} s, index {outcome.seconds['index']:.1f} s"
            )
        started = time.perf_counter()
        again = one_pass(store, fake, args.path, args.k, "direct", "none", args.recipe)
        print(
            f"rerun of the first pass: {again.skipped_done} questions skipped as done "
            f"in {time.perf_counter() - started:.1f} s"
        )


if __name__ == "__main__":
    main()
