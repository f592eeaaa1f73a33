"""Reading pytest-rag's settings from the command line, ini file and environment, in that order.

Everything is registered in :func:`add_options` (called from ``pytest_addoption``) and read once into
an immutable :class:`RagSettings`. Nothing heavy is imported here: installing pytest-rag costs a suite
that does not use it only the registration of these options.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine.cache import CACHE_MODES, DEFAULT_CACHE_DIR, check_mode
from .engine.limits import BatchSettings, EngineSettings
from .errors import ConfigError
from .judges.protocol import JudgeOptions
from .metrics.catalog import metric_names
from .regression.gate_bars import check_min_alpha, parse_fail_under

DEFAULT_JUDGE = "local"
ENGINE = EngineSettings()
JUDGE = JudgeOptions()
BATCH = BatchSettings()


@dataclass(frozen=True)
class RagSettings:
    judge: str | None
    judge_source: str
    base_url: str | None
    base_url_source: str = "--rag-judge-base-url (command line)"
    repeats: int = 1
    cache_mode: str = "rw"
    cache_dir: Path = Path(DEFAULT_CACHE_DIR)
    limits: EngineSettings = field(default_factory=EngineSettings)
    judge_options: JudgeOptions = field(default_factory=JudgeOptions)
    summary: bool = True
    regression: RegressionSettings = field(default_factory=lambda: RegressionSettings())
    thresholds: Mapping[str, float] = field(default_factory=dict)
    threshold_sources: Mapping[str, str] = field(default_factory=dict)
    """Where each of ``thresholds`` was set, as errors about it name it (``rag_thresholds (ini file): ...``)."""
    threshold_keys: tuple[str, ...] = ()
    """The ``rag_threshold_*`` keys the ini file sets, registered or not (a typo is checked at start-up)."""
    prices: tuple[str, ...] = ()
    rpm: float | None = None
    tpm: float | None = None
    dry_run: bool = False
    budget_usd: float | None = None
    html_path: Path | None = None
    batch: BatchSettings = field(default_factory=BatchSettings)
    pass_on: str = "score"
    cases: CaseSettings = field(default_factory=lambda: CaseSettings())

    @property
    def checked_at_startup(self) -> bool:
        """True when a setting must be checked before any test runs (:mod:`pytest_rag.run.startup`): a
        judge spec other than the default, a base URL, thresholds, prices, files to write. A suite on
        the default settings skips those checks and their imports."""
        regression = self.regression
        return bool(
            self.judge != DEFAULT_JUDGE
            or self.base_url is not None
            or self.thresholds
            or self.threshold_keys
            or self.prices
            or self.html_path is not None
            or regression.reports
            or regression.cache_export is not None
        )


def add_options(parser: Any) -> None:
    group = parser.getgroup("rag", "pytest-rag: judged assertions for RAG answers")
    group.addoption(
        "--rag-judge",
        metavar="SPEC",
        default=None,
        help="judge(s) as PROVIDER:MODEL[@URL], comma-separated; default local (offline); env PYTEST_RAG_JUDGE",
    )
    group.addoption(
        "--rag-judge-base-url",
        metavar="URL",
        default=None,
        help="server for judges naming none (vLLM, llama.cpp, a proxy); per judge: --rag-judge=P:MODEL@URL",
    )
    group.addoption(
        "--rag-judge-repeat",
        metavar="N",
        type=int,
        default=None,
        help="independent judgments per check, scored by their median (default 1)",
    )
    group.addoption(
        "--rag-cache",
        metavar="MODE",
        default=None,
        choices=CACHE_MODES,
        help="judgment cache mode: rw (default), ro, replay (a miss fails), refresh, off",
    )
    group.addoption(
        "--rag-cache-dir",
        metavar="DIR",
        default=None,
        help="judgment cache directory (default .rag_cache under the rootdir)",
    )
    group.addoption(
        "--rag-concurrency",
        metavar="N",
        type=int,
        default=None,
        help=f"most judge calls in flight at once (default {ENGINE.concurrency})",
    )
    group.addoption(
        "--rag-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help=f"timeout of one judge request (default {JUDGE.timeout_s:g})",
    )
    group.addoption(
        "--rag-deadline",
        metavar="SECONDS",
        type=float,
        default=None,
        help=f"time one judgment may take including retries (default {ENGINE.deadline_s:g})",
    )
    group.addoption(
        "--rag-max-attempts",
        metavar="N",
        type=int,
        default=None,
        help=f"attempts per judge call on rate limits, 5xx and timeouts (default {ENGINE.max_attempts})",
    )
    group.addoption(
        "--rag-max-tokens",
        metavar="N",
        type=int,
        default=None,
        help="most tokens a judge may write per reply (default: each metric's own, 1024 or 2048)",
    )
    group.addoption(
        "--rag-rpm",
        metavar="N",
        type=float,
        default=None,
        help="client-side limit of judge requests per minute (split among xdist workers)",
    )
    group.addoption(
        "--rag-tpm",
        metavar="N",
        type=float,
        default=None,
        help="client-side limit of judge tokens per minute (split among xdist workers)",
    )
    group.addoption(
        "--rag-dry-run",
        action="store_true",
        default=None,
        help="make no live judge calls: count and price them; tests that needed one are skipped",
    )
    group.addoption(
        "--rag-budget",
        metavar="USD",
        type=float,
        default=None,
        help="stop live judge calls once this many dollars are spent (split among xdist workers)",
    )
    group.addoption(
        "--rag-no-summary",
        action="store_true",
        default=False,
        help="do not print the pytest-rag summary at the end of the run",
    )
    group.addoption(
        "--rag-html",
        metavar="PATH",
        default=None,
        help="write a self-contained HTML report (score plots, every check, evidence) to PATH",
    )
    parser.addini("rag_html", "write the HTML report to this path (relative to the rootdir)", default=None)

    parser.addini(
        "rag_judge", "judge spec(s), as --rag-judge (PYTEST_RAG_JUDGE and --rag-judge win)", default=None
    )
    parser.addini(
        "rag_judge_base_url", "server of the judges that name none, as --rag-judge-base-url", default=None
    )
    parser.addini("rag_judge_repeat", "independent judgments per check", default=None)
    parser.addini("rag_cache", "judgment cache mode (rw, ro, replay, refresh, off)", default=None)
    parser.addini("rag_cache_dir", "judgment cache directory", default=None)
    parser.addini("rag_concurrency", "most judge calls in flight at once", default=None)
    parser.addini("rag_timeout", "timeout of one judge request in seconds", default=None)
    parser.addini("rag_deadline", "seconds one judgment may take including retries", default=None)
    parser.addini("rag_max_attempts", "attempts per judge call", default=None)
    parser.addini("rag_max_tokens", "most tokens a judge may write per reply", default=None)
    parser.addini("rag_rpm", "client-side limit of judge requests per minute", default=None)
    parser.addini("rag_tpm", "client-side limit of judge tokens per minute", default=None)
    parser.addini("rag_dry_run", "count live judge calls instead of making them", type="bool", default=False)
    parser.addini("rag_budget", "dollars after which no more live judge calls are made", default=None)
    parser.addini(
        "rag_thresholds",
        "default thresholds as lines of METRIC = VALUE",
        type="linelist",
        default=[],
    )
    parser.addini(
        "rag_prices",
        "judge prices as lines of MODEL = INPUT_USD_PER_MTOK, OUTPUT_USD_PER_MTOK",
        type="linelist",
        default=[],
    )
    add_threshold_options(parser, metric_names())
    add_regression_options(group, parser)
    add_batch_options(group, parser)
    add_pass_on_options(group, parser)
    add_case_options(parser)


def add_threshold_options(parser: Any, names: Sequence[str]) -> None:
    """An ini key ``rag_threshold_<name>`` per metric (``rag_thresholds`` covers modes too)."""
    for name in names:
        parser.addini(f"rag_threshold_{name}", f"default threshold of {name}", default=None)


def threshold_names(pluginmanager: Any, builtin: object) -> tuple[str, ...]:
    """The metric names that take a threshold: the catalog's, and those other plugins register.

    The built-in names come from the catalog without importing a metric. Plugin metrics are only
    known once their plugins (conftest files included) are loaded, after the options were added; their
    ``rag_threshold_<name>`` keys are added then by a small plugin whose ``pytest_addoption`` pytest
    replays with the same parser, so they are read and checked like the built-in ones.
    """
    names = list(metric_names())
    caller = pluginmanager.subset_hook_caller("pytest_rag_metrics", remove_plugins=[builtin])
    for classes in caller():
        for metric in classes or ():
            name = getattr(metric, "name", None)  # a malformed entry is the registry's to report
            if isinstance(name, str) and name not in names:
                names.append(name)
    added = tuple(names[len(metric_names()) :])
    if added:

        class PluginThresholdKeys:
            @staticmethod
            def pytest_addoption(parser: Any) -> None:
                add_threshold_options(parser, added)

        pluginmanager.register(PluginThresholdKeys(), "pytest-rag-plugin-threshold-keys")
    return tuple(names)


def on_command_line(option: str) -> str:
    """How an error names a setting given on the command line."""
    return f"{option} (command line)"


def in_ini_file(key: str) -> str:
    """How an error names a setting of the ini file (pytest.ini, pyproject.toml, ``-o KEY=VALUE``)."""
    return f"{key} (ini file)"


def in_environment(variable: str) -> str:
    """How an error names a setting taken from an environment variable."""
    return f"{variable} (environment)"


_KINDS = {int: "a whole number", float: "a number"}


def _ini(config: Any, name: str) -> str | None:
    value = config.getini(name)
    if value in (None, "", []):
        return None
    return str(value).strip()


def _number(text: str | None, source: str, kind: type[int] | type[float], minimum: float) -> Any:
    if text is None:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ConfigError(f"{source} must be {_KINDS[kind]}, got {text!r}") from None
    if value != value:  # NaN passes every 'at least' check below and then fails every comparison
        raise ConfigError(f"{source} must be a number, got {text!r}; write e.g. 0.8")
    if value < minimum:
        raise ConfigError(f"{source} must be at least {minimum}, got {value}")
    return value


def _pick(
    config: Any, option: str, ini: str, kind: type[int] | type[float], default: Any, minimum: float
) -> Any:
    cli = config.getoption(option)
    if cli is not None:
        return _number(str(cli), on_command_line(f"--{option.replace('_', '-')}"), kind, minimum)
    from_ini = _number(_ini(config, ini), in_ini_file(ini), kind, minimum)
    return default if from_ini is None else from_ini


def parse_thresholds(config: Any, names: Sequence[str]) -> tuple[dict[str, float], dict[str, str]]:
    """The ini's thresholds by metric key (``name`` or ``name[mode]``), and where each came from."""
    thresholds: dict[str, float] = {}
    sources: dict[str, str] = {}
    for line in config.getini("rag_thresholds"):
        name, sep, value = str(line).partition("=")
        source = in_ini_file("rag_thresholds")
        if not sep:
            raise ConfigError(f"{source}: the line {line!r} is malformed; write METRIC = VALUE")
        key = name.strip()
        thresholds[key] = _number(value.strip(), f"{source}: {key}", float, float("-inf"))
        sources[key] = f"{source}: {key} = {value.strip()}"
    for name in names:
        key = f"rag_threshold_{name}"
        text = _ini(config, key)
        value = _number(text, in_ini_file(key), float, float("-inf"))
        if value is not None:
            thresholds[name] = value
            sources[name] = f"{in_ini_file(key)} = {text}"
    return thresholds, sources


