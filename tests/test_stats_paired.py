"""Paired bootstrap of run-vs-baseline differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_rag.stats import paired_bootstrap_difference


def _cases(values: np.ndarray) -> dict[str, float]:
    return {f"case-{i:03d}": float(v) for i, v in enumerate(values)}


def test_hand_worked_means_and_key_bookkeeping() -> None:
    before = {"a": 0.5, "b": 0.7, "c": 0.9, "gone": 0.1}
    after = {"a": 0.6, "b": 0.9, "c": 0.9, "new": 1.0}
    result = paired_bootstrap_difference(before, after, resamples=2000)
    # Shared a, b, c: before mean (0.5+0.7+0.9)/3 = 0.7, after (0.6+0.9+0.9)/3 = 0.8,
    # differences 0.1, 0.2, 0.0 -> delta 0.1.
    assert result.n_shared == 3
    assert result.mean_before == pytest.approx(0.7)
    assert result.mean_after == pytest.approx(0.8)
    assert result.delta == pytest.approx(0.1)
    assert result.only_before == ("gone",)
    assert result.only_after == ("new",)
    assert result.interval is not None
    assert result.interval.n == 3
    # Bootstrap means of {0.1, 0.2, 0.0} lie in [0.0, 0.2].
    assert 0.0 <= result.interval.low <= 0.1 <= result.interval.high <= 0.2 + 1e-12


def test_real_shift_is_flagged_significant() -> None:
    rng = np.random.default_rng(42)
    hardness = rng.uniform(0.2, 0.9, size=60)  # per-question difficulty, shared by both runs
    before = hardness + rng.normal(0.0, 0.05, size=60)
    after = hardness + 0.08 + rng.normal(0.0, 0.05, size=60)
    result = paired_bootstrap_difference(_cases(before), _cases(after), resamples=4000)
    assert result.significant
    assert result.interval is not None and result.interval.low > 0
    assert result.delta == pytest.approx(0.08, abs=0.03)


def test_pure_noise_is_not_flagged() -> None:
    # Ten seeded noise-only comparisons: at 95% we expect about one false alarm in twenty;
    # these seeds give none, and a broken test (e.g. unpaired or too-narrow) would flag many.
    flagged = 0
    for seed in range(10):
        rng = np.random.default_rng(1000 + seed)
        hardness = rng.uniform(0.2, 0.9, size=50)
        before = hardness + rng.normal(0.0, 0.05, size=50)
        after = hardness + rng.normal(0.0, 0.05, size=50)
        result = paired_bootstrap_difference(_cases(before), _cases(after), resamples=2000)
        assert result.interval is not None
        flagged += result.significant
    assert flagged <= 1


def test_pairing_detects_what_unpaired_means_would_hide() -> None:
    # Question difficulty varies far more (0.0-1.0) than the improvement (0.02), so the
    # two means overlap heavily, but every single question improved.
    hardness = np.linspace(0.0, 0.95, 40)
    result = paired_bootstrap_difference(_cases(hardness), _cases(hardness + 0.02))
    assert result.significant
    assert result.interval is not None
    assert result.interval.low == pytest.approx(0.02)
    assert result.interval.high == pytest.approx(0.02)


def test_order_of_mapping_does_not_change_the_result() -> None:
    rng = np.random.default_rng(8)
    before = _cases(rng.uniform(size=30))
    after = _cases(rng.uniform(size=30))
    reversed_before = dict(reversed(list(before.items())))
    assert paired_bootstrap_difference(before, after) == paired_bootstrap_difference(reversed_before, after)


def test_no_shared_cases() -> None:
    result = paired_bootstrap_difference({"a": 1.0}, {"b": 0.0})
    assert result.n_shared == 0
    assert result.delta is None and result.mean_before is None and result.mean_after is None
    assert result.interval is None
    assert not result.significant
    assert result.only_before == ("a",) and result.only_after == ("b",)


def test_single_shared_case_is_never_significant() -> None:
    result = paired_bootstrap_difference({"a": 0.1}, {"a": 0.9})
    assert result.delta == pytest.approx(0.8)
    assert result.interval is not None and result.interval.width == 0.0
    assert not result.significant


def test_non_finite_score_names_the_case() -> None:
    with pytest.raises(ValueError, match=r"baseline score for case 'b' is nan"):
        paired_bootstrap_difference({"a": 0.1, "b": math.nan}, {"a": 0.2, "b": 0.3})
    with pytest.raises(ValueError, match=r"current run score for case 'a' is not a number"):
        paired_bootstrap_difference({"a": 0.1}, {"a": "high"})  # type: ignore[dict-item]
