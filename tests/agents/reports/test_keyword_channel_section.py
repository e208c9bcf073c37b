"""The report's keyword-channel section for runs that predate the record of their keyword channel: listed as not
recorded (never filled in from today's defaults), and left out when no run has a keyword channel."""

from __future__ import annotations

from typing import Any

from agents.metrics.attempts import RunRecord
from agents.reports.sections import SectionContext
from agents.reports.sections.keyword_channel import NOT_RECORDED, _collect, _html, _markdown


def _record(method: str, config: dict[str, Any]) -> RunRecord:
    return RunRecord(
        run_id=f"b-{method}",
        method=method,
        label=method.title(),
        dataset="d",
        batch_id="b",
        status="finished",
        started_seq=1,
        item_ids=[],
        config=config,
        models={},
        prompt_hashes={},
        seeds={},
        versions={},
        dataset_fingerprint="f",
    )


def _context(*records: RunRecord) -> SectionContext:
    return SectionContext(driver=None, database="neo4j", records=list(records), rows={}, metrics={})  # type: ignore[arg-type]


def test_a_run_without_the_record_is_listed_as_not_recorded() -> None:
    data = _collect(_context(_record("HYBRID", {}), _record("SEMANTIC", {})))
    assert data == {
        "runs": [{"run_id": "b-HYBRID", "label": "Hybrid", "recorded": False, "recipes": [{"recipe": "HYBRID"}]}]
    }
    assert NOT_RECORDED in _html(data, {}) and any(NOT_RECORDED in line for line in _markdown(data, {}))


def test_no_section_when_no_run_has_a_keyword_channel() -> None:
    assert _collect(_context(_record("SEMANTIC", {"keyword_channel": {}}), _record("SEMANTIC", {}))) is None
