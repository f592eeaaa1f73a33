"""Deprecated import path, kept for plugin metrics written against it.

:class:`~pytest_rag.metrics.judging.SingleJudgment` and the request helpers now live in
:mod:`pytest_rag.metrics.judging`, the option readers in :mod:`pytest_rag.metrics.options`. A name
imported from here still works, and says once where it went.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..deprecation import warn_renamed

if TYPE_CHECKING:
    from .judging import (
        FINAL_ERRORS,
        Failed,
        SingleJudgment,
        ask_or_error,
        batch_count,
        batches,
        judge_request,
    )
    from .options import read_choice, read_int, read_text

__all__ = [
    "FINAL_ERRORS",
    "Failed",
    "SingleJudgment",
    "ask_or_error",
    "batch_count",
    "batches",
    "judge_request",
    "read_choice",
    "read_int",
    "read_text",
]

_MOVED_TO = {name: "options" if name.startswith("read_") else "judging" for name in __all__}


def __getattr__(name: str) -> Any:
    module = _MOVED_TO.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warn_renamed(f"{__name__}.{name}", f"pytest_rag.metrics.{module}.{name}")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)
