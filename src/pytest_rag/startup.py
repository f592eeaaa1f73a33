"""The run's configuration checked once, before any test runs.

``config.py`` reads every option into :class:`~pytest_rag.config.RagSettings`: a malformed number or
mode fails there, and so does a ``rag_threshold_*`` key of the ini file that names no metric. What can
only be checked against what plugins register is checked here, from ``pytest_configure``: the judge
spec against the providers (plugins' included) and, for the built-in ones, the form of their specs and
where their base URLs lead; the thresholds' metric names, modes and scales; the price overrides. A
mistake is one usage error naming the setting and where it came from (command line, environment, ini
file), and pytest exits 4 before collecting anything, instead of every test failing alike.

Start-up stays cheap: a suite on the default settings never imports this module
(:attr:`~pytest_rag.config.RagSettings.checked_against_plugins`), the metric classes (pydantic models)
are imported only when thresholds are configured, the price table only when prices are, and no judge
is built.
"""

from __future__ import annotations

from typing import Any

from .config import RagSettings
from .errors import ConfigError
from .judges.spec import check_base_urls, parse_judge_specs, reach_of_builtin


def check_configuration(config: Any, settings: RagSettings) -> None:
    """Raise :class:`~pytest_rag.errors.ConfigError` for the first setting that cannot work."""
    check_judges(config.hook, settings)
    if settings.thresholds:
        from .registry import Registry
        from .thresholds import Thresholds

        Thresholds(settings.thresholds, Registry.from_hook(config.hook)).check(settings.threshold_sources)
    if settings.prices:
        from .engine.pricing import PriceTable

        PriceTable.from_ini_lines(settings.prices)  # its errors name the rag_prices line


def check_judges(hook: Any, settings: RagSettings) -> None:
    """The judge spec against the registered providers; a run-wide or per-judge URL that no judge
    would use, when every judge is a built-in one (a plugin's judge is checked once it is built)."""
    assert settings.judge is not None
    providers = {name.lower() for provided in hook.pytest_rag_judge_providers() for name in provided}
    try:
        specs = parse_judge_specs(settings.judge, known_providers=providers, base_url=settings.base_url)
    except ConfigError as exc:
        raise ConfigError(f"{settings.judge_source}: {exc}") from None
    reach = reach_of_builtin(specs)
    if reach is not None:
        check_base_urls(reach, settings.base_url, settings.base_url_source)
