"""Reading pytest-rag's settings from the command line, ini file and environment, in that order.

Everything is registered in :func:`add_options` (called from ``pytest_addoption``) and read once into
an immutable :class:`RagSettings`. Nothing heavy is imported here: installing pytest-rag costs a suite
that does not use it only the registration of these options.

This module holds the judge's own options (which judge, its server, cache, limits, prices, default
thresholds); each end-of-run or case feature registers and reads its options in a module of its own
(:mod:`.regression`, :mod:`.batch`, :mod:`.pass_on`, :mod:`.cases`), and all of them read a setting
with :mod:`.readers`, which imports none of them, so no feature module imports this one back. Every
name stays importable from ``pytest_rag.config``, where users and the docs import it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.cache import CACHE_MODES, DEFAULT_CACHE_DIR, check_mode
from ..engine.limits import BatchSettings, EngineSettings
from ..errors import ConfigError
from ..ground.command_options import IniOption, SwitchOption, ValueOption, add_ini_options, add_pytest_options
from ..judges.protocol import JudgeOptions
from ..metrics.catalog import metric_names
from .batch import BATCH, add_batch_options, read_batch_settings
from .cases import (
    CASE_METRIC_INIS,
    DEFAULT_CASE_METRICS,
    DEFAULT_TURN_METRICS,
    CaseSettings,
    add_case_options,
    read_case_settings,
)
from .known import check_known_names
from .mutants import MutantSettings, add_mutant_options, read_mutant_settings
from .pass_on import PASS_ON, add_pass_on_options, read_pass_on
from .readers import (
    in_environment,
    in_ini_file,
    ini_flag,
    ini_keys,
    ini_value,
    on_command_line,
    option_source,
    path_option,
    pick_number,
    read_number,
)
from .regression import (
    RegressionSettings,
    add_regression_options,
    check_judgment_files,
    read_regression_settings,
)

__all__ = [
    "BATCH",
    "CASE_METRIC_INIS",
    "DEFAULT_CASE_METRICS",
    "DEFAULT_JUDGE",
    "DEFAULT_TURN_METRICS",
    "ENGINE",
    "JUDGE",
    "PASS_ON",
    "CaseSettings",
    "RagSettings",
    "RegressionSettings",
    "add_batch_options",
    "add_case_options",
    "add_options",
    "add_pass_on_options",
    "add_regression_options",
    "add_threshold_options",
    "in_environment",
    "in_ini_file",
    "ini_keys",
    "on_command_line",
    "option_source",
    "parse_thresholds",
    "read_batch_settings",
    "read_case_settings",
    "read_pass_on",
    "read_regression_settings",
    "read_settings",
    "threshold_names",
]

DEFAULT_JUDGE = "local"
ENGINE = EngineSettings()
JUDGE = JudgeOptions()


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
    regression: RegressionSettings = field(default_factory=RegressionSettings)
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
    cases: CaseSettings = field(default_factory=CaseSettings)
    mutants: MutantSettings = field(default_factory=MutantSettings)

    @property
    def checked_at_startup(self) -> bool:
        """True when a setting must be checked before any test runs (:mod:`pytest_rag.run.startup`): a
        judge spec other than the default, a base URL, thresholds, gates, prices, files to read or write. A suite on
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
            or regression.fail_under
            or regression.cache_export is not None
            or regression.baseline is not None
            or regression.gold is not None
        )


