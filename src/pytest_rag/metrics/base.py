"""What a metric is: a declarative unit that asks judges typed questions and turns verdicts into a score.

A metric never talks HTTP and never touches the cache: it builds :class:`~pytest_rag.judges.request.JudgeRequest`
objects and awaits an :class:`Asker`, which returns the validated verdict. Multi-step metrics (claims
then verification, nuggets) are compositions of such single questions. A metric whose score is a
grade (or a mean of grades) may also ask for the odds of each grade (:meth:`Asker.graded`) and keep
them with its outcome, so a check reports its expected score and how likely it was to pass.
"""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from pydantic import BaseModel

from ..inputs import Sample
from ..results import Scale
from ..scoring.grade_odds import GradeOdds

__all__ = ["Asker", "Metric", "Scale", "Scored"]

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


class Asker(Protocol):
    """Asks the judge bound to this evaluation one question and returns its validated verdict."""

    @property
    def judge_label(self) -> str: ...

    async def __call__(self, request: Any, model: type[V]) -> V: ...

    async def graded(self, request: Any, model: type[V]) -> tuple[V, GradeOdds | None]:
        """The verdict, and the odds of its grade when the judge reported how sure it was (None
        otherwise: a verdict without a grade, a provider without log-probabilities)."""
        ...

    async def gather(self, *awaitables: Awaitable[T]) -> list[T]: ...

    async def embed(self, texts: Sequence[str], model: str | None) -> Any:
        """Vectors for ``texts`` from the embedder that goes with this judge (``model`` overrides it:
        a model name, ``"local"`` or ``"openai:MODEL"``), cached and counted like a judgment: a float
        matrix (a numpy array), one row per text; compare rows with :func:`~pytest_rag.scoring.similarity.cosine`."""
        ...


@dataclass(frozen=True)
class Scored:
    """A metric's outcome for one sample and one judge (before repeats and ensembles are combined).

    ``odds`` is the distribution of ``score`` when the judge said how likely each grade was: the
    grade's own odds for a one-grade metric, those of the mean for a metric that averages grades."""

    score: float
    reasons: str = ""
    evidence: BaseModel | None = None
    details: Mapping[str, float] = field(default_factory=dict)
    odds: GradeOdds | None = None


class Metric(ABC):
    """Base of every metric. Subclasses set the class attributes and implement :meth:`score`."""

    name: ClassVar[str]
    mode: ClassVar[str] = "default"
    scale: ClassVar[Scale]
    default_threshold: ClassVar[float | None] = None
    required: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[tuple[str, ...]] = ()
    """The options the metric reads (``k_values=``, ``citations=`` ...); any other is an input error."""
    asks_judge: ClassVar[bool] = True
    """False for a metric computed from its inputs alone (passage recall, lexical consistency): its
    results are labelled ``computed``, not with a judge that was never asked, and it is computed once,
    not once per judge and repeat."""

    @abstractmethod
    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        """Judge ``sample`` through ``ask`` and return the raw score on :attr:`scale`."""

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Reject option names the metric does not read, so a typo is an error rather than ignored."""
        from ..errors import InputError

        unknown = sorted(set(options) - set(self.options))
        if unknown:
            allowed = ", ".join(self.options) if self.options else "none"
            close = difflib.get_close_matches(unknown[0], self.options, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else self._mode_reading(unknown[0])
            raise InputError(
                f"{self.name} got unknown option(s) {unknown}{hint}; the options it reads: {allowed}"
            )

    def _mode_reading(self, option: str) -> str:
        """Where an option this mode does not read belongs, when another mode of the metric reads
        it, or one close to it (``batch_size`` is faithfulness[claims]'s): a hint naming that mode,
        else nothing."""
        from .catalog import builtin_metrics

        readers = {
            name: other.mode
            for other in builtin_metrics()
            if other.name == self.name and other.mode != self.mode
            for name in other.options
        }
        close = difflib.get_close_matches(option, list(readers), n=1)
        if not close:
            return ""
        found, mode = close[0], readers[close[0]]
        meant = "" if found == option else f"did you mean {found!r}? "
        return f" ({meant}{found} is an option of {self.name}[{mode}]: give mode={mode!r})"

    def scale_for(self, options: Mapping[str, Any]) -> Scale:
        """The scale of a check with these options: the class's own, unless options define it."""
        return self.scale

    def check_threshold(self, threshold: float | None, options: Mapping[str, Any], source: str) -> None:
        """A bar outside the scale can never be met (or is always met): an input error before any
        judge is asked. ``source`` says where the bar came from (``threshold=7``, an ini key)."""
        from ..errors import InputError

        scale = self.scale_for(options)
        if threshold is not None and not scale.low <= threshold <= scale.high:
            raise InputError(
                f"{self.name}: {source} is outside the metric's {scale} scale, so the check could "
                f"{'never pass' if threshold > scale.high else 'never fail'}; give a threshold from "
                f"{scale.low:g} to {scale.high:g}"
            )

    def check_inputs(self, sample: Sample) -> None:
        """Raise :class:`~pytest_rag.errors.InputError` when a required input is missing."""
        from ..errors import InputError

        for name in self.required:
            value = getattr(sample, name)
            if name == "contexts":
                if not value:
                    raise InputError(f"{self.name} needs retrieved contexts; pass contexts=[...]")
            elif value is None or (isinstance(value, str) and not value.strip()):
                raise InputError(f"{self.name} needs a non-empty {name}; pass {name}=...")
