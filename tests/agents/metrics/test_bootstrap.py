"""The cluster bootstrap over profiles against an independent, loop-based re-implementation, and the
stratified common-weight gains against a hand computation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.metrics.attempts import AttemptMetrics
from agents.metrics.bootstrap import cluster_bootstrap_mean, multiplicities
from agents.metrics.comparison import stratified_fact_gains

# A fixed paired case: per-item differences (method - baseline) of 0/1 accuracies across 4 profiles.
DIFFS = [1, 0, 0, 1, 1, 0, -1, 0, 1, 1, 0, 0, 1, -1, 0, 1, 0, 1]
PROFILES = ["p-a"] * 5 + ["p-b"] * 3 + ["p-c"] * 6 + ["p-d"] * 4


def _independent_interval(diffs: list[int], profiles: list[str], resamples: int, seed: int) -> tuple[float, float]:
    """Plain-Python cluster bootstrap: for each resample, draw clusters (the documented numpy draws), pool
    their items, take the mean; percentile interval by sorting and linear interpolation."""
    labels = sorted(set(profiles))
    members: dict[str, list[int]] = {label: [] for label in labels}
    for d, p in zip(diffs, profiles, strict=True):
        members[p].append(d)
    draws = np.random.default_rng(seed).integers(0, len(labels), size=(resamples, len(labels))).tolist()
    stats = []
    for row in draws:
        pooled: list[int] = []
        for index in row:
            pooled.extend(members[labels[index]])
        stats.append(sum(pooled) / len(pooled))
    stats.sort()

    def quantile(q: float) -> float:
        position = q * (len(stats) - 1)
        low = math.floor(position)
        high = min(low + 1, len(stats) - 1)
        return stats[low] + (stats[high] - stats[low]) * (position - low)

    return quantile(0.025), quantile(0.975)


def test_bootstrap_matches_an_independent_reimplementation_on_a_fixed_case() -> None:
    interval = cluster_bootstrap_mean(DIFFS, PROFILES)  # the protocol's defaults
    assert (interval.resamples, interval.seed, interval.n_clusters, interval.n_items) == (20_000, 20261014, 4, 18)
    assert interval.estimate == pytest.approx(sum(DIFFS) / len(DIFFS))
    low, high = _independent_interval(DIFFS, PROFILES, 20_000, 20261014)
    assert interval.low == pytest.approx(low, abs=1e-12)
    assert interval.high == pytest.approx(high, abs=1e-12)
    assert interval.low < interval.estimate < interval.high


def test_bootstrap_is_deterministic_for_a_seed_and_changes_with_it() -> None:
    a = cluster_bootstrap_mean(DIFFS, PROFILES, resamples=2_000, seed=7)
    b = cluster_bootstrap_mean(DIFFS, PROFILES, resamples=2_000, seed=7)
    assert (a.low, a.high) == (b.low, b.high)
    # With 4 clusters the percentiles sit on a few discrete values, so compare the draws themselves.
    assert np.array_equal(multiplicities(4, 50, 7), multiplicities(4, 50, 7))
    assert not np.array_equal(multiplicities(4, 50, 7), multiplicities(4, 50, 8))
    assert (multiplicities(4, 50, 7).sum(axis=1) == 4).all()


def test_constant_differences_give_a_degenerate_interval() -> None:
    interval = cluster_bootstrap_mean([1.0] * 6, ["x", "x", "y", "y", "z", "z"], resamples=500)
    assert (interval.estimate, interval.low, interval.high) == (1.0, 1.0, 1.0)


def test_clusters_resample_whole_profiles_not_items() -> None:
    # One profile all +1, one all -1: any resample is a mix of whole profiles, so the statistic only takes the
    # values {-1, 0, +1}; an item-level bootstrap would produce intermediate values.
    diffs = [1.0] * 4 + [-1.0] * 4
    clusters = ["a"] * 4 + ["b"] * 4
    interval = cluster_bootstrap_mean(diffs, clusters, resamples=4_000)
    assert {interval.low, interval.high} <= {-1.0, 0.0, 1.0}


def _row(
    item: str, profile: str, passed: bool, n_facts: int, n_requirements: int, admission: str | None = None
) -> AttemptMetrics:
    return AttemptMetrics(
        admission=admission,
        run_id="r",
        item_id=item,
        profile_id=profile,
        batch="b",
        labels=[],
        gold=[],
        n_requirements=n_requirements,
        n_facts=n_facts,
        n_history_pairs=1,
        n_history_sessions=1,
        attempted=True,
        status="answered",
        turns=2,
        rounds=1,
        tokens_in=0,
        tokens_out=0,
        finish="answered",
        read_docs=[],
        first_docs=[],
        search_docs=[],
        n_searches=0,
        n_calls=0,
        n_failed_calls=0,
        verdict="pass" if passed else "fail",
    )


def test_stratified_common_weight_gains_match_a_hand_computation() -> None:
    # Stratum (p1, 2 req.): single items diffs [+1, 0], multi [+1]      -> 3 items
    # Stratum (p2, 2 req.): single [0], multi [+1, +1, 0]               -> 4 items
    # Stratum (p2, 3 req.): single only -> dropped (no multi item)
    spec = [
        ("i1", "p1", 1, 2, (False, True)),
        ("i2", "p1", 1, 2, (False, False)),
        ("i3", "p1", 2, 2, (False, True)),
        ("i4", "p2", 1, 2, (True, True)),
        ("i5", "p2", 2, 2, (False, True)),
        ("i6", "p2", 3, 2, (False, True)),
        ("i7", "p2", 2, 2, (True, True)),
        ("i8", "p2", 1, 3, (False, True)),
    ]
    pairs = [(_row(i, p, before, f, r), _row(i, p, after, f, r)) for i, p, f, r, (before, after) in spec]
    result = stratified_fact_gains(pairs, resamples=200, seed=1)[1]
    assert result["strata"] == "profile x requirements"
    assert (result["n_items"], result["n_strata"]) == (7, 2)
    # weights 3/7 and 4/7; single gains 0.5 and 0.0; multi gains 1.0 and 2/3
    single = 3 / 7 * 0.5 + 4 / 7 * 0.0
    multi = 3 / 7 * 1.0 + 4 / 7 * (2 / 3)
    assert result["single_fact_gain"]["estimate"] == pytest.approx(single)
    assert result["multi_fact_gain"]["estimate"] == pytest.approx(multi)
    assert result["multi_minus_single"]["estimate"] == pytest.approx(multi - single)
    assert result["multi_minus_single"]["n_clusters"] == 2


# (item, profile, n_facts, n_requirements, admission, (baseline passed, method passed))
_ADMISSION_SPEC = [
    ("a1", "p1", 1, 2, "direct", (False, True)),
    ("a2", "p1", 2, 2, "direct", (False, True)),
    ("a3", "p1", 1, 2, "after_revision", (True, True)),
    ("a4", "p1", 2, 2, "after_revision", (False, False)),
    ("a5", "p1", 2, 2, "after_revision", (False, True)),
    ("a6", "p2", 1, 2, "direct", (True, False)),
    ("a7", "p2", 2, 2, "direct", (False, True)),
    ("a8", "p2", 1, 2, None, (False, True)),
]


def _admission_pairs() -> list[tuple[AttemptMetrics, AttemptMetrics]]:
    return [
        (_row(i, p, before, f, r, adm), _row(i, p, after, f, r, adm))
        for i, p, f, r, adm, (before, after) in _ADMISSION_SPEC
    ]


def test_unadjusted_multi_minus_single_is_the_difference_of_group_means() -> None:
    result = stratified_fact_gains(_admission_pairs(), resamples=200, seed=1)[0]
    assert result["strata"] == "none (unadjusted)" and result["n_items"] == 8
    single = (1 + 0 - 1 + 1) / 4  # a1, a3, a6, a8
    multi = (1 + 0 + 1 + 1) / 4  # a2, a4, a5, a7
    assert result["single_fact_gain"]["estimate"] == pytest.approx(single)
    assert result["multi_fact_gain"]["estimate"] == pytest.approx(multi)
    assert result["multi_minus_single"]["estimate"] == pytest.approx(multi - single)
    assert result["multi_minus_single"]["low"] <= multi - single <= result["multi_minus_single"]["high"]


def test_c2_admission_strata_use_known_paths_and_count_the_unknown() -> None:
    result = stratified_fact_gains(_admission_pairs(), resamples=200, seed=1)[2]
    assert result["strata"] == "profile x requirements x admission path"
    assert result["n_unknown_admission"] == 1  # a8 has no admission path
    # strata (p1, 2, direct): single [+1], multi [+1]; (p1, 2, after_revision): single [0], multi [0, +1];
    # (p2, 2, direct): single [-1], multi [+1] -> weights 2/7, 3/7, 2/7
    assert (result["n_items"], result["n_strata"]) == (7, 3)
    single = 2 / 7 * 1 + 3 / 7 * 0 + 2 / 7 * -1
    multi = 2 / 7 * 1 + 3 / 7 * 0.5 + 2 / 7 * 1
    assert result["single_fact_gain"]["estimate"] == pytest.approx(single)
    assert result["multi_fact_gain"]["estimate"] == pytest.approx(multi)


def test_admission_path_comes_from_metadata_then_the_synthesis_label() -> None:
    from agents.metrics.attempts import admission_path

    assert admission_path('{"admission": "after_revision"}', ["admitted_direct"]) == "after_revision"
    assert admission_path({}, ["history_dependent", "admitted_direct"]) == "direct"
    assert admission_path(None, ["admitted_after_revision"]) == "after_revision"
    assert admission_path('{"admission": "sometimes"}', []) is None


def test_quality_is_compared_on_items_the_method_passes_and_the_baseline_fails() -> None:
    from agents.metrics.comparison import compare

    pairs = _admission_pairs()
    for k, (a, b) in enumerate(pairs):
        a.quality["rule_application"] = 2.0
        b.quality["rule_application"] = 3.0 + (k % 2)
    comp = compare(("base", "B", [a for a, _ in pairs]), ("meth", "M", [b for _, b in pairs]), resamples=200)
    rows = {r.subset.split(":")[0]: r for r in comp.quality_on_split}
    # method pass, baseline fail: a1, a2, a5, a7, a8 (k = 0, 1, 4, 6, 7)
    assert rows["rule_application"].n_items == 5
    assert rows["rule_application"].method == pytest.approx((3 + 4 + 3 + 3 + 4) / 5)
    assert rows["rule_application"].baseline == pytest.approx(2.0)
    assert "state_fidelity" not in rows  # no scores, no row
