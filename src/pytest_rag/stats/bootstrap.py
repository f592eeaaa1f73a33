"""Confidence intervals for scores aggregated over test cases.

A mean score over 30 questions is an estimate, not a fact; the interval says how far the
mean would move if the questions had been drawn again. Every interval here is seeded, so
the same scores always print the same interval and a report diff only shows real changes.

Two families live here:

* the percentile bootstrap (:func:`bootstrap_mean_ci`, :func:`bootstrap_statistic_ci`) for
  continuous scores, and
* the Wilson score interval (:func:`proportion_ci`) for pass rates. A bootstrap of a 0/1
  variable where every case passed resamples nothing but ones and reports the zero-width
  interval [1, 1], which claims a certainty that 20 passes cannot give; Wilson's interval
  stays honest at the edges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

DEFAULT_SEED = 20241121
"""Seed shared by every bootstrap in pytest-rag, so reruns print identical intervals."""

DEFAULT_RESAMPLES = 10_000

# Upper bound on the number of float64 cells materialised at once when resampling.
_MAX_CELLS_PER_BATCH = 2_000_000

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval.

    ``level`` is the nominal coverage (0.95 for a 95% interval), ``method`` names how the
    interval was built (shown in reports so readers know what they are looking at) and
    ``n`` is the number of observations it rests on.
    """

    low: float
    high: float
    level: float
    method: str
    n: int

    @property
    def width(self) -> float:
        """Distance between the bounds; zero for a degenerate interval."""
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside the closed interval."""
        return self.low <= value <= self.high

    def excludes_zero(self) -> bool:
        """Whether the whole interval lies strictly on one side of zero."""
        return self.low > 0.0 or self.high < 0.0


def as_finite_array(values: Iterable[float], what: str = "values") -> FloatArray:
    """Convert ``values`` to a 1-D float array, refusing NaN, infinities and bad shapes.

    A NaN silently dropped or averaged turns every interval into NaN or, worse, into a
    plausible-looking number computed on fewer cases than the report claims.
    """
    try:
        array = np.asarray(list(values), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be numbers (floats, ints or bools); could not convert: {exc}") from exc
    if array.ndim != 1:
        raise ValueError(f"{what} must be a flat sequence of numbers, got shape {array.shape}")
    bad = ~np.isfinite(array)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        kind = "NaN" if math.isnan(array[index]) else "an infinite value"
        raise ValueError(
            f"{what} contain {kind} at index {index} ({int(bad.sum())} non-finite in total); "
            "drop or repair missing scores before computing an interval"
        )
    return array


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), got {level!r}")


def _check_resamples(resamples: int) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")


def _percentile_bounds(estimates: FloatArray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(estimates, [tail, 1.0 - tail])
    return float(low), float(high)


PERCENTILE = "percentile bootstrap"


def _checked_sample(values: Iterable[float], level: float, resamples: int) -> FloatArray:
    """The values as a finite float array, once the interval's level and resample count are valid."""
    _check_level(level)
    _check_resamples(resamples)
    return as_finite_array(values)


def _degenerate(value: float, level: float, method: str, n: int) -> Interval:
    return Interval(low=value, high=value, level=level, method=method, n=n)


