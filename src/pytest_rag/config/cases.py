"""The suite's defaults for the cases of case files (docs/cases.md): the metrics a case without its
own is held to, per question and per conversation turn, and whether its scores are snapshotted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..ground.command_options import IniOption, add_ini_options
from .readers import in_ini_file

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


def read_case_settings(config: Any) -> CaseSettings:
    from ..check_keys import parse_metric_label

    found: dict[str, tuple[str, ...]] = {}
    for ini, default, _ in CASE_METRIC_INIS:
        labels = tuple(str(label) for label in config.getini(ini)) or default
        for label in labels:
            try:
                parse_metric_label(label)
            except ValueError as exc:
                raise ConfigError(f"{in_ini_file(ini)}: {exc}") from None
        found[ini] = labels
    return CaseSettings(
        metrics=found["rag_case_metrics"],
        turn_metrics=found["rag_case_turn_metrics"],
        snapshot=bool(config.getini("rag_case_snapshot")),
    )