JUDGE_OPTIONS = (
    ValueOption(
        "--rag-judge",
        "SPEC",
        "judge(s) as PROVIDER:MODEL[@URL], comma-separated; default local (offline); env PYTEST_RAG_JUDGE",
    ),
    ValueOption(
        "--rag-judge-base-url",
        "URL",
        "server for judges naming none (vLLM, llama.cpp, a proxy); per judge: --rag-judge=P:MODEL@URL",
    ),
    ValueOption(
        "--rag-judge-repeat", "N", "independent judgments per check, scored by their median (default 1)", int
    ),
    ValueOption(
        "--rag-cache",
        "MODE",
        "judgment cache mode: rw (default), ro, replay (a miss fails), refresh, off",
        choices=CACHE_MODES,
    ),
    ValueOption("--rag-cache-dir", "DIR", "judgment cache directory (default .rag_cache under the rootdir)"),
    ValueOption(
        "--rag-concurrency", "N", f"most judge calls in flight at once (default {ENGINE.concurrency})", int
    ),
    ValueOption(
        "--rag-timeout", "SECONDS", f"timeout of one judge request (default {JUDGE.timeout_s:g})", float
    ),
    ValueOption(
        "--rag-deadline",
        "SECONDS",
        f"time one judgment may take including retries (default {ENGINE.deadline_s:g})",
        float,
    ),
    ValueOption(
        "--rag-max-attempts",
        "N",
        f"attempts per judge call on rate limits, 5xx and timeouts (default {ENGINE.max_attempts})",
        int,
    ),
    ValueOption(
        "--rag-max-tokens",
        "N",
        "most tokens a judge may write per reply (default: each request's own, by how many items it holds)",
        int,
    ),
    ValueOption(
        "--rag-max-request-chars",
        "N",
        f"most characters a request to a judge may hold; a larger one is not sent "
        f"(default {ENGINE.max_request_chars:,})",
        int,
    ),
    ValueOption(
        "--rag-rpm", "N", "client-side limit of judge requests per minute (split among xdist workers)", float
    ),
    ValueOption(
        "--rag-tpm", "N", "client-side limit of judge tokens per minute (split among xdist workers)", float
    ),
    SwitchOption(
        "--rag-dry-run",
        "make no live judge calls: count and price them; tests that needed one are skipped",
        None,
    ),
    ValueOption(
        "--rag-budget",
        "USD",
        "stop live judge calls once this many dollars are spent (split among xdist workers)",
        float,
    ),
    SwitchOption("--rag-no-summary", "do not print the pytest-rag summary at the end of the run"),
    ValueOption(
        "--rag-html",
        "PATH",
        "write a self-contained HTML report (score plots, every check, evidence) to PATH",
    ),
)
"""The judge's own command-line options, in ``pytest --help`` order."""

JUDGE_INIS = (
    IniOption("rag_html", "write the HTML report to this path (relative to the rootdir)"),
    IniOption("rag_judge", "judge spec(s), as --rag-judge (PYTEST_RAG_JUDGE and --rag-judge win)"),
    IniOption("rag_judge_base_url", "server of the judges that name none, as --rag-judge-base-url"),
    IniOption("rag_judge_repeat", "independent judgments per check"),
    IniOption("rag_cache", "judgment cache mode (rw, ro, replay, refresh, off)"),
    IniOption("rag_cache_dir", "judgment cache directory"),
    IniOption("rag_concurrency", "most judge calls in flight at once"),
    IniOption("rag_timeout", "timeout of one judge request in seconds"),
    IniOption("rag_deadline", "seconds one judgment may take including retries"),
    IniOption("rag_max_attempts", "attempts per judge call"),
    IniOption("rag_max_tokens", "most tokens a judge may write per reply"),
    IniOption("rag_max_request_chars", "most characters a request to a judge may hold"),
    IniOption("rag_rpm", "client-side limit of judge requests per minute"),
    IniOption("rag_tpm", "client-side limit of judge tokens per minute"),
    IniOption("rag_dry_run", "count live judge calls instead of making them", "bool", False),
    IniOption("rag_budget", "dollars after which no more live judge calls are made"),
    IniOption("rag_thresholds", "default thresholds as lines of METRIC = VALUE", "linelist", []),
    IniOption(
        "rag_prices",
        "judge prices as lines of MODEL = INPUT_USD_PER_MTOK, OUTPUT_USD_PER_MTOK",
        "linelist",
        [],
    ),
)
"""The judge's own ini keys, in ``pytest --help`` order."""


def add_options(parser: Any) -> None:
    group = parser.getgroup("rag", "pytest-rag: judged assertions for RAG answers")
    add_pytest_options(group, parser, JUDGE_OPTIONS, JUDGE_INIS)
    add_threshold_options(parser, metric_names())
    add_regression_options(group, parser)
    add_batch_options(group, parser)
    add_pass_on_options(group, parser)
    add_case_options(parser)
    add_mutant_options(group, parser)


def add_threshold_options(parser: Any, names: Sequence[str]) -> None:
    """An ini key ``rag_threshold_<name>`` per metric (``rag_thresholds`` covers modes too)."""
    add_ini_options(
        parser, (IniOption(f"rag_threshold_{name}", f"default threshold of {name}") for name in names)
    )


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


def parse_thresholds(config: Any, names: Sequence[str]) -> tuple[dict[str, float], dict[str, str]]:
    """The ini's thresholds by metric key (``name`` or ``name[mode]``), and where each came from."""
    thresholds: dict[str, float] = {}
    sources: dict[str, str] = {}
    for line in config.getini("rag_thresholds"):
        name, sep, value = str(line).partition("=")
        source = in_ini_file("rag_thresholds", config)
        if not sep:
            raise ConfigError(f"{source}: the line {line!r} is malformed; write METRIC = VALUE")
        key = name.strip()
        thresholds[key] = read_number(value.strip(), f"{source}: {key}", float, float("-inf"))
        sources[key] = f"{source}: {key} = {value.strip()}"
    for name in names:
        key = f"rag_threshold_{name}"
        text = ini_value(config, key)
        value = read_number(text, in_ini_file(key, config), float, float("-inf"))
        if value is not None:
            thresholds[name] = value
            sources[name] = f"{in_ini_file(key, config)} = {text}"
    return thresholds, sources


