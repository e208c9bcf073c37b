"""Property-based fuzzing of every loader through the real CLI (a small run of bench/drill_fuzz.py)."""

from __future__ import annotations

import pytest
from neo4j import Driver

pytest.importorskip("hypothesis", reason="hypothesis is a dev requirement (requirements.lock)")

from bench.drill_fuzz import LOADERS, run_drill


def test_generated_bad_inputs_of_every_loader_give_located_errors_no_tracebacks_and_write_nothing(
    empty_db: Driver,
) -> None:
    report = run_drill(cases=280, driver=empty_db, seed=11, progress=False)
    assert not report.tracebacks, report.tracebacks[0].message
    assert report.written == 0, [(o.case, o.kind, o.message[-300:]) for o in report.outcomes if o.written]
    assert not report.unlocated, [(o.case, o.unlocated) for o in report.unlocated[:3]]
    assert not report.other_exits, [o.message for o in report.other_exits[:3]]
    assert report.bad_records >= 280  # run_drill generates until each loader has its share refused
    assert {o.case.loader for o in report.outcomes if o.kind == "rejected"} == set(LOADERS)
