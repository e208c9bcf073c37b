"""Small figures shared by the benchmarks."""

from __future__ import annotations

import math


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank `q` quantile (0..1) of `values`; NaN when there are none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def slope_per_minute(samples: list[tuple[float, float]]) -> float:
    """The least-squares slope of (seconds, value) samples, in value units per minute; NaN for fewer than two
    distinct times."""
    if len(samples) < 2:
        return float("nan")
    n = len(samples)
    mean_t = sum(t for t, _ in samples) / n
    mean_v = sum(v for _, v in samples) / n
    spread = sum((t - mean_t) ** 2 for t, _ in samples)
    if spread == 0:
        return float("nan")
    return 60 * sum((t - mean_t) * (v - mean_v) for t, v in samples) / spread