def read_settings(config: Any, threshold_names: Sequence[str] | None = None) -> RagSettings:
    check_known_names(config)
    judge, source = config.getoption("rag_judge"), on_command_line("--rag-judge")
    if judge is not None and not judge.strip():
        # ``--rag-judge=$JUDGE`` with the variable unset: falling back to the default judge would
        # judge the whole run with another judge than the one asked for, and pass green
        raise ConfigError(
            f"{source} is empty; name a judge (local, openai:gpt-4o, ...) or leave the option out for the "
            "default, the offline local judge"
        )
    if not judge and os.environ.get("PYTEST_RAG_JUDGE"):
        judge, source = os.environ["PYTEST_RAG_JUDGE"], in_environment("PYTEST_RAG_JUDGE")
    if not judge and ini_value(config, "rag_judge"):
        judge, source = ini_value(config, "rag_judge"), in_ini_file("rag_judge", config)
    if not judge:
        judge, source = DEFAULT_JUDGE, "the default judge"
    base_url, base_url_source = (
        config.getoption("rag_judge_base_url"),
        on_command_line("--rag-judge-base-url"),
    )
    if not base_url:
        base_url, base_url_source = (
            ini_value(config, "rag_judge_base_url") or None,
            in_ini_file("rag_judge_base_url", config),
        )
    cache_mode = config.getoption("rag_cache") or "rw"  # the command line's is one of its choices
    ini_mode = ini_value(config, "rag_cache")
    if not config.getoption("rag_cache") and ini_mode:
        cache_mode = ini_mode
        try:
            check_mode(cache_mode)
        except ConfigError as exc:
            raise ConfigError(f"{in_ini_file('rag_cache', config)}: {exc}") from None
    cache_dir_text = config.getoption("rag_cache_dir") or ini_value(config, "rag_cache_dir")
    root = Path(str(config.rootpath))
    cache_dir = Path(cache_dir_text) if cache_dir_text else root / DEFAULT_CACHE_DIR
    if not cache_dir.is_absolute():
        base = Path.cwd() if config.getoption("rag_cache_dir") else root
        cache_dir = base / cache_dir
    thresholds, threshold_sources = parse_thresholds(
        config, metric_names() if threshold_names is None else threshold_names
    )
    regression = read_regression_settings(config)
    check_judgment_files(config, cache_mode, regression)
    return RagSettings(
        judge=judge,
        judge_source=source,
        base_url=base_url.rstrip("/") if base_url else None,
        base_url_source=base_url_source,
        repeats=pick_number(config, "rag_judge_repeat", "rag_judge_repeat", int, 1, 1),
        cache_mode=cache_mode,
        cache_dir=cache_dir,
        limits=EngineSettings(
            concurrency=pick_number(config, "rag_concurrency", "rag_concurrency", int, ENGINE.concurrency, 1),
            deadline_s=pick_number(config, "rag_deadline", "rag_deadline", float, ENGINE.deadline_s, 0.001),
            max_attempts=pick_number(
                config, "rag_max_attempts", "rag_max_attempts", int, ENGINE.max_attempts, 1
            ),
            max_tokens=pick_number(config, "rag_max_tokens", "rag_max_tokens", int, None, 16),
            max_request_chars=pick_number(
                config, "rag_max_request_chars", "rag_max_request_chars", int, ENGINE.max_request_chars, 1
            ),
        ),
        judge_options=JudgeOptions(
            timeout_s=pick_number(config, "rag_timeout", "rag_timeout", float, JUDGE.timeout_s, 0.001),
        ),
        summary=not config.getoption("rag_no_summary"),
        regression=regression,
        thresholds=thresholds,
        threshold_sources=threshold_sources,
        threshold_keys=tuple(key for key in ini_keys(config) if key.startswith("rag_threshold_")),
        prices=tuple(str(line) for line in config.getini("rag_prices")),
        rpm=pick_number(config, "rag_rpm", "rag_rpm", float, None, 0.001),
        tpm=pick_number(config, "rag_tpm", "rag_tpm", float, None, 1),
        dry_run=bool(config.getoption("rag_dry_run") or ini_flag(config, "rag_dry_run")),
        budget_usd=pick_number(config, "rag_budget", "rag_budget", float, None, 0),
        html_path=path_option(config, "rag_html", "rag_html"),
        batch=read_batch_settings(config, cache_mode),
        pass_on=read_pass_on(config),
        cases=read_case_settings(config, metric_names() if threshold_names is None else threshold_names),
        mutants=read_mutant_settings(config),
    )
