"""Similarity of embedding vectors, the arithmetic behind every metric that compares meanings."""

from __future__ import annotations

import math
from collections.abc import Sequence


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity in [-1, 1]; 0.0 when either vector is all zeros (a text without words)."""
    if len(a) != len(b):
        raise ValueError(f"cannot compare vectors of {len(a)} and {len(b)} dimensions")
    if not all(math.isfinite(x) for x in (*a, *b)):  # min/max below would turn NaN into 1.0
        raise ValueError("cannot compare vectors that are not finite (NaN or infinite components)")
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    if norm == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot / norm))
