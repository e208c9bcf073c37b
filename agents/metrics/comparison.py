"""Paired comparisons of two runs over their common items: gains with cluster-bootstrap intervals over
profiles, by task structure (fact count, history pairs, requirement count), on shared-access subsets (both
exposed, both read; paper Sec. 6.3), and stratified common-weight gains (App. C.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel

from agents.metrics.attempts import AttemptMetrics
from agents.metrics.bootstrap import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    Interval,
    cluster_bootstrap,
    cluster_bootstrap_mean,
)
from agents.prompts.judging import QUALITY_DIMENSIONS

Pair = tuple[AttemptMetrics, AttemptMetrics]


def fact_group(n: int) -> str:
    return "no fact" if n == 0 else "single fact" if n == 1 else "multi fact"


def pairs_group(n: int) -> str:
    return "no pair" if n == 0 else "1-2 pairs" if n <= 2 else ">=3 pairs"


def requirement_group(n: int) -> str:
    return f"{n} req." if n < 4 else ">=4 req."


GROUPINGS: dict[str, Callable[[AttemptMetrics], str]] = {
    "fact_count": lambda r: fact_group(r.n_facts),
    "history_pairs": lambda r: pairs_group(r.n_history_pairs),
    "requirements": lambda r: requirement_group(r.n_requirements),
}


class GainRow(BaseModel):
    """Baseline and method values on a subset, and the paired gain (method - baseline) with its interval."""

    subset: str
    n_items: int
    baseline: float | None
    method: float | None
    gain: dict[str, Any]


class Comparison(BaseModel):
    baseline_run: str
    method_run: str
    baseline_label: str
    method_label: str
    n_common_items: int
    n_clusters: int
    # Items both runs planned but not both answered (an endpoint error, or never attempted): left out of every
    # gain, listed with each run's attempt status, so errors never count as real zeros.
    excluded_items: list[dict[str, Any]] = []
    overall: dict[str, GainRow]
    groups: dict[str, list[GainRow]]
    shared_access: list[GainRow]
    stratified: list[dict[str, Any]]
    # Sec. 6.1: answer quality (1-5) of both runs on the items the method passes and the baseline fails
    quality_on_split: list[GainRow] = []


def pair_rows(baseline: list[AttemptMetrics], method: list[AttemptMetrics]) -> list[Pair]:
    """The items both runs answered, paired (errored or unattempted attempts are no data, not zeros)."""
    by_item = {r.item_id: r for r in baseline if r.answered}
    return [(by_item[r.item_id], r) for r in method if r.answered and r.item_id in by_item]


def excluded_items(baseline: list[AttemptMetrics], method: list[AttemptMetrics]) -> list[dict[str, Any]]:
    """Items of both runs that not both answered, with each side's status (`not attempted` when missing)."""
    by_item = {r.item_id: r for r in baseline}
    return [
        {
            "item_id": r.item_id,
            "baseline": by_item[r.item_id].status or "not attempted",
            "method": r.status or "not attempted",
        }
        for r in method
        if r.item_id in by_item and not (r.answered and by_item[r.item_id].answered)
    ]


def _gain(
    pairs: list[Pair], value: Callable[[AttemptMetrics], float | None], subset: str, resamples: int, seed: int
) -> GainRow:
    kept = [(a, b) for a, b in pairs if value(a) is not None and value(b) is not None]
    if not kept:
        return GainRow(subset=subset, n_items=0, baseline=None, method=None, gain={})
    va = [float(value(a)) for a, _ in kept]  # type: ignore[arg-type]
    vb = [float(value(b)) for _, b in kept]  # type: ignore[arg-type]
    interval = cluster_bootstrap_mean(
        [y - x for x, y in zip(va, vb, strict=True)], [a.profile_id for a, _ in kept], resamples=resamples, seed=seed
    )
    return GainRow(
        subset=subset,
        n_items=len(kept),
        baseline=sum(va) / len(va),
        method=sum(vb) / len(vb),
        gain=interval.as_dict(),
    )


def _quality_of(dimension: str) -> Callable[[AttemptMetrics], float | None]:
    def value(r: AttemptMetrics) -> float | None:
        return r.quality.get(dimension)

    return value


def _passed(r: AttemptMetrics) -> float | None:
    """1 for pass, 0 for fail or needs adjudication, None (left out) when no accuracy verdict exists."""
    if r.verdict is None:
        return None
    return 1.0 if r.passed else 0.0


def _turns(r: AttemptMetrics) -> float | None:
    return float(r.turns) if r.answered and r.turns else None


OVERALL_METRICS: dict[str, tuple[Callable[[AttemptMetrics], float | None], str]] = {
    "accuracy": (_passed, "all items"),
    "read_recall": (lambda r: r.read_recall, "items with gold documents"),
    "first_search_hit": (lambda r: float(r.first_search_hit), "all items"),
    "search_hit": (lambda r: float(r.search_hit), "all items"),
    "turns": (_turns, "items answered by both"),
}


