"""The one error of the ``nli`` judge's set-up, raised before any test is judged."""

from __future__ import annotations

from pytest_rag.errors import ConfigError

__all__ = ["NliModelError"]


class NliModelError(ConfigError):
    """The NLI model is missing, incomplete, unreadable, cannot be fetched, or needs an extra not installed."""
