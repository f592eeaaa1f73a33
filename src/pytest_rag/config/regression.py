"""The options of the end-of-run features (docs/regression.md): results files, suite gates, the
baseline, gold labels, cache import and export, snapshots; registered and read here, all off unless
given, so the package module keeps only the judge's own options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..regression.gate_bars import check_min_alpha, parse_fail_under
from .readers import in_ini_file, ini_value, on_command_line, path_option, read_number


@dataclass(frozen=True)
class RegressionSettings:
    """Options of the end-of-run features (docs/regression.md); all off unless given."""

    reports: tuple[Path, ...] = ()
    fail_under: Mapping[str, float] = field(default_factory=dict)
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


def add_regression_options(group: Any, parser: Any) -> None:
    group.addoption(
        "--rag-report",
        metavar="FILE",
        action="append",
        default=None,
        help="write every check and the aggregates to FILE (.json or .csv; repeat for both)",
    )
    group.addoption(
        "--rag-fail-under",
        metavar="METRIC=VALUE",
        action="append",
        default=None,
        help="fail the session when the lower bound of METRIC's 95%% CI is below VALUE (repeatable)",
    )
    group.addoption(
        "--rag-baseline",
        metavar="FILE",
        default=None,
        help="compare this run with a results file saved by --rag-report (paired bootstrap per metric)",
    )
    group.addoption(
        "--rag-gold",
        metavar="PATH",
        default=None,
        help="JSONL of human scores by test id and metric: report alpha, judge vs gold",
    )
    group.addoption(
        "--rag-min-alpha",
        metavar="ALPHA",
        type=float,
        default=None,
        help="fail the session when the lower bound of alpha (judge vs --rag-gold) is below ALPHA",
    )
    group.addoption(
        "--rag-cache-import",
        metavar="FILE",
        default=None,
        help="load a judgment file (pytest-rag cache export) into the cache before the run",
    )
    group.addoption(
        "--rag-cache-export",
        metavar="FILE",
        default=None,
        help="write the judgment cache to FILE (diffable JSONL) after the run",
    )
    group.addoption(
        "--rag-snapshot-tolerance",
        metavar="TOL",
        default=None,
        help="how far a snapshotted score may move: score points, or 'repeats'; default 0",
    )
    parser.addini(
        "rag_report", "results files to write (.json/.csv), one per line", type="linelist", default=[]
    )
    parser.addini("rag_fail_under", "suite gates as lines of METRIC = VALUE", type="linelist", default=[])
    parser.addini("rag_baseline", "results file to compare this run with", default=None)
    parser.addini("rag_gold", "gold labels (JSONL) for judge-vs-human agreement", default=None)
    parser.addini(
        "rag_min_alpha", "least acceptable lower bound of alpha against the gold labels", default=None
    )
    parser.addini("rag_cache_import", "judgment file to load into the cache before the run", default=None)
    parser.addini("rag_cache_export", "judgment file to write after the run", default=None)
    parser.addini(
        "rag_snapshot_tolerance", "tolerance of snapshotted scores (number or 'repeats')", default=None
    )
    parser.addini(
        "rag_snapshot_default",
        "make pytest-rag's tolerant Amber extension the default of syrupy's snapshot fixture",
        type="bool",
        default=True,
    )


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
        source = in_ini_file("rag_report")
    for report in reports:
        if report.suffix.lower() not in (".json", ".csv"):
            raise ConfigError(f"{source}: {report} must end in .json or .csv (repeat the option for both)")
    cli_bars = config.getoption("rag_fail_under")
    fail_under = (
        parse_fail_under(cli_bars, on_command_line("--rag-fail-under"))
        if cli_bars
        else parse_fail_under(
            [str(x) for x in config.getini("rag_fail_under")], in_ini_file("rag_fail_under")
        )
    )
    min_alpha, alpha_source = config.getoption("rag_min_alpha"), on_command_line("--rag-min-alpha")
    if min_alpha is None:
        alpha_source = in_ini_file("rag_min_alpha")
        min_alpha = read_number(ini_value(config, "rag_min_alpha"), alpha_source, float, -1.0)
    min_alpha = check_min_alpha(min_alpha, alpha_source)
    tolerance = config.getoption("rag_snapshot_tolerance")
    tolerance_source = on_command_line("--rag-snapshot-tolerance")
    if tolerance is None:
        tolerance, tolerance_source = (
            ini_value(config, "rag_snapshot_tolerance"),
            in_ini_file("rag_snapshot_tolerance"),
        )
    if tolerance is not None:
        text = str(tolerance).strip().lower()
        if text != "repeats":
            read_number(text, f"{tolerance_source} (a number or 'repeats')", float, 0.0)
    return RegressionSettings(
        reports=tuple(reports),
        fail_under=fail_under,
        baseline=path_option(config, "rag_baseline", "rag_baseline"),
        gold=path_option(config, "rag_gold", "rag_gold"),
        min_alpha=min_alpha,
        cache_import=path_option(config, "rag_cache_import", "rag_cache_import"),
        cache_export=path_option(config, "rag_cache_export", "rag_cache_export"),
        snapshot_tolerance=None if tolerance is None else str(tolerance).strip(),
        snapshot_default=bool(config.getini("rag_snapshot_default")),
    )
