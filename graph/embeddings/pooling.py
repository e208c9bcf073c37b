"""Mean pooling of token vectors, as sentence-transformers' Pooling(mean) module computes it."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def mean_pool(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """Average of `hidden` (batch, tokens, dim) over the tokens where `mask` (batch, tokens) is 1.

    Padding is excluded and the token count is clamped at 1e-9, exactly like sentence-transformers.
    """
    weights = mask.astype(np.float32)
    summed = np.einsum("bld,bl->bd", hidden, weights)
    return np.asarray(summed / np.maximum(weights.sum(axis=1, keepdims=True), np.float32(1e-9)), np.float32)