def ini_keys(config: Any) -> list[str]:
    """The keys the ini file (and ``-o``) set, registered or not."""
    # pytest 9 keeps them in _inicfg and deprecates the public inicfg of earlier versions
    raw = getattr(config, "_inicfg", None)
    return list(raw if raw is not None else getattr(config, "inicfg", {}))


def read_settings(config: Any, threshold_names: Sequence[str] | None = None) -> RagSettings:
    judge, source = config.getoption("rag_judge"), on_command_line("--rag-judge")
    if not judge and os.environ.get("PYTEST_RAG_JUDGE"):
        judge, source = os.environ["PYTEST_RAG_JUDGE"], in_environment("PYTEST_RAG_JUDGE")
    if not judge and _ini(config, "rag_judge"):
        judge, source = _ini(config, "rag_judge"), in_ini_file("rag_judge")
    if not judge:
        judge, source = DEFAULT_JUDGE, "the default judge"
    base_url, base_url_source = (
        config.getoption("rag_judge_base_url"),
        on_command_line("--rag-judge-base-url"),
    )
    if not base_url:
        base_url, base_url_source = (
            _ini(config, "rag_judge_base_url") or None,
            in_ini_file("rag_judge_base_url"),
        )
    cache_mode = config.getoption("rag_cache") or "rw"  # the command line's is one of its choices
    ini_mode = _ini(config, "rag_cache")
    if not config.getoption("rag_cache") and ini_mode:
        cache_mode = ini_mode
        try:
            check_mode(cache_mode)
        except ConfigError as exc:
            raise ConfigError(f"{in_ini_file('rag_cache')}: {exc}") from None
    cache_dir_text = config.getoption("rag_cache_dir") or _ini(config, "rag_cache_dir")
    root = Path(str(config.rootpath))
    cache_dir = Path(cache_dir_text) if cache_dir_text else root / DEFAULT_CACHE_DIR
    if not cache_dir.is_absolute():
        base = Path.cwd() if config.getoption("rag_cache_dir") else root
        cache_dir = base / cache_dir
    thresholds, threshold_sources = parse_thresholds(
        config, metric_names() if threshold_names is None else threshold_names
    )
    return RagSettings(
        judge=judge,
        judge_source=source,
        base_url=base_url.rstrip("/") if base_url else None,
        base_url_source=base_url_source,
        repeats=_pick(config, "rag_judge_repeat", "rag_judge_repeat", int, 1, 1),
        cache_mode=cache_mode,
        cache_dir=cache_dir,
        limits=EngineSettings(
            concurrency=_pick(config, "rag_concurrency", "rag_concurrency", int, ENGINE.concurrency, 1),
            deadline_s=_pick(config, "rag_deadline", "rag_deadline", float, ENGINE.deadline_s, 0.001),
            max_attempts=_pick(config, "rag_max_attempts", "rag_max_attempts", int, ENGINE.max_attempts, 1),
            max_tokens=_pick(config, "rag_max_tokens", "rag_max_tokens", int, None, 16),
        ),
        judge_options=JudgeOptions(
            timeout_s=_pick(config, "rag_timeout", "rag_timeout", float, JUDGE.timeout_s, 0.001),
        ),
        summary=not config.getoption("rag_no_summary"),
        regression=read_regression_settings(config),
        thresholds=thresholds,
        threshold_sources=threshold_sources,
        threshold_keys=tuple(key for key in ini_keys(config) if key.startswith("rag_threshold_")),
        prices=tuple(str(line) for line in config.getini("rag_prices")),
        rpm=_pick(config, "rag_rpm", "rag_rpm", float, None, 0.001),
        tpm=_pick(config, "rag_tpm", "rag_tpm", float, None, 1),
        dry_run=bool(config.getoption("rag_dry_run") or config.getini("rag_dry_run")),
        budget_usd=_pick(config, "rag_budget", "rag_budget", float, None, 0),
        html_path=_path_option(config, "rag_html", "rag_html"),
        batch=read_batch_settings(config, cache_mode),
        pass_on=read_pass_on(config),
        cases=read_case_settings(config),
    )


