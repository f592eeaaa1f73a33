"""The NVIDIA dual-template metrics of RAGAS: answer accuracy, context relevance, response
groundedness.

Each makes two independent judgments with differently worded templates and averages them after
normalising, which evens out one template's quirks:

* ``answer_accuracy``: ratings 0/2/4; the second template swaps the roles, presenting the reference
  as the response under judgment and the answer as the reference.
* ``context_relevance``: ratings 0/1/2 of the retrieved contexts against the question.
* ``response_groundedness``: ratings 0/1/2 of the answer against the retrieved contexts.

The raw score is the mean of the valid ratings on the metric's scale (normalised by dividing by the
top rating). When one judgment fails (an invalid reply after the repair attempt, a refusal, a
network failure past the deadline) the other rating is used alone and the failure is kept in the
evidence; when both fail the metric fails with the first error. Policy errors (replay miss, budget,
dry run) are never tolerated.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from ..inputs import Sample
from .base import Asker, Metric, Scale, Scored
from .evidence import DualRatingEvidence, TemplateRating
from .prompts import Template, block, context_blocks
from .templates import ACCURACY_1, ACCURACY_2, GROUNDED_1, GROUNDED_2, RELEVANCE_1, RELEVANCE_2
from .toolkit import Failed, ask_or_error, judge_request
from .verdicts import AccuracyRating, ThreeLevelRating


class DualTemplateMetric(Metric):
    """Two judgments by two templates, normalised and averaged, one valid rating used alone."""

    templates: ClassVar[tuple[Template, Template]]
    verdict: ClassVar[type[AccuracyRating] | type[ThreeLevelRating]]

    @abstractmethod
    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        """The user message and task inputs for template ``which`` (0 or 1)."""

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        requests = []
        for which, template in enumerate(self.templates):
            user, inputs = self.render(sample, which)
            requests.append(judge_request(self.name, template, user, self.verdict, inputs))
        outcomes = await ask.gather(*(ask_or_error(ask, r, self.verdict) for r in requests))
        rows: list[TemplateRating] = []
        valid: list[int] = []
        for template, outcome in zip(self.templates, outcomes, strict=True):
            if isinstance(outcome, Failed):
                rows.append(TemplateRating(template=template.id, error=outcome.error.reason))
            else:
                valid.append(int(outcome.score))
                rows.append(
                    TemplateRating(template=template.id, rating=int(outcome.score), reason=outcome.reasoning)
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
        )


class AnswerAccuracy(DualTemplateMetric):
    """Does the answer agree with the reference answer?"""

    name = "answer_accuracy"
    scale = Scale(0, 4)
    default_threshold = 2
    required = ("question", "answer", "reference")
    templates = (ACCURACY_1, ACCURACY_2)
    verdict = AccuracyRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        reference = sample.reference or ""
        # Template 2 swaps the roles: the reference is judged against the answer.
        response, gold = (sample.answer, reference) if which == 0 else (reference, sample.answer)
        user = "\n\n".join(
            [block("question", sample.question), block("response", response), block("reference", gold)]
        )
        return user, {"question": sample.question, "response": response, "reference": gold}


class ContextRelevance(DualTemplateMetric):
    """Are the retrieved contexts relevant to the question?"""

    name = "context_relevance"
    scale = Scale(0, 2)
    default_threshold = 1
    required = ("question", "contexts")
    templates = (RELEVANCE_1, RELEVANCE_2)
    verdict = ThreeLevelRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([block("question", sample.question), context_blocks(sample.contexts)])
        return user, {"question": sample.question, "contexts": [c.text for c in sample.contexts]}


class ResponseGroundedness(DualTemplateMetric):
    """Is the answer grounded in the retrieved contexts?"""

    name = "response_groundedness"
    scale = Scale(0, 2)
    default_threshold = 1
    required = ("answer", "contexts")
    templates = (GROUNDED_1, GROUNDED_2)
    verdict = ThreeLevelRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}
