"""How much does one metric move when the same query is run several times?

A RAG pipeline with a sampling LLM gives different answers to the same question, so a
single score can be luck. Open RAG Eval's consistency report summarises repeated runs by
their mean, variance and coefficient of variation (lower = steadier); this is that
arithmetic, with the small-sample cases spelled out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from pytest_rag.stats.bootstrap import as_finite_array


@dataclass(frozen=True)
class Dispersion:
    """Spread of one metric over ``n`` repeated runs.

    ``variance`` is the sample variance (ddof=1), the unbiased estimate for the population
    of possible runs. With a single run it is reported as 0.0, because no spread has been
    observed; that is not evidence of stability, so check ``n`` before trusting it.
    ``coefficient_of_variation`` is std / |mean|, None when the mean is 0 (undefined).
    """

    n: int
    mean: float
    variance: float
    std: float
    coefficient_of_variation: float | None


def dispersion(values: Iterable[float]) -> Dispersion:
    """Mean, sample variance, standard deviation and coefficient of variation of runs."""
    runs = as_finite_array(values, "run scores")
    if runs.size == 0:
        raise ValueError("dispersion needs at least one run score; got none")
    mean = float(np.mean(runs))
    variance = float(np.var(runs, ddof=1)) if runs.size > 1 else 0.0
    std = math.sqrt(variance)
    cv = None if mean == 0.0 else std / abs(mean)
    return Dispersion(n=int(runs.size), mean=mean, variance=variance, std=std, coefficient_of_variation=cv)
