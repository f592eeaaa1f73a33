"""Which bar a check is held to, and where that bar came from.

A bar comes, in this order, from the check itself (``threshold=4``), the ini's ``name[mode]`` key,
the ini's ``name`` key when the mode scores on the default mode's scale (a 1-5 bar must not judge a
0-1 mode), and the metric's own default. A check's bar is resolved once, when its plan is made
(:meth:`pytest_rag.session.RagSession.plan`); errors about a bar quote it as the user wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import ConfigError, InputError, RagError
from .metrics.base import Metric
from .metrics.catalog import ALIASES, COMPUTED
from .registry import Registry


def require_threshold(metric: str, threshold: float | None) -> float:
    """The bar of an assertion, which cannot pass or fail without one."""
    __tracebackhide__ = True
    if threshold is None:
        raise InputError(f"{metric} has no default threshold; pass threshold=... to assert on it")
    return threshold


class Thresholds:
    """The ini's thresholds (``rag_thresholds``, ``rag_threshold_*``) read against the registered metrics."""

    def __init__(self, ini: Mapping[str, float], registry: Registry) -> None:
        self.ini = ini
        self.registry = registry

    def bar(
        self, name: str, default: float | None, explicit: float | None, mode: str = "default"
    ) -> float | None:
        """Explicit threshold, else the ini's ``name[mode]``, else the ini's ``name`` when this mode
        scores on the default mode's scale, else ``default``."""
        if explicit is not None:
            return float(explicit)
        if mode != "default":
            if f"{name}[{mode}]" in self.ini:
                return self.ini[f"{name}[{mode}]"]
            if name in self.ini and not self._same_scale_as_default(name, mode):
                return default
        return self.ini.get(name, default)

    def of(self, metric: type[Metric], explicit: float | None) -> float | None:
        """The bar a check of ``metric`` is held to; None when it has none at all."""
        return self.bar(metric.name, metric.default_threshold, explicit, metric.mode)

    def source(self, metric: type[Metric], explicit: float | None) -> str:
        """Where a check's bar came from, as the user wrote it, for an error about it."""
        if explicit is not None:
            return f"threshold={explicit:g}"
        for key in (f"{metric.name}[{metric.mode}]", metric.name):
            if key in self.ini:
                return f"the ini threshold {key} = {self.ini[key]:g}"
        return f"the default threshold {metric.default_threshold}"

    def check_names(self) -> None:
        """A threshold for a metric nobody registered is a typo that would silently leave the default."""
        known = set(self.registry.metric_names()) | set(COMPUTED)
        for key in self.ini:
            name = key.split("[", 1)[0].strip()
            if name in ALIASES and name not in known:
                canonical = ALIASES[name][0]
                raise ConfigError(
                    f"thresholds are keyed by metric name: write {canonical!r} instead of {name!r} in the ini"
                )
            if name not in known:
                raise ConfigError(
                    f"a threshold is set for {name!r}, which is not a registered metric; registered "
                    f"metrics: {', '.join(sorted(known))} (check rag_thresholds and rag_threshold_* in the ini)"
                )

    def _same_scale_as_default(self, name: str, mode: str) -> bool:
        try:
            return self.registry.metric(name, None).scale == self.registry.metric(name, mode).scale
        except RagError:  # no default mode registered: nothing to share a bar with
            return False