def bootstrap_mean_ci(
    values: Iterable[float],
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval | None:
    """Percentile-bootstrap confidence interval for the mean of ``values``.

    Returns None for no values (there is no mean to bound). One value, or values that
    are all equal, give a zero-width interval at that value: resampling cannot vary
    them, and the report should show the width honestly as zero rather than invent
    spread. Resampling is vectorised in batches so memory stays bounded for large n.
    """
    data = _checked_sample(values, level, resamples)
    n = data.size
    if n == 0:
        return None
    if n == 1 or bool(np.all(data == data[0])):
        return _degenerate(float(data[0]), level, PERCENTILE, n)

    rng = np.random.default_rng(seed)
    batch = max(1, _MAX_CELLS_PER_BATCH // n)
    means = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, batch):
        stop = min(start + batch, resamples)
        indices = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = data[indices].mean(axis=1)
    low, high = _percentile_bounds(means, level)
    # Rounding in the batched means can stray a few ulps outside the data's range.
    low = max(low, float(data.min()))
    high = min(high, float(data.max()))
    return Interval(low=low, high=high, level=level, method=PERCENTILE, n=n)


def bootstrap_statistic_ci(
    values: Iterable[float],
    statistic: Callable[[FloatArray], float],
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval | None:
    """Percentile-bootstrap interval for any statistic of one sample (median, trimmed mean...).

    ``statistic`` receives a resampled 1-D float array and must return a finite number.
    It is called once per resample, so prefer :func:`bootstrap_mean_ci` for the mean.
    Same edge cases as the mean: None for no values, zero width for one value.
    """
    data = _checked_sample(values, level, resamples)
    n = data.size
    if n == 0:
        return None
    if n == 1:
        return _degenerate(_checked_statistic(statistic, data), level, PERCENTILE, n)
    return percentile_interval(resampled_statistic(data, statistic, resamples, seed), level, n)


def resampled_statistic(
    values: Iterable[float],
    statistic: Callable[[FloatArray], float],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> FloatArray:
    """``statistic`` on each of ``resamples`` seeded resamples (with replacement) of ``values``.

    The estimates themselves, for what one interval cannot give: the interval of a mean over
    several samples (average their estimates resample by resample), or a paired difference (the
    same seed and size draw the same resamples, so a statistic of two aligned arrays indexed by
    the resampled positions compares like with like). Pass ``np.arange(n)`` as ``values`` to
    resample positions and index your own arrays with them.
    """
    data = _checked_sample(values, 0.95, resamples)
    if data.size == 0:
        raise ValueError("no values to resample")
    rng = np.random.default_rng(seed)
    estimates = np.empty(resamples, dtype=np.float64)
    for i in range(resamples):
        estimates[i] = _checked_statistic(statistic, data[rng.integers(0, data.size, size=data.size)])
    return estimates


def percentile_interval(estimates: Iterable[float], level: float = 0.95, n: int | None = None) -> Interval:
    """The percentile interval of bootstrap ``estimates`` (from :func:`resampled_statistic`, or an
    average of several); ``n`` is the number of observations behind them (default: unknown, 0)."""
    _check_level(level)
    array = as_finite_array(estimates, "estimates")
    if array.size == 0:
        raise ValueError("no bootstrap estimates to take an interval of")
    low, high = _percentile_bounds(array, level)
    return Interval(low=low, high=high, level=level, method=PERCENTILE, n=0 if n is None else n)


def _checked_statistic(statistic: Callable[[FloatArray], float], sample: FloatArray) -> float:
    result = float(statistic(sample))
    if not math.isfinite(result):
        raise ValueError(
            f"statistic returned {result} on a resample; it must return a finite number "
            "for every non-empty sample"
        )
    return result


def proportion_ci(successes: int, total: int, level: float = 0.95) -> Interval | None:
    """Wilson score interval for a pass rate ``successes / total``.

    Returns None when ``total`` is 0. Unlike a bootstrap or the normal (Wald) interval,
    Wilson's interval has sensible width when every case passed or every case failed:
    20 of 20 passes gives roughly [0.84, 1.0] at 95%, not [1.0, 1.0].
    """
    _check_level(level)
    if isinstance(successes, bool) or isinstance(total, bool):
        raise ValueError("successes and total must be counts (int), not booleans")
    if not isinstance(successes, int) or not isinstance(total, int):
        raise ValueError(
            f"successes and total must be integers, got {type(successes).__name__} and {type(total).__name__}"
        )
    if total < 0 or successes < 0 or successes > total:
        raise ValueError(f"need 0 <= successes <= total, got successes={successes}, total={total}")
    method = "wilson score"
    if total == 0:
        return None
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    p = successes / total
    z2_over_n = z * z / total
    centre = (p + z2_over_n / 2.0) / (1.0 + z2_over_n)
    half = (z / (1.0 + z2_over_n)) * math.sqrt(p * (1.0 - p) / total + z2_over_n / (4.0 * total))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return Interval(low=low, high=high, level=level, method=method, n=total)
