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
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from ..inputs import Sample
from ..results import Evidence
from .base import Asker, Metric, Scale, Scored
from .prompts import Template, block, context_blocks
from .toolkit import Failed, ask_or_error, judge_request

SHORT_REASON = "one or two sentences"


class AccuracyRating(BaseModel):
    reasoning: str = Field(description=SHORT_REASON)
    score: Literal[0, 2, 4] = Field(description="the rating: 0, 2 or 4")


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


ACCURACY_1 = Template(
    id="answer_accuracy.template1",
    version="1",
    task=(
        "Task: compare the response with the reference answer to the question and rate their "
        "agreement. Judge the facts and conclusions, not the wording."
    ),
    scale=(
        "Ratings:\n"
        "4 - the response agrees exactly with the reference.\n"
        "2 - the response agrees with the reference only in part.\n"
        "0 - the response is wrong, or does not answer the same question as the reference."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 2 or 4"},
)

ACCURACY_2 = Template(
    id="answer_accuracy.template2",
    version="1",
    task=(
        "Task: you are given a question, a candidate reply (in the response block) and a trusted "
        "answer (in the reference block). Say how closely the candidate matches the trusted answer "
        "in substance."
    ),
    scale=(
        "Ratings:\n"
        "0 - they disagree, or the candidate addresses a different question.\n"
        "2 - they share part of their substance.\n"
        "4 - they state the same thing."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 2 or 4"},
)

RELEVANCE_1 = Template(
    id="context_relevance.template1",
    version="1",
    task="Task: rate how relevant the retrieved contexts, taken together, are to the question.",
    scale=(
        "Ratings:\n"
        "2 - the contexts are fully relevant: they hold what is needed to answer the question.\n"
        "1 - the contexts are partly relevant.\n"
        "0 - the contexts are not relevant to the question at all."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)

RELEVANCE_2 = Template(
    id="context_relevance.template2",
    version="1",
    task=(
        "Task: a user asked the question below and a search system returned the passages shown. "
        "Would those passages let someone answer the user's question?"
    ),
    scale=(
        "Ratings:\n"
        "0 - no: the passages do not bear on the question.\n"
        "1 - in part: some useful information, but incomplete or mixed with unrelated material.\n"
        "2 - yes: the passages cover the question."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)

GROUNDED_1 = Template(
    id="response_groundedness.template1",
    version="1",
    task=(
        "Task: rate how well the answer is grounded in the retrieved contexts: whether each of its "
        "statements can be found in, or inferred from, the contexts."
    ),
    scale=(
        "Ratings:\n"
        "2 - fully grounded: every statement is found in or inferred from the contexts.\n"
        "1 - partly grounded.\n"
        "0 - not grounded in the contexts at all."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)

GROUNDED_2 = Template(
    id="response_groundedness.template2",
    version="1",
    task=(
        "Task: check the answer against the source passages. Could a reader who has only these "
        "passages confirm what the answer says? Use only the passages, not your own knowledge."
    ),
    scale=(
        "Ratings:\n"
        "0 - no statement of the answer can be confirmed from the passages.\n"
        "1 - some statements can be confirmed, others cannot.\n"
        "2 - every statement can be confirmed."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)


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
    name = "answer_accuracy"
    scale = Scale(0, 4)
    default_threshold = 2
    required = ("question", "answer", "reference")
    question = "Does the answer agree with the reference answer?"
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
    name = "context_relevance"
    scale = Scale(0, 2)
    default_threshold = 1
    required = ("question", "contexts")
    question = "Are the retrieved contexts relevant to the question?"
    templates = (RELEVANCE_1, RELEVANCE_2)
    verdict = ThreeLevelRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([block("question", sample.question), context_blocks(sample.contexts)])
        return user, {"question": sample.question, "contexts": [c.text for c in sample.contexts]}


class ResponseGroundedness(DualTemplateMetric):
    name = "response_groundedness"
    scale = Scale(0, 2)
    default_threshold = 1
    required = ("answer", "contexts")
    question = "Is the answer grounded in the retrieved contexts?"
    templates = (GROUNDED_1, GROUNDED_2)
    verdict = ThreeLevelRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}
