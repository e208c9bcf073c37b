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

The memory-systems line (`eval qa --system`) is timed the same way on LoCoMo (the shared locomo10 cut to its
first `--locomo-conversations` conversations, default 1, or else the shipped tests/fixtures/locomo fixture):
memories built first (a one-time cost, reported apart), then per question the system's search, the lookup of
the fed memories' sessions, the answer call and `--judge-runs` judge calls (default 3) against the instant fake
(tests/fake_openai/memory_systems_qa_script.py), and queueing the events. Harness overhead per question = the
loop's wall time per question (appends included) minus the time inside the LLM calls; target <= 20 ms. It is
printed with its phases and once more without the system's own search (query embedding included), which is
the system's work rather than the harness's and is reported as search p50 / p95.

    python bench/bench_eval_qa.py [--path FILE] [--k 10] [--recipe RAW_TURNS|KEYWORD]
        [--systems raw_turns[,amem]] [--locomo-conversations 1] [--locomo FILE] [--judge-runs 3] [--skip-lme]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.llm.roles import LLMRoles  # noqa: E402
from agents.qa.feeds import make_feed_config  # noqa: E402
from agents.qa.memory_systems import MemoryQaOutcome, run_memory_qa  # noqa: E402
from agents.qa.runner import QaRunOutcome, run_qa  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.amem_script import AmemScript  # noqa: E402
from tests.fake_openai.memory_systems_qa_script import MemorySystemsQaScript  # noqa: E402
from tests.fake_openai.qa_script import QaScript  # noqa: E402

DEV = REPO.parent / "shared" / "data" / "longmemeval_dev" / "longmemeval_s_dev.json.gz"
FIXTURE = REPO / "tests" / "fixtures" / "longmemeval_qa_mini" / "longmemeval_s_qa.json"
LOCOMO = REPO.parent / "shared" / "data" / "locomo" / "locomo10.json"
LOCOMO_FIXTURE = REPO / "tests" / "fixtures" / "locomo" / "locomo_mini.json"


def locomo_slice(conversations: int, source: Path = LOCOMO) -> Path:
    """The first `conversations` conversations of the shared locomo10 (or `source`) in a file of their own (the
    fixture when that file is absent)."""
    if not source.exists():
        return LOCOMO_FIXTURE
    data = json.loads(source.read_text(encoding="utf-8"))[:conversations]
    path = Path(tempfile.mkdtemp()) / f"locomo{conversations}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def memory_pass(store: EventStore, fake: FakeOpenAI, path: Path, system: str, judge_runs: int) -> MemoryQaOutcome:
    base = {"base_url": fake.base_url, "model": "fake", "retry_base_s": 0.0, "max_retries": 0}
    roles = LLMRoles(
        overrides={"answerer": dict(base), "judge": dict(base), "memory": dict(base)},
        cache_path=Path(tempfile.mkdtemp()) / "unused.sqlite",
        cache_mode="off",
    )
    try:
        return run_memory_qa(
            store,
            path,
            dataset="locomo",
            system=system,
            answer_llm=roles.client("answerer"),
            judge_llms=[roles.repeat_client("judge", n) for n in range(1, judge_runs + 1)],
            memory_llm=roles.client("memory"),
            judge_runs=judge_runs,
            say=lambda _: None,
        )
    finally:
        roles.close()


def memory_line(
    store: EventStore, systems: list[str], conversations: int, judge_runs: int, source: Path = LOCOMO
) -> None:
    path = locomo_slice(conversations, source)
    with FakeOpenAI(MemorySystemsQaScript(fallback=AmemScript())) as fake:
        for system in systems:
            started = time.perf_counter()
            outcome = memory_pass(store, fake, path, system, judge_runs)
            questions = len(outcome.per_question_ms)
            loop_ms = outcome.loop_seconds * 1000 / max(1, questions)
            llm_ms = sum(outcome.llm_ms) / max(1, questions)
            s = outcome.summary
            phases = {name: ms / max(1, questions) for name, ms in sorted(outcome.phase_ms.items())}
            outside = loop_ms - llm_ms - phases.get("search", 0.0)
            print(
                f"eval qa --system {system} ({path.name}, k={s.k}, {judge_runs} judge runs): {questions} questions: "
                f"{loop_ms:6.1f} ms per question, of which {llm_ms:5.1f} ms inside the {1 + judge_runs} LLM calls "
                f"-> harness {loop_ms - llm_ms:5.1f} ms per question (target <= 20 ms); search p50 "
                f"{s.search_ms_p50 or 0:.1f} ms, p95 {s.search_ms_p95 or 0:.1f} ms; one-time: ingest + build "
                f"{time.perf_counter() - started - outcome.loop_seconds:.1f} s ({outcome.build['pairs_built_now']} "
                f"pairs built, {s.build.get('live_memories', 0)} memories)"
            )
            print(
                f"  per question: {', '.join(f'{n} {v:.1f}' for n, v in phases.items())} ms; outside the LLM calls "
                f"and the system's own search (the harness proper): {outside:.1f} ms per question"
            )
            started = time.perf_counter()
            again = memory_pass(store, fake, path, system, judge_runs)
            print(
                f"  rerun: {again.skipped_done} questions skipped as done, {again.answered_now} answered, "
                f"{again.judged_now} verdicts, in {time.perf_counter() - started:.1f} s"
            )


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
    parser.add_argument("--systems", default="raw_turns", help="memory systems for the eval qa --system passes")
    parser.add_argument("--locomo-conversations", type=int, default=1)
    parser.add_argument(
        "--locomo", type=Path, default=LOCOMO, help="the LoCoMo file to cut (default: the shared locomo10.json)"
    )
    parser.add_argument("--judge-runs", type=int, default=3)
    parser.add_argument("--skip-lme", action="store_true", help="only the memory-systems line")
    args = parser.parse_args()
    encoder = load_encoder()
    with bench_neo4j() as (driver, _), FakeOpenAI(QaScript()) as fake:
        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        memory_line(
            store,
            [x.strip() for x in args.systems.split(",") if x.strip()],
            args.locomo_conversations,
            args.judge_runs,
            args.locomo,
        )
        if args.skip_lme:
            return
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
