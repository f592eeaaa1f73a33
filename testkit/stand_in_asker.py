"""A test's stand-in for the engine's asker: the whole :class:`~pytest_rag.metrics.base.Asker`
protocol, with the verdict left to the test.

A metric is scored with an asker the engine binds to one judge (``BoundAsker``). Tests that look at
what a metric asks, or at how it reads what it is told, score it directly with a stand-in instead: a
subclass says what the judge answers (:meth:`StandInAsker.answer`); this keeps every request in the
order asked, reports no grade odds (as a provider without log-probabilities), runs what a metric
gathers one at a time (so the order of the requests is fixed) and embeds a text as a two-number
vector of its length.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from pytest_rag.judges.request import JudgeRequest
from pytest_rag.scoring.grade_odds import GradeOdds

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


class StandInAsker:
    judge_label = "stand-in"

    def __init__(self) -> None:
        self.requests: list[JudgeRequest] = []

    def answer(self, request: JudgeRequest, model: type[V]) -> V:
        """The verdict the judge gives to ``request``."""
        raise NotImplementedError

    async def __call__(self, request: JudgeRequest, model: type[V]) -> V:
        self.requests.append(request)
        return self.answer(request, model)

    async def graded(self, request: JudgeRequest, model: type[V]) -> tuple[V, GradeOdds | None]:
        return await self(request, model), None

    async def gather(self, *awaitables: Awaitable[T]) -> list[T]:
        return [await each for each in awaitables]

    async def embed(self, texts: Sequence[str], model: str | None) -> Any:
        return [[1.0, float(len(text))] for text in texts]
