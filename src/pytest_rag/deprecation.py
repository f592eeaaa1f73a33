"""Old public names that keep working, each telling its user once which name replaces it.

A deprecated name (a helper such as ``assert_citations``, a metric alias such as ``grounded``, an old
import path) goes on doing what it did and issues a :class:`DeprecationWarning` the first time it is
used in the process, pointing at the user's line rather than at pytest-rag's own frames; later uses
stay quiet, so a suite that calls it a thousand times reads one warning. The warning's category is
its own subclass, :class:`RagDeprecationWarning`, so a suite can silence (or fail on) pytest-rag's
deprecations alone: ``-W ignore::pytest_rag.deprecation.RagDeprecationWarning``.
"""

from __future__ import annotations

import sys
import warnings


class RagDeprecationWarning(DeprecationWarning):
    """A name of pytest-rag's public surface that still works but has a replacement."""


_told: set[str] = set()
"""The old names already warned about in this process."""


def warn_renamed(old: str, new: str, why: str = "") -> None:
    """Say once that ``old`` is deprecated and ``new`` replaces it (``why``, when given, follows)."""
    if old in _told:
        return
    _told.add(old)
    message = f"{old} is deprecated; use {new} instead" + (f" ({why})" if why else "")
    warnings.warn(message, RagDeprecationWarning, stacklevel=_first_frame_outside_the_package())


def _first_frame_outside_the_package() -> int:
    """The ``stacklevel`` of the nearest caller that is not pytest-rag's own code."""
    level, frame = 2, sys._getframe(2)  # 2: the caller of warn_renamed
    while frame.f_back is not None and _ours(frame.f_globals.get("__name__", "")):
        level, frame = level + 1, frame.f_back
    return level


def _ours(module: str) -> bool:
    return module == "pytest_rag" or module.startswith("pytest_rag.")
