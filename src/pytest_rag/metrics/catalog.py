"""Every built-in metric, in the order docs/metrics.md lists them (registered by builtin.py)."""

from __future__ import annotations

from .base import Metric
from .single import SINGLE_JUDGMENT_METRICS

ALL_METRICS: tuple[type[Metric], ...] = (*SINGLE_JUDGMENT_METRICS,)
