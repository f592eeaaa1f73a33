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
from typing import Any, ClassVar, Literal, Protocol, cast

from pydantic import BaseModel, Field

from ..inputs import Sample
from ..results import Evidence
from ..scoring.grade_odds import GradeOdds
from .base import Asker, Metric, Scored
from .judging import Failed, graded_or_error, judge_request
from .prompts import SHORT_REASON, Template


class ThreeLevelRating(BaseModel):
    reasoning: str = Field(description=SHORT_REASON)
    score: Literal[0, 1, 2] = Field(description="the rating: 0, 1 or 2")


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

    templates: ClassVar[tuple[Template, Template]]
    verdict: ClassVar[type[BaseModel]]
    """A model with a ``reasoning`` and an integer ``score`` (a :class:`Rating`)."""

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
