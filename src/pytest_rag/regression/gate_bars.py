"""The bars of the suite gates as a person writes them: ``METRIC=VALUE`` for ``--rag-fail-under`` and
an alpha for ``--rag-min-alpha``.

Both the plugin's options (``config.py``) and ``pytest-rag merge`` read them here, so a bar means the
same and is refused with the same message wherever it is written. Standard library only: the plugin
reads its options at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import ConfigError


def _bar_value(text: str, source: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{source} must be a number, got {text!r}; write e.g. faithfulness=4.0") from None
    if value != value:  # NaN: every lower bound would pass a NaN bar's comparison as False
        raise ConfigError(f"{source} must be a number, got {text!r}; write e.g. faithfulness=4.0")
    return value


def parse_fail_under(items: Iterable[str], source: str) -> dict[str, float]:
    """``["faithfulness=4", "context_recall[attribution]=0.8"]`` as bars by metric (the last wins)."""
    bars: dict[str, float] = {}
    for item in items:
        name, sep, value = str(item).partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{source} {item!r} is malformed; write METRIC=VALUE, e.g. faithfulness=4.0")
        bars[name.strip()] = _bar_value(value.strip(), f"{source} {name.strip()}")
    return bars


def check_min_alpha(value: float | None, source: str) -> float | None:
    """Krippendorff's alpha lies in [-1, 1]; a bar outside it can never or must always fail."""
    if value is None:
        return None
    if not -1.0 <= float(value) <= 1.0:
        raise ConfigError(f"{source} must be between -1 and 1 (e.g. 0.667), got {value}")
    return float(value)
