"""Judge request size per attempt on the bundled sample (prints median / p95 characters), with the judge inputs
of issue 10 (every Search/Read return whole, whole grader documents, the S(H) block) and with the earlier rule
(each return cut at 6,000 characters, each grader document cut to 12,000 characters around its requirement
spans, no S(H)), re-rendered from the same attempts; and the blind quality judge's request (issue 22 item 5: no
S(H), the tool calls in one shape for every method; the `evidence_grounding` prompt) for the same attempts.

Uses a throwaway Neo4j (bench/neo4j_for_bench.py) holding the sample and the scripted fake server (AutoPolicy:
memory search when offered, knowledge search, a 100-line read of the top document, answer); the accuracy judge.

    python bench/bench_judge_inputs.py [--methods HYBRID,RAW_TURNS,MEMKB_RAW_TURNS] [--items 28]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agents.judging.reference import (  # noqa: E402
    MaterialSource,
    load_attempt_trace,
    load_item_reference,
    render_documents,
    render_evidence,
)
from agents.llm.roles import LLMRoles  # noqa: E402
from agents.methods import parse_methods  # noqa: E402
from agents.prompts.registry import PromptSet  # noqa: E402
from agents.prompts.template import render_messages  # noqa: E402
from agents.runs.plan import RunOptions, plan_batch  # noqa: E402
from agents.runs.runner import execute_batch  # noqa: E402
from bench.neo4j_for_bench import bench_neo4j  # noqa: E402
from graph.embeddings import load_encoder  # noqa: E402
from graph.store import EventStore  # noqa: E402
from ingest.pipeline import load_input, write_events  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402
from tests.fake_openai.policy import AutoPolicy, schema_title  # noqa: E402

SAMPLE = REPO / "samples" / "colabench-sample"
EARLIER_RETURN_CAP = 6_000
EARLIER_DOC_CAP = 12_000


def chars(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content") or "")) for m in messages)


def earlier_size(store: EventStore, materials: MaterialSource, prompts: PromptSet, attempt_id: str) -> int:
    """The judge request of this attempt under the earlier rule (cut returns and documents, no S(H))."""
    material = materials.material(attempt_id)
    trace = load_attempt_trace(store.driver, store.database, attempt_id)
    ref = load_item_reference(store.driver, store.database, material.item_id)
    spans: dict[str, list[tuple[int, int]]] = {}
    for req in ref["requirements"]:
        for span in req["spans"]:
            spans.setdefault(span["doc_id"], []).append((int(span["start_line"]), int(span["end_line"])))
    values = material.values()
    values["documents"] = render_documents(ref["support"], ref["history_docs"], spans, max_chars=EARLIER_DOC_CAP)
    values["evidence"] = render_evidence(trace["calls"], max_response_chars=EARLIER_RETURN_CAP)
    values["states"] = ""
    return chars(render_messages(prompts["judge_accuracy"], **values))


def blind_size(materials: MaterialSource, prompts: PromptSet, attempt_id: str) -> int:
    """The blind quality judge's request of this attempt (one dimension; the five differ only in the rubric)."""
    material = materials.material(attempt_id)
    return chars(render_messages(prompts["judge_quality_evidence_grounding"], **material.blind_values()))


def p95(values: list[int]) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--methods", default="HYBRID,RAW_TURNS,MEMKB_RAW_TURNS")
    parser.add_argument("--items", type=int, default=28)
    args = parser.parse_args()
    encoder = load_encoder()
    with bench_neo4j() as (driver, _pid), FakeOpenAI(AutoPolicy()) as fake:
        from query.retriever import Retriever

        store = EventStore(driver, encoder=encoder)
        store.ensure_schema()
        write_events(store, load_input(SAMPLE))
        retriever = Retriever(driver, encoder)
        base = {"base_url": fake.base_url, "model": "fake", "concurrency": 64, "retry_base_s": 0.0}
        roles = LLMRoles(
            overrides={r: dict(base) for r in ("answerer", "judge", "state")},
            cache_path=Path(tempfile.mkdtemp()) / "unused.sqlite",
            cache_mode="off",
        )
        prompts = PromptSet()
        assert store.encoder is not None
        plan = plan_batch(
            store,
            parse_methods(args.methods),
            RunOptions(dataset="sample", items=args.items, judges=("accuracy",), fresh=True),
            roles,
            prompts,
            encoder_id=store.encoder.encoder_id,
        )
        try:
            execute_batch(store, retriever, plan, roles, prompts, concurrency=2)
        finally:
            roles.close()
            retriever.close()
        now = [chars(b["messages"]) for b in fake.requests if schema_title(b) == "AccuracyOut"]
        materials = MaterialSource(driver, store.database)
        before = [earlier_size(store, materials, prompts, r.attempt_id(i)) for r in plan.runs for i in plan.item_ids]
        blind = [blind_size(materials, prompts, r.attempt_id(i)) for r in plan.runs for i in plan.item_ids]
    print(f"judge (accuracy) request size per attempt, {len(now)} attempts ({args.methods} x {args.items} items)")
    print(f"{'rule':<34}{'median':>10}{'p95':>10}{'max':>10}")
    rules = (
        ("earlier (cut returns, no S(H))", before),
        ("issue 10 (whole, with S(H))", now),
        ("blind quality (no S(H), uniform)", blind),
    )
    for label, values in rules:
        print(f"{label:<34}{statistics.median(values):>10,.0f}{p95(values):>10,.0f}{max(values):>10,}")


if __name__ == "__main__":
    main()
