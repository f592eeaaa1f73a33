"""Two judgments by two differently worded templates, normalised and averaged (the way the NVIDIA
metrics of RAGAS rate: answer accuracy, context relevance, response groundedness).

A second wording evens out one template's quirks. The raw score is the mean of the valid ratings on
the metric's scale. When one judgment fails (an invalid reply after the repair attempt, a refusal, a
network failure past the deadline) the other rating is used alone and the failure is kept in the
evidence; when both fail the metric fails with the first error. Policy errors (replay miss, budget,
dry run) are never tolerated. When the judge reported the odds of every valid rating, the outcome
carries the odds of their mean (the two judgments taken as independent).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, cast

from pydantic import BaseModel, Field, create_model

from ..inputs import Sample
from ..results import Evidence, Scale
from ..scoring.grade_odds import GradeOdds
from .base import Asker, Metric, Scored
from .judging import Failed, graded_or_error, judge_request
from .prompts import LENGTH_RULE, SHORT_REASON, Template


def _spoken(levels: tuple[int, ...]) -> str:
    """``0, 1 or 2``: the levels as a template and a reply model ask for them."""
    return f"{', '.join(map(str, levels[:-1]))} or {levels[-1]}"


class LevelRating(BaseModel):
    """A reasoned rating on a few whole-number levels (:attr:`levels`), the reply of one template of
    a dual-template metric. Built by :func:`level_rating`."""

    levels: ClassVar[tuple[int, ...]]
    reasoning: str = Field(description=SHORT_REASON)


def level_rating(name: str, levels: tuple[int, ...], *, module: str) -> type[LevelRating]:
    """The reply model ``name``: the reasons, then a ``score`` that is one of ``levels``. Its schema
    is the one the metrics declared as a class before (name, fields, order, descriptions), so cache
    keys do not move; it belongs to the module that asks for it."""
    one_of_levels: Any = Literal[levels]
    model = create_model(
        name,
        __base__=LevelRating,
        __module__=module,
        score=(one_of_levels, Field(description=f"the rating: {_spoken(levels)}")),
    )
    model.levels = levels
    return model


ThreeLevelRating = level_rating("ThreeLevelRating", (0, 1, 2), module=__name__)
"""The 0/1/2 rating of response groundedness and context relevance."""


@dataclass(frozen=True)
class Wording:
    """One template's words for a rating question: its task, and what each level means, in the order
    the template lists them (every level of the reply model, once)."""

    task: str
    ratings: Mapping[int, str]


@dataclass(frozen=True)
class DualRatingQuestion:
    """One rating question in two wordings, with the reply model both are read with and the scale
    their ratings lie on; a :class:`DualTemplateMetric` takes its templates, verdict and scale from
    here. Built by :func:`dual_rating_question`."""

    templates: tuple[Template, Template]
    verdict: type[LevelRating]
    scale: Scale


def dual_rating_question(
    metric: str,
    verdict: type[LevelRating],
    first: Wording,
    second: Wording,
    *,
    version: str = "1",
    length_rule: str = LENGTH_RULE,
) -> DualRatingQuestion:
    """``metric``'s two templates (ids ``<metric>.template1`` and ``.template2``, both at
    ``version``), each asking for the reasons and a rating on ``verdict``'s levels, with its
    wording's meaning of every level, and ``length_rule`` where the ratings grade an answer."""
    templates = []
    for number, wording in enumerate((first, second), start=1):
        if sorted(wording.ratings) != sorted(verdict.levels):
            raise ValueError(
                f"{metric}.template{number} rates on {sorted(wording.ratings)}, but {verdict.__name__} "
                f"takes {list(verdict.levels)}: give every level of the reply model one meaning"
            )
        lines = "\n".join(f"{level} - {meaning}" for level, meaning in wording.ratings.items())
        templates.append(
            Template(
                id=f"{metric}.template{number}",
                version=version,
                task=wording.task,
                scale=f"Ratings:\n{lines}",
                fields={"reasoning": SHORT_REASON, "score": _spoken(verdict.levels)},
                length_rule=length_rule,
            )
        )
    return DualRatingQuestion(
        templates=(templates[0], templates[1]),
        verdict=verdict,
        scale=Scale(min(verdict.levels), max(verdict.levels)),
    )


class TemplateRating(BaseModel):
    template: str
    rating: int | None = None
    reason: str = ""
    error: str | None = None


class DualRatingEvidence(Evidence):
    ratings: list[TemplateRating] = Field(default_factory=list)


class Rating(Protocol):
    """What a dual-template metric reads of its verdict model."""

    @property
    def reasoning(self) -> str: ...

    @property
    def score(self) -> int: ...


class DualTemplateMetric(Metric):
    """Two judgments by two templates, normalised and averaged, one valid rating used alone."""

    question: ClassVar[DualRatingQuestion]
    templates: ClassVar[tuple[Template, Template]]
    verdict: ClassVar[type[BaseModel]]
    """A model with a ``reasoning`` and an integer ``score`` (a :class:`Rating`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        question = cls.__dict__.get("question")
        if question is not None:
            cls.templates, cls.verdict, cls.scale = question.templates, question.verdict, question.scale

    @abstractmethod
    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        """The user message and task inputs for template ``which`` (0 or 1)."""

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        requests = []
        for which, template in enumerate(self.templates):
            user, inputs = self.render(sample, which)
            requests.append(judge_request(self.name, template, user, self.verdict, inputs))
        outcomes = await ask.gather(*(graded_or_error(ask, r, self.verdict) for r in requests))
        rows: list[TemplateRating] = []
        valid: list[int] = []
        odds: list[GradeOdds | None] = []
        for template, outcome in zip(self.templates, outcomes, strict=True):
            if isinstance(outcome, Failed):
                rows.append(TemplateRating(template=template.id, error=outcome.error.reason))
            else:
                rating = cast(Rating, outcome[0])
                valid.append(int(rating.score))
                odds.append(outcome[1])
                rows.append(
                    TemplateRating(template=template.id, rating=int(rating.score), reason=rating.reasoning)
                )
        if not valid:
            raise next(o.error for o in outcomes if isinstance(o, Failed))
        raw = sum(valid) / len(valid)
        details = {
            f"rating_{i}": float(r.rating) for i, r in enumerate(rows, start=1) if r.rating is not None
        }
        details["valid_ratings"] = float(len(valid))
        note = "" if len(valid) == 2 else " (one judgment failed; the other rating is used alone)"
        return Scored(
            score=raw,
            reasons=" | ".join(r.reason for r in rows if r.rating is not None) + note,
            evidence=DualRatingEvidence(ratings=rows),
            details=details,
            odds=GradeOdds.mean_of(odds),
        )
