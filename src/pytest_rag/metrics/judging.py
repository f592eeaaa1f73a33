"""How a metric asks its judge: a request built from a template, questions sent in batches, a failed
judgment held as a value, and the metric that is one judgment with one template.

By convention a request's task kind equals its template id, so the offline judge's handler table
(:mod:`pytest_rag.judges.local.tasks`) and the prompt templates name the same questions the same way.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Awaitable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from ..errors import BudgetExceededError, CacheMissError, JudgeError, NotJudgedError
from ..inputs import Sample
from ..judges.request import JudgeRequest, JudgeTask, sampling_for
from ..judges.schema import GRADE_FIELD
from ..scoring.grade_odds import GradeOdds
from .base import Asker, Metric, Scored
from .prompts import Template

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


REPLY_TOKENS = 1024
"""The room of a reply that holds one verdict: its reasons, findings and grade."""
LIST_TOKENS = 2048
"""The least room of a reply that lists statements (claims, facts, nuggets)."""
ITEM_TOKENS = 160
"""Room for one item's verdict in a reply about many: its number, one to three sentences of reasons
and its answers come to 60-100 tokens; the rest is margin for a wordy judge."""
LABEL_TOKENS = 40
"""Room for one item's label without reasons (a nugget's importance or assignment)."""


def room_for(items: int, per_item: int = ITEM_TOKENS, least: int = REPLY_TOKENS) -> int:
    """``max_tokens`` of a reply that must hold a verdict for each of ``items`` items: ``per_item``
    tokens each and 256 for the frame, never below ``least``. A fixed limit cuts off the reply about
    many passages or claims (about fifteen at 1024), and a reply cut off holds no verdict."""
    return max(least, 256 + per_item * items)


def room_to_restate(text: str, least: int = LIST_TOKENS) -> int:
    """``max_tokens`` of a reply that restates ``text`` as a list of statements: twice its tokens
    (about four characters each: statements repeat the names that pronouns stood for, and each is
    quoted) and 256 for the frame, never below ``least``."""
    return max(least, 256 + len(text) // 2)


def judge_request(
    metric: str,
    template: Template,
    user: str,
    model: type[BaseModel],
    inputs: Mapping[str, Any],
    *,
    max_tokens: int = REPLY_TOKENS,
) -> JudgeRequest:
    """A request for ``template`` whose task kind is the template id (see the module docstring)."""
    return JudgeRequest(
        metric=metric,
        template_id=template.id,
        template_version=template.version,
        messages=template.messages(user),
        response_model=model,
        task=JudgeTask(template.id, dict(inputs)),
        sampling=sampling_for(max_tokens),
    )


def each_request(
    metric: str,
    template: Template,
    model: type[BaseModel],
    questions: Iterable[tuple[str, Mapping[str, Any]]],
) -> list[JudgeRequest]:
    """One request with ``template`` per (user message, task inputs) of ``questions``, in their order."""
    return [judge_request(metric, template, user, model, inputs) for user, inputs in questions]


async def judge_each(
    ask: Asker,
    metric: str,
    template: Template,
    model: type[V],
    questions: Iterable[tuple[str, Mapping[str, Any]]],
) -> list[V]:
    """The same question about many items (passages, statements, cited pairs), one request per
    (user message, task inputs), asked concurrently; the verdicts in the order of ``questions``."""
    return await ask.gather(*(ask(r, model) for r in each_request(metric, template, model, questions)))


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


async def _held(judgment: Awaitable[T]) -> T | Failed:
    """The judgment, or its judge error as a value; policy errors still raise."""
    try:
        return await judgment
    except FINAL_ERRORS:
        raise
    except JudgeError as exc:
        return Failed(exc)


async def ask_or_error(ask: Asker, request: JudgeRequest, model: type[V]) -> V | Failed:
    """Ask once and hand back a failed judgment as a value, for metrics that can use the other of
    two judgments when one fails. Policy errors (replay miss, budget, dry run) still raise."""
    return await _held(ask(request, model))


async def graded_or_error(
    ask: Asker, request: JudgeRequest, model: type[V]
) -> tuple[V, GradeOdds | None] | Failed:
    """:func:`ask_or_error` for a verdict with a grade: the verdict with the odds of its grade."""
    return await _held(ask.graded(request, model))


class SingleJudgment(Metric):
    """A metric that is one judge call with one template, whose verdict carries the score.

    A subclass names its ``template`` and ``verdict`` model, renders the sample into the user
    message and the task inputs the offline judge reads, and turns the verdict into its outcome. A
    template declared with its reply model (a yes/no question, a graded finding list) gives the
    verdict itself; naming another is refused when the class is declared.
    When the outcome's score is the verdict's grade and the judge reported the grade's odds, the
    outcome keeps them (a score made from the grade in another way does not: the odds are the
    grade's).
    """

    template: ClassVar[Template]
    verdict: ClassVar[type[BaseModel]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        template = cls.__dict__.get("template")
        carried = getattr(template, "verdict", None)
        if template is None or carried is None:
            return
        declared = cls.__dict__.get("verdict", carried)
        if declared is not carried:
            raise TypeError(
                f"{cls.__name__} names the verdict {declared.__name__}, but its template {template.id} "
                f"is read with {carried.__name__}: leave the verdict out, the template gives it"
            )
        cls.verdict = carried

    @abstractmethod
    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        """The user message (the sample in data blocks) and the request's task inputs."""

    @abstractmethod
    def scored(self, verdict: Any) -> Scored:
        """The metric's outcome from the validated verdict."""

    def task_hints(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Options that reach judges reading task inputs but not the prompt (so LLM prompts and
        cache keys stay as they were): none unless a metric says so."""
        return {}

    def render_check(self, sample: Sample, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The user message and task inputs of one check: :meth:`render` and the options' hints.
        A metric whose prompt reads an option (a conversation's history) overrides this, not
        :meth:`score`, so its grade keeps its odds like every other."""
        user, inputs = self.render(sample)
        inputs.update(self.task_hints(options))
        return user, inputs

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        user, inputs = self.render_check(sample, options)
        request = judge_request(self.name, self.template, user, self.verdict, inputs)
        verdict, odds = await ask.graded(request, self.verdict)
        outcome = self.scored(verdict)
        if odds is None or outcome.score != getattr(verdict, GRADE_FIELD, None):
            return outcome
        return replace(outcome, odds=odds)
