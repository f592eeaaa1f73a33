"""The run's configuration checked once, before any test runs.

:mod:`pytest_rag.config` reads every option into :class:`~pytest_rag.config.RagSettings`; a malformed number or
mode fails there. What needs more than the option's own text is checked here, from
``pytest_configure``: the judge spec against the providers (plugins' included) and, for the built-in
ones, the form of their specs and where their base URLs lead; every ``rag_threshold_*`` key of the ini
file against the metrics (with a did-you-mean); the metric names, modes and scales of the thresholds
and of the suite gates (``--rag-fail-under``); the
price overrides; the files read at the end (baseline, gold labels) and the folders of the files
written there. A mistake is one usage error naming the
setting and where it came from (command line, environment, ini file), and pytest exits 4 before
collecting anything, instead of every test failing alike.

Start-up stays cheap: a suite on the default settings never imports this module
(:attr:`~pytest_rag.config.RagSettings.checked_at_startup`), the metric classes (pydantic models) are
imported only when thresholds are configured, the price table only when prices are, and no judge is
built.
"""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import RagSettings, in_ini_file, option_source
from ..engine.cache import check_store
from ..errors import ConfigError
from ..ground.redaction import remember_url
from ..judges.protocol import JudgeSpec
from ..judges.spec import SPEC_FORMS, check_base_urls, check_url, parse_judge_specs, reach_of_builtin
from ..metrics.catalog import ALIASES

THRESHOLD_KEY = "rag_threshold_"


def check_configuration(config: Any, settings: RagSettings, metric_names: Sequence[str]) -> None:
    """Raise :class:`~pytest_rag.errors.ConfigError` for the first setting that cannot work."""
    specs = check_judges(config.hook, settings)
    if not all(spec.provider in SPEC_FORMS and SPEC_FORMS[spec.provider].offline for spec in specs):
        check_store(settings.cache_dir, settings.cache_mode)  # offline judges are never cached
    check_threshold_keys(config, settings.threshold_keys, metric_names)
    gates = settings.regression.fail_under
    if settings.thresholds or gates:
        from ..registry import Registry
        from .thresholds import Thresholds

        registry = Registry.from_hook(config.hook)
        Thresholds(settings.thresholds, registry).check(settings.threshold_sources)
        # A gate's bar is a threshold of the same metric, on the same scale: a typo would leave the
        # gate "not evaluated" and the run green, a bar off the scale would fail every run.
        source = settings.regression.fail_under_source
        Thresholds(gates, registry).check({key: f"{source} {key}={bar:g}" for key, bar in gates.items()})
    if settings.prices:
        from ..engine.pricing import PriceTable

        PriceTable.from_ini_lines(settings.prices)  # its errors name the rag_prices line
    check_input_paths(config, settings)
    check_output_paths(config, settings)


def check_judges(hook: Any, settings: RagSettings) -> list[JudgeSpec]:
    """The judge spec against the registered providers; a run-wide or per-judge URL that no judge
    would use, when every judge is a built-in one (a plugin's judge is checked once it is built).
    Returns the run's judge specs."""
    assert settings.judge is not None
    if settings.base_url is not None:
        try:
            check_url(settings.base_url)
        except ConfigError as exc:
            raise ConfigError(f"{settings.base_url_source}: {exc}") from None
    providers = {name.lower() for provided in hook.pytest_rag_judge_providers() for name in provided}
    try:
        specs = parse_judge_specs(settings.judge, known_providers=providers, base_url=settings.base_url)
    except ConfigError as exc:
        raise ConfigError(f"{settings.judge_source}: {exc}") from None
    for spec in specs:  # a batch stores a URL's public form; this process can still reach the server
        remember_url(spec.base_url)
    reach = reach_of_builtin(specs)
    if reach is not None:
        check_base_urls(reach, settings.base_url, settings.base_url_source)
    return specs


def check_threshold_keys(config: Any, keys: Sequence[str], names: Sequence[str]) -> None:
    """A ``rag_threshold_<name>`` key for no registered metric is a typo that pytest would only warn
    about, leaving the metric's default bar in place."""
    valid = {f"{THRESHOLD_KEY}{name}" for name in names}
    for key in keys:
        if key in valid:
            continue
        name = key[len(THRESHOLD_KEY) :]
        if name in ALIASES:
            hint = f"thresholds are keyed by metric name: write {THRESHOLD_KEY}{ALIASES[name][0]}"
        else:
            close = difflib.get_close_matches(key, sorted(valid), n=1)
            hint = f"did you mean {close[0]}?" if close else "no registered metric has that name"
        raise ConfigError(f"{in_ini_file(key, config)} sets the threshold of no registered metric; {hint}")


def check_input_paths(config: Any, settings: RagSettings) -> None:
    """The files the run's end reads (``--rag-baseline``, ``--rag-gold``): one that is not there
    would fail the run after every test has run, so it is refused now."""
    regression = settings.regression
    for option, path, remedy in (
        ("rag_baseline", regression.baseline, "save one with --rag-report on the reference run"),
        ("rag_gold", regression.gold, "write the gold labels there (docs/regression.md)"),
    ):
        if path is None or path.is_file():
            continue
        source = option_source(config, option)
        there = "is a directory" if path.is_dir() else "does not exist"
        raise ConfigError(f"{source}: {path} {there}; {remedy}")


def check_output_paths(config: Any, settings: RagSettings) -> None:
    """The files the run writes at its end: a path that cannot be a file, or whose folder cannot be
    written (or created), is refused now, not after every test has run."""
    regression = settings.regression
    for option, path in (
        *(("rag_report", report) for report in regression.reports),
        ("rag_html", settings.html_path),
        ("rag_cache_export", regression.cache_export),
    ):
        if path is None:
            continue
        source = option_source(config, option)
        if path.is_dir():
            raise ConfigError(f"{source}: {path} is a directory; give the path of a file in it")
        parent = next(p for p in path.parents if p.exists())
        if not parent.is_dir():
            raise ConfigError(f"{source}: {parent} is a file, so {path} cannot be written")
        refused = _refuses_files(parent)
        if refused is not None:
            made = "" if parent == path.parent else f" (nor {path.parent} made in it)"
            raise ConfigError(
                f"{source}: {path} cannot be written: no file can be made in {parent}{made} ({refused}); "
                "give a path in a folder you can write to"
            )


def _refuses_files(folder: Path) -> str | None:
    """Why no file can be made in ``folder`` (the system's reason), or None when one can. Tried, not
    read off the permission bits: those say nothing of a read-only mount, and everything is allowed
    to root by them. The trial file has no name and is gone when closed."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__
