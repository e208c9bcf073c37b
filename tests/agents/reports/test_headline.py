"""The report leads with the paper's headline pair (issue 22, item 7): MemKB vs Mem0 + Hybrid as a paired gain
with its interval, No Memory + Hybrid as the floor, whatever order the runs were given in."""

from __future__ import annotations

from typing import Any

import pytest

from agents.metrics.attempts import AttemptMetrics, RunRecord, summarise_run
from agents.reports.data import headline_pair
from agents.reports.headline import headline_lines
from agents.reports.markdown import render_markdown
from tests.agents.metrics.test_bootstrap import _row


def _record(method: str, label: str) -> RunRecord:
    return RunRecord(
        run_id=f"b-{method}",
        method=method,
        label=label,
        dataset="d",
        batch_id="b",
        status="finished",
        started_seq=1,
        item_ids=[f"i{k}" for k in range(6)],
        config={},
        models={},
        prompt_hashes={},
        seeds={},
        versions={},
        dataset_fingerprint="f",
    )


def _rows(run_id: str, passes: list[bool]) -> list[AttemptMetrics]:
    rows = [_row(f"i{k}", f"p{k % 3}", ok, 1 + k % 2, 2) for k, ok in enumerate(passes)]
    return [r.model_copy(update={"run_id": run_id}) for r in rows]


@pytest.fixture()
def three_runs() -> tuple[list[RunRecord], dict[str, list[AttemptMetrics]]]:
    records = [_record("HYBRID", "No Memory + Hybrid"), _record("MEM0", "Mem0 + Hybrid"), _record("MEMKB", "MemKB")]
    outcomes = {
        "b-HYBRID": [False, False, False, False, False, True],
        "b-MEM0": [True, False, True, False, True, True],
        "b-MEMKB": [True, True, True, False, True, True],
    }
    return records, {run_id: _rows(run_id, passes) for run_id, passes in outcomes.items()}


def test_the_headline_pairs_memkb_with_mem0_and_shows_no_memory_as_the_floor(three_runs: Any) -> None:
    records, rows = three_runs
    metrics = {r.run_id: summarise_run(r, rows[r.run_id]) for r in records}
    head = headline_pair(records, rows, metrics, {r.run_id: True for r in records}, resamples=300, seed=7)
    assert head is not None
    assert (head["method_run"], head["baseline_run"]) == ("b-MEMKB", "b-MEM0")
    assert head["accuracy_gain"]["gain"]["estimate"] == pytest.approx(1 / 6)
    assert head["method_accuracy"] == pytest.approx(5 / 6) and head["baseline_accuracy"] == pytest.approx(4 / 6)
    assert [f["run_id"] for f in head["floor"]] == ["b-HYBRID"]
    lines = headline_lines({"headline": head})
    assert lines[0].startswith("MemKB 83.33% vs Mem0 + Hybrid 66.67%: paired accuracy gain +16.67 pp")
    assert lines[1].startswith("Floor: No Memory + Hybrid 16.67%")


def test_no_headline_without_both_runs_of_the_pair(three_runs: Any) -> None:
    records, rows = three_runs
    records = [r for r in records if r.method != "MEM0"]
    metrics = {r.run_id: summarise_run(r, rows[r.run_id]) for r in records}
    assert headline_pair(records, rows, metrics, {r.run_id: True for r in records}, resamples=100, seed=7) is None
    assert headline_lines({"headline": None}) == []


def test_the_markdown_report_opens_with_the_headline() -> None:
    head = {
        "method_label": "MemKB",
        "baseline_label": "Mem0 + Hybrid",
        "method_accuracy": 0.8,
        "baseline_accuracy": 0.7,
        "n_common_items": 10,
        "accuracy_gain": {"gain": {"estimate": 0.1, "low": 0.0, "high": 0.2, "n_items": 10, "n_clusters": 5}},
        "turns_gain": {"gain": {}},
        "floor": [],
    }
    data = {
        "title": "t",
        "batch_ids": ["b"],
        "bootstrap": {"resamples": 10, "seed": 1},
        "notes": [],
        "runs": [],
        "comparisons": [],
        "headline": head,
        "funnel": {},
        "sections": [],
    }
    text = render_markdown(data)
    assert "+10.00 pp [0.00, 20.00] (5 clusters)" in text
    assert text.index("## Headline") < text.index("## Summary")
