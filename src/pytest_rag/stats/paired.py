"""Did a change move the scores, or is the difference noise? (used by ``--rag-baseline``)

Comparing a run against a stored baseline case by case is far more sensitive than
comparing two means: each question is its own control, so the spread between easy and
hard questions cancels out. We bootstrap the mean of the per-case differences over the
cases both runs scored; cases present on one side only are reported, never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pytest_rag.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap_mean_ci,
)

MIN_PAIRS_FOR_SIGNIFICANCE = 2
"""A single shared case yields a zero-width interval; never call that significant."""


@dataclass(frozen=True)
class PairedDifference:
    """Outcome of comparing two runs on the cases they share.

    ``delta`` is ``mean_after - mean_before`` over the shared cases (positive = the new
    run scores higher) and ``interval`` bounds it. ``significant`` is True only when the
    interval excludes zero and at least :data:`MIN_PAIRS_FOR_SIGNIFICANCE` cases are
    shared. The percentile bootstrap runs narrow with very few pairs (under about ten),
    so read a "significant" verdict on a handful of cases with care. The means and
    ``delta`` are None when no case is shared.
    """

    n_shared: int
    mean_before: float | None
    mean_after: float | None
    delta: float | None
    interval: Interval | None
    significant: bool
    only_before: tuple[str, ...]
    only_after: tuple[str, ...]


def paired_bootstrap_difference(
    before: Mapping[str, float],
    after: Mapping[str, float],
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedDifference:
    """Paired percentile-bootstrap interval for ``after - before`` over shared keys.

    Keys are processed in sorted order, so the result does not depend on the order in
    which the mappings were filled. Scores must be finite numbers.
    """
    shared = sorted(set(before) & set(after))
    only_before = tuple(sorted(set(before) - set(after)))
    only_after = tuple(sorted(set(after) - set(before)))
    before_values = _scores_for(before, shared, "baseline")
    after_values = _scores_for(after, shared, "current run")
    if not shared:
        return PairedDifference(
            n_shared=0,
            mean_before=None,
            mean_after=None,
            delta=None,
            interval=None,
            significant=False,
            only_before=only_before,
            only_after=only_after,
        )
    differences = after_values - before_values
    interval = bootstrap_mean_ci(differences, level=level, resamples=resamples, seed=seed)
    significant = (
        interval is not None and len(shared) >= MIN_PAIRS_FOR_SIGNIFICANCE and interval.excludes_zero()
    )
    return PairedDifference(
        n_shared=len(shared),
        mean_before=float(np.mean(before_values)),
        mean_after=float(np.mean(after_values)),
        delta=float(np.mean(differences)),
        interval=interval,
        significant=significant,
        only_before=only_before,
        only_after=only_after,
    )


def _scores_for(scores: Mapping[str, float], keys: list[str], side: str) -> NDArray[np.float64]:
    """The scores of ``keys`` in order, naming the first case whose score is unusable."""
    out = np.empty(len(keys), dtype=np.float64)
    for i, key in enumerate(keys):
        try:
            value = float(scores[key])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{side} score for case {key!r} is not a number: {exc}") from exc
        if not math.isfinite(value):
            raise ValueError(
                f"{side} score for case {key!r} is {value}; scores must be finite numbers, "
                "so drop or re-run that case before comparing"
            )
        out[i] = value
    return out