def overall_gains(
    pairs: list[Pair],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    judged: bool = True,
    metrics: tuple[str, ...] = tuple(OVERALL_METRICS),
) -> dict[str, GainRow]:
    """The paired gain of each named whole-run metric (accuracy only when both runs were judged)."""
    return {
        name: _gain(pairs, OVERALL_METRICS[name][0], OVERALL_METRICS[name][1], resamples, seed)
        for name in metrics
        if judged or name != "accuracy"
    }


def compare(
    baseline: tuple[str, str, list[AttemptMetrics]],
    method: tuple[str, str, list[AttemptMetrics]],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    judged: bool = True,
) -> Comparison:
    """Everything paired between two runs given as (run_id, label, rows)."""
    pairs = pair_rows(baseline[2], method[2])
    overall = overall_gains(pairs, resamples=resamples, seed=seed, judged=judged)
    groups: dict[str, list[GainRow]] = {}
    if judged:
        for name, grouping in GROUPINGS.items():
            labels = sorted({grouping(b) for _, b in pairs}, key=_group_order)
            groups[name] = [
                _gain([(a, b) for a, b in pairs if grouping(b) == label], _passed, label, resamples, seed)
                for label in labels
            ]
    shared: list[GainRow] = []
    if judged:
        shared = [
            _gain(
                [(a, b) for a, b in pairs if a.gold_exposed and b.gold_exposed],
                _passed,
                "both exposed",
                resamples,
                seed,
            ),
            _gain([(a, b) for a, b in pairs if a.gold_read and b.gold_read], _passed, "both read", resamples, seed),
        ]
    stratified = stratified_fact_gains(pairs, resamples=resamples, seed=seed) if judged else []
    split = [(a, b) for a, b in pairs if b.verdict is not None and a.verdict is not None and b.passed and not a.passed]
    quality_on_split = (
        [
            _gain(split, _quality_of(dim), f"{dim}: method pass, baseline fail", resamples, seed)
            for dim in QUALITY_DIMENSIONS
        ]
        if judged
        else []
    )
    return Comparison(
        baseline_run=baseline[0],
        method_run=method[0],
        baseline_label=baseline[1],
        method_label=method[1],
        n_common_items=len(pairs),
        n_clusters=len({a.profile_id for a, _ in pairs}),
        excluded_items=excluded_items(baseline[2], method[2]),
        overall=overall,
        groups=groups,
        shared_access=shared,
        stratified=stratified,
        quality_on_split=[row for row in quality_on_split if row.n_items],
    )


def _group_order(label: str) -> tuple[int, str]:
    digits = "".join(ch for ch in label if ch.isdigit())
    first = {"no": 0, "single": 1, "multi": 2}.get(label.split()[0])
    return (first if first is not None else int(digits or 0) + (100 if label.startswith(">=") else 0), label)


UNADJUSTED = "none (unadjusted)"
ADMISSION_STRATA = "profile x requirements x admission path"


