"""How a metric asks its judge: a request built from a template, questions sent in batches, a failed
judgment held as a value, and the metric that is one judgment with one template.

By convention a request's task kind equals its template id, so the offline judge's handler table
(:mod:`pytest_rag.judges.local.tasks`) and the prompt templates name the same questions the same way.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from ..errors import BudgetExceededError, CacheMissError, JudgeError, NotJudgedError
from ..inputs import Sample
from ..judges.request import JudgeRequest, JudgeTask, Sampling
from .base import Asker, Metric, Scored
from .prompts import Template

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


def judge_request(
    metric: str,
    template: Template,
    user: str,
    model: type[BaseModel],
    inputs: Mapping[str, Any],
    *,
    max_tokens: int = 1024,
) -> JudgeRequest:
    """A request for ``template`` whose task kind is the template id (see the module docstring)."""
    return JudgeRequest(
        metric=metric,
        template_id=template.id,
        template_version=template.version,
        messages=template.messages(user),
        response_model=model,
        task=JudgeTask(template.id, dict(inputs)),
        sampling=Sampling(max_tokens=max_tokens),
    )


def batches(items: Sequence[T], size: int) -> Iterator[tuple[int, Sequence[T]]]:
    """Consecutive slices of at most ``size`` items, each with the index of its first item."""
    for start in range(0, len(items), size):
        yield start, items[start : start + size]


def batch_count(n: int, size: int) -> int:
    return math.ceil(n / size) if n else 0


FINAL_ERRORS: tuple[type[JudgeError], ...] = (CacheMissError, BudgetExceededError, NotJudgedError)
"""Judge errors that stop the run's policy (replay miss, budget, dry run), never tolerated per call."""


@dataclass(frozen=True)
class Failed:
    """A judgment that ended in a judge error, held as a value (gathering treats raised or returned
    exceptions alike as failures, so the error travels wrapped)."""

    error: JudgeError


async def ask_or_error(ask: Asker, request: JudgeRequest, model: type[V]) -> V | Failed:
    """Ask once and hand back a failed judgment as a value, for metrics that can use the other of
    two judgments when one fails. Policy errors (replay miss, budget, dry run) still raise."""
    try:
        return await ask(request, model)
    except FINAL_ERRORS:
        raise
    except JudgeError as exc:
        return Failed(exc)


class SingleJudgment(Metric):
    """A metric that is one judge call with one template, whose verdict carries the score.

    A subclass names its ``template`` and ``verdict`` model, renders the sample into the user
    message and the task inputs the offline judge reads, and turns the verdict into its outcome.
    """

    template: ClassVar[Template]
    verdict: ClassVar[type[BaseModel]]

    @abstractmethod
    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        """The user message (the sample in data blocks) and the request's task inputs."""

    @abstractmethod
    def scored(self, verdict: Any) -> Scored:
        """The metric's outcome from the validated verdict."""

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        user, inputs = self.render(sample)
        request = judge_request(self.name, self.template, user, self.verdict, inputs)
        return self.scored(await ask(request, self.verdict))
