"""pytest-rag's own hooks, for packages and conftest files that extend it.

Registered with pytest's plugin manager the way pytest-xdist registers its ``newhooks``. The built-in
judges and metrics come in through these same hooks (:mod:`pytest_rag.builtin`), so a third-party
provider or metric is a peer of the built-in ones, not a patch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .judges.protocol import JudgeFactory
    from .metrics.base import Metric
    from .results import CheckRecord

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_rag_judge_providers() -> Mapping[str, JudgeFactory]:
    """Return judge factories by provider name, e.g. ``{"mycorp": MyCorpJudge}``.

    A factory is called as ``factory(spec, options)`` with a
    :class:`~pytest_rag.judges.protocol.JudgeSpec` (``provider``, ``model``, ``base_url``) and
    :class:`~pytest_rag.judges.protocol.JudgeOptions`, and returns an object that satisfies the
    :class:`~pytest_rag.judges.protocol.Judge` protocol. Users then select it with
    ``--rag-judge=mycorp:MODEL``.
    """
    raise NotImplementedError


@hookspec
def pytest_rag_metrics() -> Iterable[type[Metric]]:
    """Return metric classes (subclasses of :class:`~pytest_rag.metrics.base.Metric`) to register.

    Each is reachable as ``rag_judge.score(NAME, ...)`` and ``rag_judge.assert_score(NAME, ...)``,
    with its ``mode`` selectable by ``mode=``.
    """
    raise NotImplementedError


@hookspec
def pytest_rag_check_recorded(record: CheckRecord) -> None:
    """Called after every judged check is recorded in the session results (on the process that ran
    it), e.g. to stream results to a dashboard."""
