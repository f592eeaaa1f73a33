"""Reading a metric's options (``batch_size=``, ``score=``, ``embedding_model=`` ...): a value of the
wrong kind is an input error that names the metric and the option, raised before any judge is asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError


def read_int(options: Mapping[str, Any], name: str, default: int, *, metric: str, minimum: int = 1) -> int:
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{metric}: {name} must be an integer >= {minimum}, got {value!r}")
    return value


def read_choice(
    options: Mapping[str, Any], name: str, default: str, choices: Sequence[str], *, metric: str
) -> str:
    value = options.get(name, default)
    if value not in choices:
        raise InputError(f"{metric}: {name} must be one of {', '.join(choices)}; got {value!r}")
    return str(value)


def read_text(options: Mapping[str, Any], name: str, *, metric: str) -> str | None:
    value = options.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{metric}: {name} must be a non-empty string, got {value!r}")
    return value