# -- regression suites: reports, gates, baseline, gold labels, store import/export, snapshots ------------


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


def _path_option(config: Any, option: str, ini: str) -> Path | None:
    """A path from the command line (relative to the working directory) or ini (relative to rootdir)."""
    cli = config.getoption(option)
    if cli:
        return Path(str(cli)).absolute()
    text = _ini(config, ini)
    if not text:
        return None
    path = Path(text)
    return path if path.is_absolute() else Path(str(config.rootpath)) / path


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
        min_alpha = _number(_ini(config, "rag_min_alpha"), alpha_source, float, -1.0)
    min_alpha = check_min_alpha(min_alpha, alpha_source)
    tolerance = config.getoption("rag_snapshot_tolerance")
    tolerance_source = on_command_line("--rag-snapshot-tolerance")
    if tolerance is None:
        tolerance, tolerance_source = (
            _ini(config, "rag_snapshot_tolerance"),
            in_ini_file("rag_snapshot_tolerance"),
        )
    if tolerance is not None:
        text = str(tolerance).strip().lower()
        if text != "repeats":
            _number(text, f"{tolerance_source} (a number or 'repeats')", float, 0.0)
    return RegressionSettings(
        reports=tuple(reports),
        fail_under=fail_under,
        baseline=_path_option(config, "rag_baseline", "rag_baseline"),
        gold=_path_option(config, "rag_gold", "rag_gold"),
        min_alpha=min_alpha,
        cache_import=_path_option(config, "rag_cache_import", "rag_cache_import"),
        cache_export=_path_option(config, "rag_cache_export", "rag_cache_export"),
        snapshot_tolerance=None if tolerance is None else str(tolerance).strip(),
        snapshot_default=bool(config.getini("rag_snapshot_default")),
    )


