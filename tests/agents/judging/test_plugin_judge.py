"""A judge from outside the package (issue 23, item 3): `tests/plugins/echo_judge.py`, one module with one
registration line, named in COLABENCH_PLUGINS, is a `--judges` name, brings its prompts, and what it declares
it produces (its metric fields, its report section) is what the registry-derived lists show; and every shipped
judge declares only metric fields the metric rows have and only report sections that exist."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agents.judging.registry import (
    JUDGES,
    judge_metrics,
    judge_templates,
    parse_judges,
    section_judges,
    section_kinds,
    unregister_judge,
)
from agents.metrics.attempts import AttemptMetrics
from agents.reports.sections import load_sections

PLUGIN = "tests.plugins.echo_judge"


@pytest.fixture
def echo_judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLABENCH_PLUGINS", PLUGIN)
    yield
    unregister_judge("echo_premise")


def test_every_judge_declares_metric_fields_of_the_rows_and_sections_that_exist() -> None:
    sections = {section.name for section in load_sections()}
    for judge in JUDGES.values():
        assert set(judge.metrics) <= set(AttemptMetrics.model_fields), judge.name
        assert judge.report_section is None or judge.report_section in sections, judge.name
    assert judge_metrics() == {
        "accuracy": ("verdict", "accuracy_valid"),
        "quality": ("quality",),
        "error_analysis": ("error_category", "visibility"),
        "abstention": (),
        "gotcha": (),
    }


@pytest.mark.usefixtures("echo_judge")
def test_a_plugin_judge_is_in_every_list_the_registry_derives() -> None:
    from agents.reports.sections.premise_judges import section_judges as premise_section_judges

    assert "echo_premise" in parse_judges("all")
    assert parse_judges("echo_premise") == ("echo_premise",)
    assert [j.name for j in section_judges("premise_judges")] == ["abstention", "gotcha", "echo_premise"]
    assert section_kinds("premise_judges") == ("abstention", "gotcha", "echo_premise")
    assert [j.name for j in premise_section_judges()] == ["abstention", "gotcha", "echo_premise"]
    assert judge_metrics()["echo_premise"] == ()
    names = {t.name for t in judge_templates()}
    assert {"judge_echo_premise", "judge_echo_premise_user"} <= names
    unregister_judge("echo_premise")
    assert section_kinds("premise_judges") == ("abstention", "gotcha")
