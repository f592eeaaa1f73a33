"""A rubric metric (RAGAS's rubric score): one judgment against levels the user writes.

``rubric={1: "wrong or off topic", 3: "right but incomplete", 5: "right and complete"}`` (integer
levels, at least two, as a mapping of level to description) defines the scale: the lowest and
highest level are the scale's ends, and the judge must answer with one of the levels. An optional
``criteria="..."`` says what is being assessed. The rubric is the test author's own text and forms
the instruction part of the prompt; the answer, question, contexts and reference stay in data
blocks. The offline judge cannot apply free-form rubrics and refuses. Levels of one digit each are
grades like any other: a judge that reports the odds of its grade gives the check's expected level.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ..errors import InputError
from ..ground.integer_keys import integer_keyed
from ..helper_forms import Check, given, score_form
from ..inputs import ContextLike, Sample
from ..results import Evidence
from .base import Asker, Metric, Scale, Scored
from .judging import judge_request
from .options import read_text
from .prompts import REASONING, ReasonedVerdict, Template, block, context_blocks

TEMPLATE_ID = "rubric.score"
TEMPLATE_VERSION = "2"


@functools.lru_cache(maxsize=64)
def verdict_model(levels: tuple[int, ...]) -> type[BaseModel]:
    """A verdict model whose score must be one of the rubric's levels (schema enum)."""
    allowed: Any = Literal.__getitem__(levels)
    model: type[BaseModel] = create_model(
        "RubricVerdict",
        __base__=ReasonedVerdict,
        score=(allowed, Field(description="one of the rubric levels")),
    )
    return model


class RubricEvidence(Evidence):
    level: int
    description: str


def read_rubric(options: Mapping[str, Any]) -> dict[int, str]:
    raw = options.get("rubric")
    if not isinstance(raw, Mapping) or len(raw) < 2:
        raise InputError(
            "rubric needs at least two levels: rubric={1: 'what earns 1', 5: 'what earns 5'} (integer levels)"
        )
    levels = integer_keyed(raw, lambda key: InputError(f"rubric: level {key!r} is not an integer"))
    for level, text in levels.items():
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"rubric: level {level} needs a description")
    return {level: text.strip() for level, text in sorted(levels.items())}


class Rubric(Metric):
    """Which of the user's rubric levels does the answer reach?

    RAGAS's rubric score: one judgment against levels the test writes.
    """

    name = "rubric"
    scale = Scale(0, 1)  # replaced per instance by the rubric's own levels
    default_threshold = None
    required = ("answer",)
    options = ("rubric", "criteria")

    def scale_for(self, options: Mapping[str, Any]) -> Scale:
        levels = read_rubric(options)
        return Scale(min(levels), max(levels))

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        levels = read_rubric(options)
        criteria = read_text(options, "criteria", metric=self.name)
        # The scale is only known from the options; results read it from the instance.
        self.__dict__["scale"] = Scale(min(levels), max(levels))
        template = Template(
            id=TEMPLATE_ID,
            version=TEMPLATE_VERSION,
            task="Task: score the answer against the rubric below and pick the one level it reaches. "
            "Judge by the rubric alone: its levels are the only criteria, so reward or penalise nothing "
            "they do not mention (length, style, or facts beyond what they ask about) and bring in no "
            "standard of your own." + (f"\nWhat is assessed: {criteria}" if criteria else ""),
            scale="Rubric levels:\n" + "\n".join(f"{level} - {text}" for level, text in levels.items()),
            fields={"reasoning": REASONING, "score": "one of " + ", ".join(str(v) for v in levels)},
            length_rule="",
        )
        parts = []
        if sample.question.strip():
            parts.append(block("question", sample.question))
        if sample.contexts:
            parts.append(context_blocks(sample.contexts))
        if sample.reference and sample.reference.strip():
            parts.append(block("reference", sample.reference))
        parts.append(block("answer", sample.answer))
        model = verdict_model(tuple(levels))
        request = judge_request(
            self.name,
            template,
            "\n\n".join(parts),
            model,
            {"answer": sample.answer, "levels": {str(k): v for k, v in levels.items()}},
        )
        verdict, odds = await ask.graded(request, model)
        level = int(verdict.score)  # type: ignore[attr-defined]
        return Scored(
            score=level,
            reasons=str(verdict.reasoning),  # type: ignore[attr-defined]
            evidence=RubricEvidence(level=level, description=levels[level]),
            odds=odds,
        )


class RubricHelpers:
    """The ``rag_judge`` helpers of the rubric metric (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("rubric")
    def rubric(
        self,
        answer: str,
        rubric: Mapping[int, str],
        *,
        question: str | None = None,
        contexts: ContextLike = None,
        reference: str | None = None,
        criteria: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """One judgment against the levels of a rubric the test writes."""
        return Check(
            answer=answer,
            question=question,
            contexts=contexts,
            reference=reference,
            threshold=threshold,
            options={"rubric": rubric, **given(criteria=criteria)},
        )

    assert_rubric, arubric, aassert_rubric = rubric.other_forms()
