"""Cluster bootstrap over profiles (PROTOCOL.md: 20,000 resamples, seed 20261014).

A resample draws as many clusters as there are, with replacement: `numpy.random.default_rng(seed)
.integers(0, C, size=(B, C))` with clusters numbered in sorted label order. A statistic is recomputed on the
pooled items of the drawn clusters (a cluster drawn twice counts twice); the interval is the percentile
interval (linear interpolation) at the given level. Everything is expressed through the (B, C) matrix of
cluster multiplicities, so linear and ratio statistics are cheap matrix products.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# PROTOCOL.md's bootstrap settings; the run record stores them (agents/runs/plan.py reads them from here)
BOOTSTRAP_SEED = 20261014
BOOTSTRAP_RESAMPLES = 20_000


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    n_items: int
    n_clusters: int
    resamples: int
    seed: int
    level: float = 0.95

    def as_dict(self) -> dict[str, float | int]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "n_items": self.n_items,
            "n_clusters": self.n_clusters,
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
        }


def cluster_index(clusters: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Sorted cluster labels and, per item, the index of its cluster."""
    labels = sorted(set(clusters))
    position = {label: i for i, label in enumerate(labels)}
    return labels, np.array([position[c] for c in clusters], dtype=np.int64)


def multiplicities(n_clusters: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """(B, C) counts: how often each cluster was drawn in each resample."""
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(resamples, n_clusters))
    counts = np.zeros((resamples, n_clusters), dtype=np.int64)
    np.add.at(counts, (np.arange(resamples)[:, None], draws), 1)
    return counts


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def cluster_bootstrap_mean(
    values: Sequence[float],
    clusters: Sequence[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> Interval:
    """The item-level mean of `values` (e.g. per-item paired differences) with a cluster-bootstrap interval."""
    if len(values) != len(clusters):
        raise ValueError(f"{len(values)} values but {len(clusters)} cluster labels")
    if not values:
        nan = float("nan")
        return Interval(nan, nan, nan, 0, 0, resamples, seed, level)
    labels, index = cluster_index(clusters)
    x = np.asarray(values, dtype=np.float64)
    sums = np.bincount(index, weights=x, minlength=len(labels))
    counts = np.bincount(index, minlength=len(labels)).astype(np.float64)
    m = multiplicities(len(labels), resamples, seed)
    stats = (m @ sums) / (m @ counts)
    low, high = percentile_interval(stats, level)
    return Interval(float(x.mean()), low, high, len(values), len(labels), resamples, seed, level)


def cluster_bootstrap(
    statistics: Callable[[np.ndarray], Sequence[np.ndarray]],
    clusters: Sequence[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> list[Interval]:
    """General statistics of item weights, one interval each: `statistics(W)` maps a (R, N) matrix of item
    weights (each item weighted by how often its cluster was drawn) to one array of R values per statistic;
    row 0 of the estimate call is all ones. The resampled weights are built once for all the statistics."""
    labels, index = cluster_index(clusters)
    estimates = [float(values[0]) for values in statistics(np.ones((1, len(clusters))))]
    m = multiplicities(len(labels), resamples, seed)
    intervals = []
    for estimate, stats in zip(estimates, statistics(m[:, index].astype(np.float64)), strict=True):
        low, high = percentile_interval(stats, level)
        intervals.append(Interval(estimate, low, high, len(clusters), len(labels), resamples, seed, level))
    return intervals
