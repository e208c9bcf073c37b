"""Report analyses of App. C.3 and honest intervals: tasks grouped by profile x exact fact set (groups,
groups with >= 2 distinct reference documents, tasks they cover), and every printed interval states its
clusters (and strata kept), saying "interval not informative (N clusters)" below 5 clusters."""

from __future__ import annotations

import math

import pytest

from agents.metrics.comparison import interval_text
from agents.metrics.shared_background import ItemBackground, group_shared_background
from agents.reports import svg


def _item(item_id: str, profile: str, facts: list[str], docs: list[str]) -> ItemBackground:
    return ItemBackground(item_id=item_id, profile_id=profile, fact_ids=facts, support_doc_ids=docs)


def test_tasks_group_by_profile_and_exact_fact_set() -> None:
    items = [
        _item("t1", "p1", ["f1", "f2"], ["d1"]),
        _item("t2", "p1", ["f2", "f1"], ["d2"]),  # same set, other order: same group, a second document
        _item("t3", "p1", ["f1", "f2"], ["d1"]),
        _item("t4", "p1", ["f1"], ["d1", "d3"]),  # a subset is another group; one task with two documents
        _item("t5", "p2", ["f1", "f2"], ["d4"]),  # same fact ids, other profile: another group
        _item("t6", "p2", [], ["d5"]),
    ]
    result = group_shared_background(items)
    assert result.n_items == 6 and result.n_groups == 4
    assert result.n_groups_multi_document == 2  # {t1, t2, t3} (d1, d2) and {t4} (d1, d3)
    assert result.n_items_multi_document == 4
    assert result.share_items_multi_document == pytest.approx(4 / 6)
    assert result.n_groups_multi_task == 1 and result.n_items_without_facts == 1
    first = result.groups[0]
    assert (first.profile_id, first.fact_ids, first.item_ids, first.doc_ids) == (
        "p1",
        ["f1", "f2"],
        ["t1", "t2", "t3"],
        ["d1", "d2"],
    )
    assert group_shared_background([]).share_items_multi_document is None


def _gain(estimate: float, clusters: int) -> dict[str, float | int]:
    return {
        "estimate": estimate,
        "low": estimate - 0.03,
        "high": estimate + 0.03,
        "n_items": 40,
        "n_clusters": clusters,
    }


def test_interval_text_states_clusters_and_strata_and_refuses_few_clusters() -> None:
    assert interval_text(_gain(0.063, 10)) == "+6.30 pp [3.30, 9.30] (10 clusters)"
    assert interval_text(_gain(0.063, 10), strata=4) == "+6.30 pp [3.30, 9.30] (10 clusters, 4 strata kept)"
    assert interval_text(_gain(0.063, 5)).endswith("(5 clusters)")
    assert interval_text(_gain(0.063, 3)) == "+6.30 pp; interval not informative (3 clusters)"
    assert interval_text(_gain(0.063, 2), strata=2) == "+6.30 pp; interval not informative (2 clusters, 2 strata kept)"
    assert interval_text(_gain(1.5, 4), 1.0, "") == "+1.50; interval not informative (4 clusters)"
    assert interval_text({}) == "n/a"


def test_forest_draws_no_interval_line_for_an_uninformative_row() -> None:
    nan = math.nan
    drawn = svg.forest("gains", [("accuracy: interval not informative (3 clusters)", 6.3, nan, nan, 40)])
    assert "<line x1" in drawn  # the zero line and the axis
    assert 'stroke-width="1.5"' not in drawn  # no interval segment
    assert "interval not informative (3 clusters)" in drawn and "+6.3 (n=40)" in drawn
