"""Which bar a check is held to, and where that bar came from.

A bar comes, in this order, from the check itself (``threshold=4``), the ini's ``name[mode]`` key,
the ini's ``name`` key when the mode scores on the default mode's scale (a 1-5 bar must not judge a
0-1 mode), and the metric's own default. A check's bar is resolved once, when its plan is made
(:meth:`pytest_rag.run.session.RagSession.plan`); errors about a bar quote it as the user wrote it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from ..errors import ConfigError, InputError, RagError
from ..metrics.base import Metric
from ..metrics.catalog import ALIASES, COMPUTED
from ..registry import Registry


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

    def check(self, sources: Mapping[str, str]) -> None:
        """Every ini threshold names a registered metric (and mode) and lies on its scale. Checked once,
        at start-up: a typo must not silently leave the default in place, and a bar off the scale
        would fail (or pass) every check of the metric. ``sources`` names each as the user set it."""
        known = set(self.registry.metric_names()) | set(COMPUTED)
        for key, value in self.ini.items():
            where = sources.get(key, key)
            name, _, bracket = key.partition("[")
            name, mode = name.strip(), bracket.rstrip("]").strip() or None
            if name in ALIASES and name not in known:
                raise ConfigError(
                    f"{where}: thresholds are keyed by metric name: write {ALIASES[name][0]!r}, not {name!r}"
                )
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = (
                    f"; did you mean {close[0]!r}?"
                    if close
                    else f"; registered metrics: {', '.join(sorted(known))}"
                )
                raise ConfigError(f"{where}: {name!r} is not a registered metric{hint}")
            if name in COMPUTED:
                continue
            try:
                metric = self.registry.metric(name, mode)
            except ConfigError as exc:
                if mode is not None:
                    raise ConfigError(f"{where}: {exc}") from None
                continue  # no default mode to share the bar with: it applies to no check
            if metric.scale_for is Metric.scale_for:  # else the scale comes with each check (rubric)
                metric().check_threshold(value, {}, where)

    def _same_scale_as_default(self, name: str, mode: str) -> bool:
        try:
            return self.registry.metric(name, None).scale == self.registry.metric(name, mode).scale
        except RagError:  # no default mode registered: nothing to share a bar with
            return False
