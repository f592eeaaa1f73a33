"""Honest statistics for judged scores: confidence intervals, paired comparisons, agreement.

Everything here is pure numpy and seeded, so the same scores always print the same numbers.
"""

from pytest_rag.stats.alpha import (
    LEVELS,
    AlphaEstimate,
    Level,
    alpha_with_interval,
    krippendorff_alpha,
)
from pytest_rag.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap_mean_ci,
    bootstrap_statistic_ci,
    percentile_interval,
    proportion_ci,
    resampled_statistic,
)
from pytest_rag.stats.paired import PairedDifference, paired_bootstrap_difference

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "LEVELS",
    "AlphaEstimate",
    "Interval",
    "Level",
    "PairedDifference",
    "alpha_with_interval",
    "bootstrap_mean_ci",
    "bootstrap_statistic_ci",
    "krippendorff_alpha",
    "paired_bootstrap_difference",
    "percentile_interval",
    "proportion_ci",
    "resampled_statistic",
]
