"""Similarity of embedding vectors, the arithmetic behind every metric that compares meanings.

Vectors arrive as rows of a float32 matrix (see :mod:`pytest_rag.judges.embeddings`); the cosine is
computed by numpy in float64, a few microseconds for 1,536 dimensions where a Python loop took
hundreds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray


def cosine(a: Sequence[float] | NDArray[Any], b: Sequence[float] | NDArray[Any]) -> float:
    """Cosine similarity in [-1, 1]; 0.0 when either vector is all zeros (a text without words)."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"cannot compare vectors of {x.size} and {y.size} dimensions")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):  # a clamp below would turn NaN into 1.0
        raise ValueError("cannot compare vectors that are not finite (NaN or infinite components)")
    norm = float(np.sqrt(x @ x) * np.sqrt(y @ y))
    if norm == 0.0:
        return 0.0
    return max(-1.0, min(1.0, float(x @ y) / norm))