# -- provider batch APIs (docs/performance.md, "Batch APIs for cost and rate limits") -------------------


def add_batch_options(group: Any, parser: Any) -> None:
    group.addoption(
        "--rag-batch",
        action="store_true",
        default=None,
        help="queue uncached judgments for the providers' batch APIs (half price); a later run judges them",
    )
    group.addoption(
        "--rag-batch-poll",
        metavar="SECONDS",
        type=float,
        default=None,
        help=f"seconds between batch status checks in evaluate(batch=True) (default {BATCH.poll_s:g})",
    )
    group.addoption(
        "--rag-batch-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help=f"longest evaluate(batch=True) waits for its batches (default {BATCH.wait_s:g})",
    )
    parser.addini("rag_batch", "queue uncached judgments for the batch APIs", type="bool", default=False)
    parser.addini("rag_batch_poll", "seconds between batch status checks while waiting", default=None)
    parser.addini("rag_batch_timeout", "longest evaluate(batch=True) waits for its batches", default=None)


def read_batch_settings(config: Any, cache_mode: str) -> BatchSettings:
    enabled = bool(config.getoption("rag_batch") or config.getini("rag_batch"))
    if enabled and cache_mode != "rw":
        raise ConfigError(
            f"--rag-batch cannot work with --rag-cache={cache_mode}: a batch's replies are collected into "
            "the judgment cache, which must be read and written. Use --rag-cache=rw (the default)"
        )
    return BatchSettings(
        enabled=enabled,
        poll_s=_pick(config, "rag_batch_poll", "rag_batch_poll", float, BATCH.poll_s, 0.001),
        wait_s=_pick(config, "rag_batch_timeout", "rag_batch_timeout", float, BATCH.wait_s, 0),
    )


