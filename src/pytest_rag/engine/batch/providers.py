"""The provider batch APIs pytest-rag knows, and which one serves a judge or a manifest's target.

Each API lives with its provider (:mod:`pytest_rag.judges.openai.batch`,
:mod:`pytest_rag.judges.anthropic.batch`) and imports only the shared protocol
(:mod:`pytest_rag.judges.batch_api`); the lookup lives here, above them, so no provider module
imports a module that imports it back.
"""

from __future__ import annotations

from ...judges.batch_api import BatchAPI, BatchProblem, BatchTarget
from ...judges.protocol import Judge


def every_api() -> tuple[BatchAPI, ...]:
    from ...judges.anthropic.batch import ANTHROPIC_BATCHES
    from ...judges.openai.batch import OPENAI_BATCHES

    return (OPENAI_BATCHES, ANTHROPIC_BATCHES)


def api_for_judge(judge: Judge) -> tuple[BatchAPI, BatchTarget] | None:
    """The batch API that can take ``judge``'s requests, with their target; None when none can."""
    for api in every_api():
        target = api.target(judge)
        if target is not None:
            return api, target
    return None


def api_for_target(target: BatchTarget) -> BatchAPI:
    for api in every_api():
        if api.name == target.api:
            return api
    raise BatchProblem(f"no batch API named {target.api!r} (a manifest written by another version?)")