def stratified_fact_gains(
    pairs: list[Pair], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> list[dict[str, Any]]:
    """Single- vs multi-fact accuracy gains (App. C.2): first unadjusted (one stratum: each group's mean paired
    difference, and multi - single with its interval), then with common stratum weights.

    Strata are profile x requirement count and, second, x admission path of the construction batch (accepted
    directly, or after revision; an augmented item takes its source item's path); only strata holding both
    single- and multi-fact items are kept, and items whose admission path is unknown are left out of the
    second (counted in `n_unknown_admission`). Within a stratum the gain of a group is its mean paired
    difference; both groups are averaged with the same weights (the stratum's item count). Each bootstrap
    resample recomputes the weights and drops strata that lose a group."""
    judged = [(a, b) for a, b in pairs if b.n_facts >= 1 and a.verdict is not None and b.verdict is not None]
    out: list[dict[str, Any]] = []
    for name, key in (
        (UNADJUSTED, lambda r: ()),
        ("profile x requirements", lambda r: (r.profile_id, r.n_requirements)),
        (ADMISSION_STRATA, lambda r: (r.profile_id, r.n_requirements, r.admission)),
    ):
        eligible = [(a, b) for a, b in judged if name != ADMISSION_STRATA or b.admission is not None]
        unknown = len(judged) - len(eligible)
        strata_of = [key(b) for _, b in eligible]
        multi = np.array([b.n_facts >= 2 for _, b in eligible], dtype=bool)
        groups_in: dict[Any, set[bool]] = {}
        for s, is_multi in zip(strata_of, multi, strict=True):
            groups_in.setdefault(s, set()).add(bool(is_multi))
        keep = [i for i, s in enumerate(strata_of) if groups_in[s] == {True, False}]
        if not keep:
            entry: dict[str, Any] = {"strata": name, "n_items": 0, "n_strata": 0}
            if name == ADMISSION_STRATA:
                entry["n_unknown_admission"] = unknown
            out.append(entry)
            continue
        kept_pairs = [eligible[i] for i in keep]
        labels = sorted({strata_of[i] for i in keep}, key=str)
        position = {s: j for j, s in enumerate(labels)}
        stratum = np.array([position[strata_of[i]] for i in keep])
        is_multi = multi[keep]
        diffs = np.array([float(_passed(b) or 0.0) - float(_passed(a) or 0.0) for a, b in kept_pairs])
        clusters = [a.profile_id for a, _ in kept_pairs]
        n_strata = len(labels)
        ind_single = np.zeros((len(keep), n_strata))
        ind_multi = np.zeros((len(keep), n_strata))
        ind_single[np.arange(len(keep))[~is_multi], stratum[~is_multi]] = 1.0
        ind_multi[np.arange(len(keep))[is_multi], stratum[is_multi]] = 1.0

        def gains(
            w: np.ndarray, s: np.ndarray = ind_single, m: np.ndarray = ind_multi, d: np.ndarray = diffs
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            g_single, g_multi = common_weight_gains(w, s, m, d)
            return g_single, g_multi, g_multi - g_single

        single, multi_iv, difference = cluster_bootstrap(gains, clusters, resamples=resamples, seed=seed)
        done: dict[str, Any] = {
            "strata": name,
            "n_items": len(keep),
            "n_strata": n_strata,
            "single_fact_gain": single.as_dict(),
            "multi_fact_gain": multi_iv.as_dict(),
            "multi_minus_single": difference.as_dict(),
        }
        if name == ADMISSION_STRATA:
            done["n_unknown_admission"] = unknown
        out.append(done)
    return out


def strata_shown(entry: dict[str, Any]) -> int | None:
    """The strata count a report prints beside a stratified interval (none for the unadjusted row)."""
    return None if entry.get("strata") == UNADJUSTED else int(entry.get("n_strata") or 0)


def common_weight_gains(
    w: np.ndarray, ind_single: np.ndarray, ind_multi: np.ndarray, diffs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Common-weight gains of the single- and multi-fact groups for each row of item weights `w` (R, N).

    `ind_*` are (N, S) stratum indicators of the group's items; a stratum counts in a row only when both
    groups have weight in it, and then with weight equal to its total item weight."""
    n_s, n_m = w @ ind_single, w @ ind_multi
    d_s, d_m = w @ (ind_single * diffs[:, None]), w @ (ind_multi * diffs[:, None])
    valid = (n_s > 0) & (n_m > 0)
    weight = np.where(valid, n_s + n_m, 0.0)
    total = weight.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        g_s = (weight * np.where(valid, d_s / np.where(n_s > 0, n_s, 1), 0)).sum(axis=1) / total
        g_m = (weight * np.where(valid, d_m / np.where(n_m > 0, n_m, 1), 0)).sum(axis=1) / total
    return g_s, g_m


# Below this many clusters (profiles) a cluster-bootstrap interval is not informative: the report keeps the
# point estimate and says so instead of printing or drawing the interval.
MIN_INFORMATIVE_CLUSTERS = 5


def interval_informative(gain: dict[str, Any]) -> bool:
    """Whether the interval rests on at least MIN_INFORMATIVE_CLUSTERS clusters."""
    return int(gain.get("n_clusters") or 0) >= MIN_INFORMATIVE_CLUSTERS


def interval_text(gain: dict[str, Any], scale: float = 100.0, unit: str = " pp", strata: int | None = None) -> str:
    """`+6.30 pp [3.19, 9.09] (10 clusters)`, with `, S strata kept` for a stratified gain; below 5 clusters
    `+6.30 pp; interval not informative (3 clusters)`; n/a without items."""
    if not gain or gain.get("n_items", 0) == 0 or gain.get("estimate") is None:
        return "n/a"
    est, low, high = (float(gain[k]) * scale for k in ("estimate", "low", "high"))
    clusters = int(gain.get("n_clusters") or 0)
    kept = f", {strata} strata kept" if strata is not None else ""
    if not interval_informative(gain):
        return f"{est:+.2f}{unit}; interval not informative ({clusters} clusters{kept})"
    if np.isnan(low):
        return f"{est:+.2f}{unit} (no interval; {clusters} clusters{kept})"
    return f"{est:+.2f}{unit} [{low:.2f}, {high:.2f}] ({clusters} clusters{kept})"


__all__ = [
    "MIN_INFORMATIVE_CLUSTERS",
    "Comparison",
    "GainRow",
    "Interval",
    "compare",
    "interval_informative",
    "interval_text",
    "overall_gains",
    "pair_rows",
    "strata_shown",
    "stratified_fact_gains",
]
