"""Krippendorff's alpha against hand-worked cases, published values and a reference package."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_rag.stats import LEVELS, alpha_with_interval, krippendorff_alpha

N = None

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section E: four
# observers rate twelve units; unit 12 has a single rating and is not pairable.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_published_values_from_krippendorff_2011(level: str, published: float) -> None:
    alpha = krippendorff_alpha(KRIPPENDORFF_2011, level=level)  # type: ignore[arg-type]
    assert alpha is not None
    assert round(alpha, 3) == published


def test_hand_worked_nominal_two_coders() -> None:
    # Coders A = [1, 1, 2, 2], B = [1, 2, 2, 2]; each unit has m_u = 2, weight 1/(2-1) = 1.
    # Coincidences (ordered pairs): unit1 (1,1)x2; unit2 (1,2),(2,1); units 3,4 (2,2)x2 each.
    #   o11 = 2, o12 = o21 = 1, o22 = 4  -> n1 = 3, n2 = 5, n = 8
    # Observed disagreement sum o_ck (c != k) = 2.
    # Expected sum n_c n_k (c != k) = 2 * 3 * 5 = 30.
    # alpha = 1 - (n - 1) * 2 / 30 = 1 - 7 * 2 / 30 = 1 - 14/30 = 0.5333...
    alpha = krippendorff_alpha([[1, 1, 2, 2], [1, 2, 2, 2]], level="nominal")
    assert alpha == pytest.approx(1 - 14 / 30)


def test_hand_worked_interval_with_missing_rating() -> None:
    # Coders x units; unit 3 has one rating and is dropped, unit 4 has three.
    #   A = [1, 2, 5, 3], B = [1, 3, -, 3], C = [-, -, -, 4]
    # Unit 1: (1,1)x2, weight 1. Unit 2: (2,3),(3,2), weight 1.
    # Unit 4: values {3, 3, 4}, m = 3, weight 1/2: ordered pairs (3,3)x2, (3,4)x2, (4,3)x2
    #   -> o33 += 1, o34 += 1, o43 += 1.
    # o11 = 2, o22 = 0, o23 = o32 = 1, o33 = 1, o34 = o43 = 1.
    # Margins n1 = 2, n2 = 1, n3 = 3, n4 = 1, n = 7.
    # Observed  sum o*d = 2*(1*1) [2-3] + 2*(1*1) [3-4] = 4
    # Expected  sum n_c n_k d over ordered pairs = 2 * [ (1,2): 2*1*1 + (1,3): 2*3*4
    #   + (1,4): 2*1*9 + (2,3): 1*3*1 + (2,4): 1*1*4 + (3,4): 3*1*1 ]
    #   = 2 * (2 + 24 + 18 + 3 + 4 + 3) = 108
    # alpha = 1 - 6 * 4 / 108 = 1 - 24/108 = 0.7777...
    data: list[list[float | None]] = [[1, 2, 5, 3], [1, 3, N, 3], [N, N, N, 4]]
    assert krippendorff_alpha(data, level="interval") == pytest.approx(1 - 24 / 108)
    # NaN is accepted as missing exactly like None.
    with_nan: list[list[float | None]] = [
        [1, 2, 5, 3],
        [1, 3, math.nan, 3],
        [math.nan, math.nan, math.nan, 4],
    ]
    assert krippendorff_alpha(with_nan, level="interval") == pytest.approx(1 - 24 / 108)


def test_perfect_agreement_is_one_and_systematic_disagreement_is_negative() -> None:
    assert krippendorff_alpha([[1, 2, 3, 4], [1, 2, 3, 4]], level="interval") == 1.0
    # Two coders who always pick opposite ends disagree more than chance would.
    opposite = krippendorff_alpha([[1, 5, 1, 5], [5, 1, 5, 1]], level="interval")
    assert opposite is not None and opposite < 0


def test_levels_disagree_where_they_should() -> None:
    # Near misses (3 vs 4) cost little at interval level but a full unit at nominal level,
    # so the same data score higher as interval data.
    data = [[1, 3, 5, 2, 4, 3], [1, 4, 5, 2, 3, 3]]
    nominal = krippendorff_alpha(data, level="nominal")
    interval = krippendorff_alpha(data, level="interval")
    assert nominal is not None and interval is not None
    assert interval > nominal


@pytest.mark.parametrize("level", LEVELS)
def test_undefined_alpha_is_none_not_nan(level: str) -> None:
    # No unit has two ratings.
    assert krippendorff_alpha([[1, N, 3], [N, 2, N]], level=level) is None  # type: ignore[arg-type]
    # All pairable ratings are the same value: expected disagreement is zero.
    assert krippendorff_alpha([[3, 3, 3], [3, 3, N]], level=level) is None  # type: ignore[arg-type]


def test_bad_input_is_rejected_with_a_fix() -> None:
    with pytest.raises(ValueError, match="one of nominal, ordinal, interval, ratio"):
        krippendorff_alpha([[1, 2]], level="cardinal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rectangular"):
        krippendorff_alpha([[1, 2, 3], [1, 2]])
    with pytest.raises(ValueError, match="map category labels to numbers"):
        krippendorff_alpha([["yes", "no"], ["yes", "yes"]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="infinite"):
        krippendorff_alpha([[1.0, math.inf], [1.0, 2.0]])
    with pytest.raises(ValueError, match="non-negative"):
        krippendorff_alpha([[-1, 1], [1, -1]], level="ratio")
    with pytest.raises(ValueError, match="empty"):
        krippendorff_alpha([])


def test_interval_is_seeded_and_brackets_the_estimate() -> None:
    first = alpha_with_interval(KRIPPENDORFF_2011, level="ordinal", resamples=500)
    second = alpha_with_interval(KRIPPENDORFF_2011, level="ordinal", resamples=500)
    assert first == second
    assert first.alpha is not None and first.interval is not None
    assert first.interval.low <= first.alpha <= first.interval.high
    assert first.interval.high <= 1.0
    assert first.n_units == 11  # unit 12 has one rating
    assert first.n_pairable == 40  # 41 ratings minus the lone one
    assert first.interval.n == 11


def test_interval_narrows_with_more_units() -> None:
    rng = np.random.default_rng(9)
    truth = rng.integers(1, 6, size=400)

    def noisy() -> list[float]:
        return list(np.clip(truth + rng.integers(-1, 2, size=truth.size), 1, 5).astype(float))

    data = [noisy(), noisy(), noisy()]
    few = alpha_with_interval([row[:20] for row in data], level="interval", resamples=400)
    many = alpha_with_interval(data, level="interval", resamples=400)
    assert few.interval is not None and many.interval is not None
    assert many.interval.width < few.interval.width


def test_undefined_alpha_has_no_interval() -> None:
    result = alpha_with_interval([[2, 2, 2], [2, 2, 2]], level="nominal")
    assert result.alpha is None
    assert result.interval is None
    assert result.n_units == 3


@pytest.mark.parametrize("level", LEVELS)
def test_matches_krippendorff_package_on_random_matrices(level: str) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(2011)
    for _ in range(25):
        coders = int(rng.integers(2, 6))
        units = int(rng.integers(5, 40))
        data = rng.integers(0, 6, size=(coders, units)).astype(float)
        data[rng.random(size=data.shape) < 0.25] = np.nan
        ours = krippendorff_alpha(data, level=level)  # type: ignore[arg-type]
        try:
            theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        except ValueError:  # the package refuses data with a single distinct value
            theirs = math.nan
        if ours is None:
            assert math.isnan(theirs)
        else:
            assert ours == pytest.approx(theirs, abs=1e-9)
