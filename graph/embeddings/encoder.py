"""The Encoder protocol every embedding runtime implements, and the vector conventions it promises."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Encoder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    `encoder_id` names the vector space (model weights + runtime) and is known without loading the model;
    two encoders with the same id produce interchangeable vectors. `dim` is also known without loading.
    """

    @property
    def encoder_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Return a float32 array of shape (len(texts), dim), one unit-length row per text, in input order."""
        ...


def l2_normalise(vectors: npt.ArrayLike) -> Vectors:
    """Rows of `vectors` as float32 scaled to unit L2 norm (all-zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    # Dividing by a tiny floor keeps zero rows at zero instead of NaN.
    return np.ascontiguousarray(matrix / np.maximum(norms, np.float32(1e-12)), dtype=np.float32)


def empty_vectors(dim: int) -> Vectors:
    """The (0, dim) float32 result of encoding no texts."""
    return np.zeros((0, dim), dtype=np.float32)


def check_vectors(vectors: Vectors, count: int, dim: int, who: str) -> Vectors:
    """Return `vectors` if it is float32 of shape (count, dim); raise ValueError naming `who` otherwise."""
    if vectors.dtype != np.float32 or vectors.shape != (count, dim):
        raise ValueError(f"{who} returned {vectors.dtype} {vectors.shape}, expected float32 ({count}, {dim})")
    return vectors
