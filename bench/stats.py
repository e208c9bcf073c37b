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
