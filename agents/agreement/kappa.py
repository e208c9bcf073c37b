"""Raw agreement and Cohen's kappa of two raters over the same attempts, with a cluster-bootstrap interval.

po = share of attempts both raters labelled the same; pe = sum over labels of p_A(label) * p_B(label) (each
rater's marginal share); kappa = (po - pe) / (1 - pe). When pe == 1 (both raters gave one and the same label
to everything) kappa is undefined and reported as None (n/a), never as 1 or NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from agents.metrics.bootstrap import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    Interval,
    cluster_index,
    multiplicities,
    percentile_interval,
)

# pe within this distance of 1 counts as 1 (floating sums of shares)
_PE_ONE = 1e-12


class Agreement(BaseModel):
    """Agreement of rater A and rater B on n paired labels; kappa None when undefined (pe == 1)."""

    n: int
    n_agree: int
    po: float | None
    pe: float | None
    kappa: float | None
    labels: list[str]
    # the kappa's cluster-bootstrap interval ({} when not computed): Interval.as_dict() of agents/metrics/bootstrap
    kappa_interval: dict[str, Any] = {}


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> Agreement:
    """Raw agreement and Cohen's kappa of (label_a, label_b) pairs."""
    labels = sorted({label for pair in pairs for label in pair})
    n = len(pairs)
    if n == 0:
        return Agreement(n=0, n_agree=0, po=None, pe=None, kappa=None, labels=labels)
    agree = sum(1 for a, b in pairs if a == b)
    po = agree / n
    pe = sum((sum(1 for a, _ in pairs if a == x) / n) * (sum(1 for _, b in pairs if b == x) / n) for x in labels)
    kappa = None if pe >= 1.0 - _PE_ONE else (po - pe) / (1.0 - pe)
    return Agreement(n=n, n_agree=agree, po=po, pe=pe, kappa=kappa, labels=labels)


def kappa_from_counts(m: np.ndarray, n: np.ndarray, agree: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kappa for each row of cluster multiplicities `m` (R, C), from per-cluster counts: `n` (C,) pairs,
    `agree` (C,) agreeing pairs, `a` / `b` (C, L) label counts of each rater. NaN where pe == 1 (the
    bootstrap's percentiles skip NaN)."""
    total = m @ n
    safe = np.where(total > 0, total, 1.0)
    po = (m @ agree) / safe
    pe = ((m @ a) / safe[:, None] * ((m @ b) / safe[:, None])).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (po - pe) / (1.0 - pe)
    return np.where((total > 0) & (pe < 1.0 - _PE_ONE), kappa, np.nan)


def kappa_with_interval(
    pairs: Sequence[tuple[str, str]],
    clusters: Sequence[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> Agreement:
    """`cohen_kappa` plus a cluster-bootstrap percentile interval of kappa (clusters: e.g. profiles), drawn as in
    agents/metrics/bootstrap.py and computed on the pooled pairs of each resample (through per-cluster counts,
    so the cost does not grow with the number of pairs); resamples where kappa is undefined are left out."""
    if len(pairs) != len(clusters):
        raise ValueError(f"{len(pairs)} label pairs but {len(clusters)} cluster labels")
    result = cohen_kappa(pairs)
    if result.n == 0:
        return result
    names, index = cluster_index(clusters)
    position = {label: i for i, label in enumerate(result.labels)}
    n = np.bincount(index, minlength=len(names)).astype(np.float64)
    agree = np.bincount(index, weights=[float(x == y) for x, y in pairs], minlength=len(names))
    a = np.zeros((len(names), len(result.labels)))
    b = np.zeros((len(names), len(result.labels)))
    for cluster, (x, y) in zip(index, pairs, strict=True):
        a[cluster, position[x]] += 1.0
        b[cluster, position[y]] += 1.0
    stats = kappa_from_counts(multiplicities(len(names), resamples, seed), n, agree, a, b)
    low, high = percentile_interval(stats, level)
    estimate = float("nan") if result.kappa is None else result.kappa
    data: dict[str, Any] = Interval(estimate, low, high, result.n, len(names), resamples, seed, level).as_dict()
    for key in ("estimate", "low", "high"):
        if not np.isfinite(data[key]):
            data[key] = None  # undefined (pe == 1), or no resample with a defined kappa
    return result.model_copy(update={"kappa_interval": data})
