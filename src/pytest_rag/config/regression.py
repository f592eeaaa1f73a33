"""The options of the end-of-run features (docs/regression.md): results files, suite gates, the
baseline, gold labels, cache import and export, snapshots; registered and read here, all off unless
given, so the package module keeps only the judge's own options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..ground.command_options import IniOption, ValueOption, add_pytest_options
from ..regression.gate_bars import check_min_alpha, parse_fail_under
from .readers import (
    in_ini_file,
    ini_flag,
    ini_value,
    lines_option,
    on_command_line,
    option_source,
    path_option,
    read_number,
)


@dataclass(frozen=True)
class RegressionSettings:
    """Options of the end-of-run features (docs/regression.md); all off unless given."""

    reports: tuple[Path, ...] = ()
    fail_under: Mapping[str, float] = field(default_factory=dict)
    fail_under_source: str = ""
    """Where the gates were set (``--rag-fail-under (command line)``), for errors about them."""
    baseline: Path | None = None
    gold: Path | None = None
    min_alpha: float | None = None
    cache_import: Path | None = None
    cache_export: Path | None = None
    snapshot_tolerance: str | None = None
    snapshot_default: bool = True

    def any_requested(self) -> bool:
        """True when an end-of-run file or gate was asked for (so there is work even with no checks)."""
        return bool(
            self.reports
            or self.fail_under
            or self.baseline is not None
            or self.gold is not None
            or self.min_alpha is not None
            or self.cache_export is not None
        )


REGRESSION_OPTIONS = (
    ValueOption(
        "--rag-report",
        "FILE",
        "write every check and the aggregates to FILE (.json or .csv; repeat for both)",
        action="append",
    ),
    ValueOption(
        "--rag-fail-under",
        "METRIC=VALUE",
        "fail the session when the lower bound of METRIC's 95%% CI is below VALUE (repeatable)",
        action="append",
    ),
    ValueOption(
        "--rag-baseline",
        "FILE",
        "compare this run with a results file saved by --rag-report (paired bootstrap per metric)",
    ),
    ValueOption(
        "--rag-gold", "PATH", "JSONL of human scores by test id and metric: report alpha, judge vs gold"
    ),
    ValueOption(
        "--rag-min-alpha",
        "ALPHA",
        "fail the session when the lower bound of alpha (judge vs --rag-gold) is below ALPHA",
        float,
    ),
    ValueOption(
        "--rag-cache-import",
        "FILE",
        "load a judgment file (pytest-rag cache export) into the cache before the run",
    ),
    ValueOption(
        "--rag-cache-export", "FILE", "write the judgment cache to FILE (diffable JSONL) after the run"
    ),
    ValueOption(
        "--rag-snapshot-tolerance",
        "TOL",
        "how far a snapshotted score may move: score points, or 'repeats'; default 0",
    ),
)
"""The end-of-run features' command-line options, in ``pytest --help`` order."""

REGRESSION_INIS = (
    IniOption("rag_report", "results files to write (.json/.csv), one per line", "linelist", []),
    IniOption("rag_fail_under", "suite gates as lines of METRIC = VALUE", "linelist", []),
    IniOption("rag_baseline", "results file to compare this run with"),
    IniOption("rag_gold", "gold labels (JSONL) for judge-vs-human agreement"),
    IniOption("rag_min_alpha", "least acceptable lower bound of alpha against the gold labels"),
    IniOption("rag_cache_import", "judgment file to load into the cache before the run"),
    IniOption("rag_cache_export", "judgment file to write after the run"),
    IniOption("rag_snapshot_tolerance", "tolerance of snapshotted scores (number or 'repeats')"),
    IniOption(
        "rag_snapshot_default",
        "make pytest-rag's tolerant Amber extension the default of syrupy's snapshot fixture",
        "bool",
        True,
    ),
)
"""The end-of-run features' ini keys, in ``pytest --help`` order."""


def add_regression_options(group: Any, parser: Any) -> None:
    add_pytest_options(group, parser, REGRESSION_OPTIONS, REGRESSION_INIS)


def read_regression_settings(config: Any) -> RegressionSettings:
    cli_reports = config.getoption("rag_report") or []
    if cli_reports:
        reports = [Path(str(p)).absolute() for p in cli_reports]
        source = on_command_line("--rag-report")
    else:
        reports = [
            p if p.is_absolute() else Path(str(config.rootpath)) / p
            for p in (Path(str(line).strip()) for line in config.getini("rag_report") if str(line).strip())
        ]
        source = in_ini_file("rag_report", config)
    for report in reports:
        if report.suffix.lower() not in (".json", ".csv"):
            raise ConfigError(f"{source}: {report} must end in .json or .csv (repeat the option for both)")
    bars, fail_under_source = lines_option(config, "rag_fail_under", "rag_fail_under")
    fail_under = parse_fail_under(bars, fail_under_source)
    min_alpha, alpha_source = config.getoption("rag_min_alpha"), on_command_line("--rag-min-alpha")
    if min_alpha is None:
        alpha_source = in_ini_file("rag_min_alpha", config)
        min_alpha = read_number(ini_value(config, "rag_min_alpha"), alpha_source, float, -1.0)
    min_alpha = check_min_alpha(min_alpha, alpha_source)
    tolerance = config.getoption("rag_snapshot_tolerance")
    tolerance_source = on_command_line("--rag-snapshot-tolerance")
    if tolerance is None:
        tolerance, tolerance_source = (
            ini_value(config, "rag_snapshot_tolerance"),
            in_ini_file("rag_snapshot_tolerance", config),
        )
    if tolerance is not None:
        text = str(tolerance).strip().lower()
        if text != "repeats":
            read_number(text, f"{tolerance_source} (a number or 'repeats')", float, 0.0)
    return RegressionSettings(
        reports=tuple(reports),
        fail_under=fail_under,
        fail_under_source=fail_under_source,
        baseline=path_option(config, "rag_baseline", "rag_baseline"),
        gold=path_option(config, "rag_gold", "rag_gold"),
        min_alpha=min_alpha,
        cache_import=path_option(config, "rag_cache_import", "rag_cache_import"),
        cache_export=path_option(config, "rag_cache_export", "rag_cache_export"),
        snapshot_tolerance=None if tolerance is None else str(tolerance).strip(),
        snapshot_default=ini_flag(config, "rag_snapshot_default"),
    )


def check_judgment_files(config: Any, cache_mode: str, regression: RegressionSettings) -> None:
    """``--rag-cache=off`` neither reads nor writes the store: a judgment file loaded into it would
    go unused, and one written from it would hold an older run's judgments, not this run's (or fail
    after every test has run, saying there is no cache)."""
    if cache_mode != "off":
        return
    for option, path, what in (
        ("rag_cache_import", regression.cache_import, "loads judgments into the judgment cache"),
        ("rag_cache_export", regression.cache_export, "writes the judgment cache to a file"),
    ):
        if path is None:
            continue
        raise ConfigError(
            f"{option_source(config, option)} cannot work with --rag-cache=off: it {what}, which that mode neither reads nor "
            "writes. Use --rag-cache=rw (the default; replay to serve only imported judgments), or "
            "drop the option"
        )
