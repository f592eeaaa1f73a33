"""Bootstrap and Wilson intervals: edge cases, determinism, and real coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_rag.stats import (
    Interval,
    bootstrap_mean_ci,
    bootstrap_statistic_ci,
    proportion_ci,
)


def test_no_values_gives_no_interval() -> None:
    assert bootstrap_mean_ci([]) is None
    assert bootstrap_statistic_ci([], np.median) is None


def test_single_value_gives_degenerate_interval() -> None:
    interval = bootstrap_mean_ci([0.7])
    assert interval is not None
    assert interval.low == interval.high == 0.7
    assert interval.n == 1
    assert interval.width == 0.0


def test_equal_values_give_zero_width_interval_at_that_value() -> None:
    # 0.1 is not exactly representable; averaging 13 copies could drift by an ulp,
    # the interval must still sit exactly on the value.
    interval = bootstrap_mean_ci([0.1] * 13)
    assert interval is not None
    assert (interval.low, interval.high) == (0.1, 0.1)


def test_interval_fields_and_ordering() -> None:
    values = [0.2, 0.4, 0.9, 1.0, 0.5, 0.3, 0.8]
    interval = bootstrap_mean_ci(values, level=0.9, resamples=2000)
    assert interval is not None
    assert interval.level == 0.9
    assert interval.n == 7
    assert interval.method == "percentile bootstrap"
    # The mean is (0.2+0.4+0.9+1.0+0.5+0.3+0.8)/7 = 4.1/7 ≈ 0.586: inside, with spread.
    assert interval.low < 4.1 / 7 < interval.high
    assert min(values) <= interval.low < interval.high <= max(values)


def test_same_values_and_seed_give_identical_interval() -> None:
    values = [0.1, 0.5, 0.55, 0.9, 0.3, 0.75, 0.6, 0.2]
    first = bootstrap_mean_ci(values, resamples=3000)
    second = bootstrap_mean_ci(list(values), resamples=3000)
    assert first == second
    other_seed = bootstrap_mean_ci(values, resamples=3000, seed=1)
    assert other_seed != first


def test_higher_level_gives_wider_interval() -> None:
    values = np.random.default_rng(3).normal(size=25)
    narrow = bootstrap_mean_ci(values, level=0.8, resamples=3000)
    wide = bootstrap_mean_ci(values, level=0.99, resamples=3000)
    assert narrow is not None and wide is not None
    assert wide.low < narrow.low and narrow.high < wide.high


def test_large_sample_is_batched_without_changing_the_answer_shape() -> None:
    # n * resamples = 1e7 cells, more than one batch: the batches must stitch together.
    values = np.random.default_rng(5).uniform(size=5_000)
    interval = bootstrap_mean_ci(values, resamples=2_000)
    assert interval is not None
    # Standard error of the mean of U(0,1) with n = 5000 is sqrt(1/12/5000) ≈ 0.00408,
    # so a 95% interval is about 2 * 1.96 * 0.00408 ≈ 0.0160 wide.
    assert 0.014 < interval.width < 0.018
    assert interval.contains(float(values.mean()))


@pytest.mark.parametrize(
    ("bad", "problem"),
    [([1.0, float("nan"), 2.0], "NaN at index 1"), ([0.5, math.inf], "infinite value at index 1")],
)
def test_non_finite_input_is_rejected_naming_the_problem(bad: list[float], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        bootstrap_mean_ci(bad)


def test_nested_input_and_bad_level_are_rejected() -> None:
    with pytest.raises(ValueError, match="flat sequence"):
        bootstrap_mean_ci([[1.0, 2.0], [3.0, 4.0]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="level must be between 0 and 1"):
        bootstrap_mean_ci([1.0, 2.0], level=95)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_mean_ci([1.0, 2.0], resamples=0)


def _coverage(draw: np.ndarray, true_mean: float) -> float:
    hits = 0
    for sample in draw:
        interval = bootstrap_mean_ci(sample, resamples=2000, seed=11)
        assert interval is not None
        hits += interval.contains(true_mean)
    return hits / len(draw)


def test_coverage_on_normal_data_is_close_to_nominal() -> None:
    # 300 seeded samples of n = 40 from N(2, 1): a 95% interval should cover 2 about 95%
    # of the time; the percentile bootstrap runs a little narrow at n = 40 (theory: about
    # P(|t_39| < 1.96 * sqrt(39/40)) ≈ 0.94; measured 0.932 over 3000 trials). The band
    # 0.90-0.98 is ±2.5 standard errors of a 300-trial coverage estimate around 0.94.
    draws = np.random.default_rng(3).normal(loc=2.0, scale=1.0, size=(300, 40))
    assert 0.90 <= _coverage(draws, 2.0) <= 0.98


def test_coverage_on_skewed_data_is_close_to_nominal() -> None:
    # Exponential with mean 1 is strongly right-skewed, a hard case for any interval.
    draws = np.random.default_rng(202).exponential(scale=1.0, size=(300, 40))
    assert 0.90 <= _coverage(draws, 1.0) <= 0.98


def test_statistic_interval_for_median() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    interval = bootstrap_statistic_ci(values, np.median, resamples=2000)
    assert interval is not None
    # The outlier moves the mean to 22 but the median's interval stays among the data's
    # middle values: bootstrap medians of 5 points are always one of the 5 points, and
    # drawing 3 or more copies of 100 out of 5 happens with probability ≈ 0.058.
    assert interval.low >= 1.0
    assert interval.high <= 100.0
    assert interval.contains(3.0)
    assert bootstrap_statistic_ci([4.0], np.median) == Interval(
        low=4.0, high=4.0, level=0.95, method="percentile bootstrap", n=1
    )


def test_statistic_returning_nan_is_reported() -> None:
    with pytest.raises(ValueError, match="finite number"):
        bootstrap_statistic_ci([1.0, 2.0, 3.0], lambda sample: float("nan"), resamples=10)


def test_wilson_interval_hand_worked() -> None:
    # 8 passes out of 10, z = 1.959964 (95%):
    #   p = 0.8, z²/n = 3.841459/10 = 0.3841459
    #   centre = (0.8 + 0.3841459/2) / 1.3841459 = 0.9920729 / 1.3841459 = 0.716738
    #   half   = (1.959964 / 1.3841459) * sqrt(0.8*0.2/10 + 3.841459/400)
    #          = 1.416011 * sqrt(0.016 + 0.0096036) = 1.416011 * 0.160011 = 0.226577
    #   -> [0.490161, 0.943315]
    interval = proportion_ci(8, 10)
    assert interval is not None
    assert interval.low == pytest.approx(0.490161, abs=1e-5)
    assert interval.high == pytest.approx(0.943315, abs=1e-5)
    assert interval.method == "wilson score"
    assert interval.n == 10


def test_wilson_all_passes_is_not_zero_width() -> None:
    # 20/20: upper bound is 1, lower bound n / (n + z²) = 20 / 23.841459 ≈ 0.838875.
    interval = proportion_ci(20, 20)
    assert interval is not None
    assert interval.high == 1.0
    assert interval.low == pytest.approx(20 / (20 + 1.959964**2), abs=1e-6)
    # Whereas the bootstrap of the same 0/1 outcomes collapses to [1, 1].
    collapsed = bootstrap_mean_ci([1.0] * 20)
    assert collapsed is not None and collapsed.width == 0.0


def test_wilson_no_passes_and_symmetry() -> None:
    none_passed = proportion_ci(0, 10)
    all_passed = proportion_ci(10, 10)
    assert none_passed is not None and all_passed is not None
    assert none_passed.low == 0.0
    assert none_passed.high == pytest.approx(1.0 - all_passed.low)
    assert proportion_ci(0, 0) is None


@pytest.mark.parametrize(("successes", "total"), [(5, 3), (-1, 4), (2, -1)])
def test_wilson_rejects_impossible_counts(successes: int, total: int) -> None:
    with pytest.raises(ValueError, match="0 <= successes <= total"):
        proportion_ci(successes, total)


def test_wilson_rejects_non_integer_counts() -> None:
    with pytest.raises(ValueError, match="integers"):
        proportion_ci(2.5, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="booleans"):
        proportion_ci(True, 4)