# -- what a check's threshold is compared with (docs/metrics.md, "Expected scores and uncertain checks") -

PASS_ON = ("score", "expected")
"""``score``: the judge's grade (the median of repeats and judges); ``expected``: the probability-
weighted score, for checks whose judge reported the odds of its grades (the others keep ``score``)."""


def add_pass_on_options(group: Any, parser: Any) -> None:
    group.addoption(
        "--rag-pass-on",
        metavar="WHAT",
        default=None,
        choices=PASS_ON,
        help="compare thresholds with the score (default) or the expected score (judges with logprobs)",
    )
    parser.addini("rag_pass_on", "what thresholds are compared with: score or expected", default=None)


def read_pass_on(config: Any) -> str:
    cli = config.getoption("rag_pass_on")
    if cli is not None:
        return str(cli)
    value = _ini(config, "rag_pass_on")
    if value is not None and value not in PASS_ON:
        raise ConfigError(f"{in_ini_file('rag_pass_on')} must be one of {', '.join(PASS_ON)}, got {value!r}")
    return value or "score"


# -- case files (docs/cases.md) ------------------------------------------------------------------------

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


def add_case_options(parser: Any) -> None:
    for ini, default, meaning in CASE_METRIC_INIS:
        parser.addini(ini, f"{meaning} (default: {' '.join(default)})", type="args", default=[])
    parser.addini(
        "rag_case_snapshot",
        "compare every case's scores with a snapshot (syrupy)",
        type="bool",
        default=False,
    )


def read_case_settings(config: Any) -> CaseSettings:
    from .check_keys import parse_metric_label

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
