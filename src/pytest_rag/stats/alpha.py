"""Krippendorff's alpha: how far do judges (LLM or human) agree beyond chance?

A judge whose scores cannot be reproduced by a second judge, or by itself on a rerun,
measures noise. Alpha is the agreement statistic that copes with what judge data really
look like: any number of coders, missing ratings, and scores that are categories (nominal),
ranks (ordinal, e.g. 1-5 anchors) or measurements (interval, ratio).

The computation follows Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011):

1. Drop units (items) with fewer than two ratings; a lone rating cannot be paired.
2. Build the coincidence matrix ``o[c, k]``: every ordered pair of ratings of the same unit
   from different coders contributes ``1 / (m_u - 1)``, where ``m_u`` is the number of
   ratings of that unit. Its margins ``n_c`` count the pairable values.
3. ``alpha = 1 - (n - 1) * sum(o * d) / sum(n_c * n_k * d)`` for the squared difference
   function ``d`` of the chosen level of measurement.

Alpha is undefined, and we return None, in two cases: no unit has two ratings, or the
pairable ratings contain a single distinct value (expected disagreement is zero, giving
0/0). We return None instead of 1.0 because "everyone said 3" is no evidence that the
judges could tell a 2 from a 4, and never NaN because NaN poisons every later average.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

from pytest_rag.stats.bootstrap import DEFAULT_SEED, Interval

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = get_args(Level)

DEFAULT_ALPHA_RESAMPLES = 2_000

FloatArray = NDArray[np.float64]
ReliabilityData = Sequence[Sequence[float | None]] | NDArray[np.float64]


@dataclass(frozen=True)
class AlphaEstimate:
    """Alpha with its bootstrap interval and the amount of data behind it.

    ``alpha`` and ``interval`` are None when alpha is undefined (see the module docstring);
    the interval is also None when fewer than two units are pairable. ``n_units`` counts the
    units with at least two ratings and ``n_pairable`` the ratings in those units.
    """

    alpha: float | None
    interval: Interval | None
    level: str
    n_units: int
    n_pairable: int


@dataclass(frozen=True)
class _UnitCounts:
    """Reliability data reduced to what alpha needs: per-unit counts of each value."""

    values: FloatArray  # the distinct pairable values, ascending
    counts: FloatArray  # units x values: how many coders gave that value to that unit


def _reliability_matrix(data: ReliabilityData) -> FloatArray:
    """Coders x units float matrix with NaN for missing ratings; rejects anything else odd."""
    rows = data.tolist() if isinstance(data, np.ndarray) else [list(row) for row in data]
    if not rows:
        raise ValueError("reliability data is empty: pass one row per coder, one column per unit")
    width = len(rows[0])
    for index, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"reliability data must be rectangular (coders x units): row 0 has {width} "
                f"units but row {index} has {len(row)}; use None for a missing rating"
            )
    matrix = np.full((len(rows), width), np.nan, dtype=np.float64)
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            if value is None:
                continue
            if isinstance(value, str) or not isinstance(value, (int, float, np.number)):
                raise ValueError(
                    f"rating at coder {i}, unit {j} is {value!r}; ratings must be numbers or "
                    "None (map category labels to numbers first)"
                )
            if math.isinf(float(value)):
                raise ValueError(f"rating at coder {i}, unit {j} is infinite; use None for a missing rating")
            matrix[i, j] = float(value)
    return matrix


def _unit_counts(matrix: FloatArray) -> _UnitCounts:
    present = ~np.isnan(matrix)
    pairable_units = present.sum(axis=0) >= 2
    kept = matrix[:, pairable_units]
    values = np.unique(kept[~np.isnan(kept)])
    counts = np.zeros((kept.shape[1], values.size), dtype=np.float64)
    for unit in range(kept.shape[1]):
        column = kept[:, unit]
        column = column[~np.isnan(column)]
        positions = np.searchsorted(values, column)
        np.add.at(counts[unit], positions, 1.0)
    return _UnitCounts(values=values, counts=counts)


def _coincidences(counts: FloatArray) -> FloatArray:
    """Coincidence matrix ``o[c, k] = sum_u (n_uc n_uk - [c == k] n_uc) / (m_u - 1)``."""
    weights = 1.0 / (counts.sum(axis=1) - 1.0)
    weighted = counts * weights[:, None]
    coincidence: FloatArray = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    return coincidence


def _squared_differences(values: FloatArray, margins: FloatArray, level: str) -> FloatArray:
    """The metric difference function ``delta^2(c, k)`` of each level of measurement."""
    if level == "nominal":
        return 1.0 - np.eye(values.size)
    if level == "interval":
        return np.subtract.outer(values, values) ** 2
    if level == "ratio":
        total = np.add.outer(values, values)
        diff = np.subtract.outer(values, values)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(total == 0.0, 0.0, diff / np.where(total == 0.0, 1.0, total))
        return ratio**2
    # ordinal: distance in cumulative frequency between the two ranks, each end counted
    # as half, i.e. (sum_{g=c..k} n_g - (n_c + n_k) / 2) ** 2 for c <= k.
    cumulative = np.cumsum(margins)
    before = cumulative - margins
    lo = np.minimum.outer(np.arange(values.size), np.arange(values.size))
    hi = np.maximum.outer(np.arange(values.size), np.arange(values.size))
    spanned = cumulative[hi] - before[lo]
    return (spanned - (margins[lo] + margins[hi]) / 2.0) ** 2


def _alpha_from_counts(values: FloatArray, counts: FloatArray, level: str) -> float | None:
    if counts.shape[0] == 0:
        return None
    coincidence = _coincidences(counts)
    margins = coincidence.sum(axis=1)
    n = float(margins.sum())
    delta = _squared_differences(values, margins, level)
    expected = float(margins @ delta @ margins)
    if n <= 1.0 or expected <= 0.0:
        return None
    observed = float((coincidence * delta).sum())
    return 1.0 - (n - 1.0) * observed / expected


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")


def _prepare(data: ReliabilityData, level: str) -> _UnitCounts:
    _check_level(level)
    matrix = _reliability_matrix(data)
    prepared = _unit_counts(matrix)
    if level == "ratio" and prepared.values.size and prepared.values[0] < 0:
        raise ValueError(
            "ratio-level alpha needs non-negative ratings (a true zero); got "
            f"{prepared.values[0]}. Use level='interval' for data with negative values"
        )
    return prepared


def krippendorff_alpha(data: ReliabilityData, level: Level = "ordinal") -> float | None:
    """Krippendorff's alpha of a coders x units reliability matrix.

    ``data`` has one row per coder and one column per unit; a missing rating is None or
    NaN. ``level`` picks the difference function: "nominal" (categories), "ordinal"
    (ranks, the default since judge scores are usually 1-5 anchors), "interval" or
    "ratio". Returns None when alpha is undefined (no unit with two ratings, or no
    variation among the pairable ratings).
    """
    prepared = _prepare(data, level)
    return _alpha_from_counts(prepared.values, prepared.counts, level)


def alpha_with_interval(
    data: ReliabilityData,
    level: Level = "ordinal",
    confidence: float = 0.95,
    resamples: int = DEFAULT_ALPHA_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> AlphaEstimate:
    """Alpha plus a seeded percentile-bootstrap interval that resamples units.

    Units (the rated items) are the independent draws in a judge study, so they are what
    we resample; coders stay fixed. Resamples in which alpha is undefined (every drawn
    unit happens to agree on one value) are skipped; if none is defined the interval is
    None. With few units the interval is wide, which is the point.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    prepared = _prepare(data, level)
    values, counts = prepared.values, prepared.counts
    n_units = counts.shape[0]
    n_pairable = int(counts.sum())
    alpha = _alpha_from_counts(values, counts, level)
    interval: Interval | None = None
    if alpha is not None and n_units >= 2:
        rng = np.random.default_rng(seed)
        estimates: list[float] = []
        for _ in range(resamples):
            drawn = counts[rng.integers(0, n_units, size=n_units)]
            estimate = _alpha_from_counts(values, drawn, level)
            if estimate is not None:
                estimates.append(estimate)
        if estimates:
            tail = (1.0 - confidence) / 2.0
            low, high = np.quantile(np.asarray(estimates), [tail, 1.0 - tail])
            interval = Interval(
                low=float(low),
                high=float(high),
                level=confidence,
                method="unit bootstrap percentile",
                n=n_units,
            )
    return AlphaEstimate(alpha=alpha, interval=interval, level=level, n_units=n_units, n_pairable=n_pairable)
