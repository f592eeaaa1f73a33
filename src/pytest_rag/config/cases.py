"""The suite's defaults for the cases of case files (docs/cases.md): the metrics a case without its
own is held to, per question and per conversation turn, and whether its scores are snapshotted."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..ground.command_options import IniOption, add_ini_options
from .readers import in_ini_file, ini_flag

DEFAULT_CASE_METRICS = ("faithfulness", "answer_relevancy", "context_recall", "passage_recall")
DEFAULT_TURN_METRICS = (
    "turn_faithfulness",
    "turn_relevancy",
    "knowledge_retention",
    "conversation_consistency",
)


@dataclass(frozen=True)
class CaseSettings:
    """The suite's defaults for the cases of case files: the metrics a case without its own is held
    to (those that apply to what it holds), per question and per conversation turn, and whether its
    scores are snapshotted."""

    metrics: tuple[str, ...] = DEFAULT_CASE_METRICS
    turn_metrics: tuple[str, ...] = DEFAULT_TURN_METRICS
    snapshot: bool = False


CASE_METRIC_INIS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("rag_case_metrics", DEFAULT_CASE_METRICS, "metrics of a case without its own, where they apply"),
    (
        "rag_case_turn_metrics",
        DEFAULT_TURN_METRICS,
        "metrics of each turn of a conversation case without its own",
    ),
)
"""The ini options naming the metrics a case is held to by default: (option, default, what it names);
declared once for the option's help and for reading it."""


CASE_SNAPSHOT_INI = IniOption(
    "rag_case_snapshot", "compare every case's scores with a snapshot (syrupy)", "bool", False
)


def add_case_options(parser: Any) -> None:
    metric_inis = (
        IniOption(ini, f"{meaning} (default: {' '.join(default)})", "args", [])
        for ini, default, meaning in CASE_METRIC_INIS
    )
    add_ini_options(parser, (*metric_inis, CASE_SNAPSHOT_INI))


def read_case_settings(config: Any, metric_names: Sequence[str] = ()) -> CaseSettings:
    """The cases' defaults; each metric named is checked against ``metric_names`` (the registered
    ones, plugins' included) and the aliases, with a did-you-mean, and a built-in metric's mode
    against its modes: a typo would otherwise fail every case alike, none of them naming the
    setting."""
    from ..check_keys import parse_metric_label

    found: dict[str, tuple[str, ...]] = {}
    for ini, default, _ in CASE_METRIC_INIS:
        labels = tuple(str(label) for label in config.getini(ini)) or default
        for label in labels:
            try:
                name, mode = parse_metric_label(label)
            except ValueError as exc:
                raise ConfigError(f"{in_ini_file(ini, config)}: {exc}") from None
            problem = _unknown_metric(name, mode, metric_names) if metric_names else None
            if problem is not None:
                raise ConfigError(f"{in_ini_file(ini, config)}: {problem}")
        found[ini] = labels
    return CaseSettings(
        metrics=found["rag_case_metrics"],
        turn_metrics=found["rag_case_turn_metrics"],
        snapshot=ini_flag(config, "rag_case_snapshot"),
    )


def _unknown_metric(name: str, mode: str | None, metric_names: Sequence[str]) -> str | None:
    """What is wrong with the metric ``name`` (in ``mode``), or None when it names one."""
    from ..metrics.catalog import ALIASES, CATALOG, DEPRECATED_ALIASES

    known = {*metric_names, *ALIASES, *DEPRECATED_ALIASES}
    if name not in known:
        # the same words in another order first (relevancy_answer), then a metric's own name, then an alias
        words = sorted(name.split("_"))
        close = [m for m in metric_names if sorted(m.split("_")) == words] or (
            difflib.get_close_matches(name, sorted(metric_names), n=1)
            or difflib.get_close_matches(name, sorted(known), n=1)
        )
        hint = f"did you mean {close[0]!r}?" if close else "no registered metric has that name"
        return f"{name!r} is not a registered metric; {hint}"
    modes = {catalog_mode for catalog_name, catalog_mode, _ in CATALOG if catalog_name == name}
    if mode is not None and modes and mode not in modes:
        return f"metric {name!r} has no mode {mode!r}; its modes: {', '.join(sorted(modes))}"
    return None
