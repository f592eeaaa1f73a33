"""The judges and metrics available in this session, gathered from the plugin hooks."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ConfigError
from .judges.protocol import JudgeFactory
from .metrics.base import Metric
from .metrics.catalog import ALIASES


class Registry:
    def __init__(self) -> None:
        self.providers: dict[str, JudgeFactory] = {}
        self.metrics: dict[tuple[str, str], type[Metric]] = {}

    @classmethod
    def from_hook(cls, hook: Any) -> Registry:
        registry = cls()
        for provided in hook.pytest_rag_judge_providers():
            registry.add_providers(provided)
        for metric_classes in hook.pytest_rag_metrics():
            registry.add_metrics(metric_classes)
        return registry

    def add_providers(self, provided: Mapping[str, JudgeFactory]) -> None:
        for name, factory in provided.items():
            key = name.lower()
            if key in self.providers and self.providers[key] is not factory:
                raise ConfigError(f"two plugins register the judge provider {key!r}; rename one of them")
            self.providers[key] = factory

    def add_metrics(self, classes: Iterable[type[Metric]]) -> None:
        for metric in classes:
            if not (isinstance(metric, type) and issubclass(metric, Metric)):
                raise ConfigError(f"pytest_rag_metrics returned {metric!r}, which is not a Metric subclass")
            key = (metric.name, metric.mode)
            if key in self.metrics and self.metrics[key] is not metric:
                raise ConfigError(f"two plugins register metric {metric.name!r} mode {metric.mode!r}")
            self.metrics[key] = metric

    def metric(self, name: str, mode: str | None = None) -> type[Metric]:
        wanted = mode or "default"
        found = self.metrics.get((name, wanted))
        if found is not None:
            return found
        modes = sorted(m for (n, m) in self.metrics if n == name)
        if modes:
            raise ConfigError(f"metric {name!r} has no mode {wanted!r}; its modes: {', '.join(modes)}")
        names = sorted({n for (n, _) in self.metrics})
        close = difflib.get_close_matches(name, [*names, *ALIASES], n=1)
        if close:
            raise ConfigError(f"unknown metric {name!r}; did you mean {close[0]!r}?")
        raise ConfigError(f"unknown metric {name!r}; registered metrics: {', '.join(names)}")

    def metric_names(self) -> list[str]:
        return sorted({n for (n, _) in self.metrics})
