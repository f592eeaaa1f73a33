"""The three single-judgment metrics of seed 000: faithfulness, answer relevancy, context recall.

One judge call each, a 1-5 score with fixed anchors, the length-is-not-quality paragraph, and the
judge's reasons plus the statements or facts that cost points, so a failure can be read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ..inputs import Sample
from .base import Asker, Metric, Scale, Scored
from .prompts import Template, block, context_blocks
from .toolkit import judge_request

ONE_TO_FIVE = Scale(1, 5)
REASONING = "two to four sentences explaining the score, citing the decisive statements"


class FaithfulnessVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    unsupported_statements: list[str] = Field(
        description="statements of the answer that the context does not support or contradicts; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


class RelevancyVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    off_topic_or_missing: list[str] = Field(
        description="parts of the answer that are off-topic or evasive, and parts of the question left "
        "unanswered; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


class RecallVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    missing_facts: list[str] = Field(
        description="key facts of the reference the answer does not cover; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


class GroundingEvidence(BaseModel):
    unsupported_statements: list[str] = Field(default_factory=list)


class RelevancyEvidence(BaseModel):
    off_topic_or_missing: list[str] = Field(default_factory=list)


class RecallEvidence(BaseModel):
    missing_facts: list[str] = Field(default_factory=list)


FAITHFULNESS_TEMPLATE = Template(
    id="faithfulness.single",
    version="1",
    task=(
        "Task: decide how well the answer is supported by the retrieved context. Consider every factual "
        "statement the answer makes and check whether the context states it or clearly implies it. "
        "Use only the context, not your own knowledge: a true statement that the context does not "
        "support still counts as unsupported."
    ),
    scale=(
        "Scale:\n"
        "5 - every statement is supported by the context; nothing is invented.\n"
        "4 - nearly all statements are supported; one or two minor details are not.\n"
        "3 - roughly half of the statements are supported.\n"
        "2 - most statements are unsupported.\n"
        "1 - the answer is invented or contradicts the context."
    ),
    fields={
        "reasoning": REASONING,
        "unsupported_statements": "list of the answer's statements that the context does not support",
        "score": "integer 1-5",
    },
)

RELEVANCY_TEMPLATE = Template(
    id="answer_relevancy.single",
    version="1",
    task=(
        "Task: decide how well the answer addresses the question that was asked: whether it answers "
        "it directly and completely, stays on topic, and does not evade. Do not judge whether the answer "
        "is true; only whether it responds to the question."
    ),
    scale=(
        "Scale:\n"
        "5 - answers the question completely and on topic, with nothing missing or superfluous.\n"
        "4 - on topic, with a little redundancy or a small omission.\n"
        "3 - partly on topic; partly off topic or evasive.\n"
        "2 - mostly off topic.\n"
        "1 - entirely off topic, or declines to answer."
    ),
    fields={
        "reasoning": REASONING,
        "off_topic_or_missing": "list of off-topic or evasive parts and unanswered parts of the question",
        "score": "integer 1-5",
    },
)

RECALL_TEMPLATE = Template(
    id="context_recall.single",
    version="1",
    task=(
        "Task: decide how many of the key facts in the reference the answer covers. List the key facts "
        "of the reference to yourself, then check each against the answer. Facts the answer adds beyond "
        "the reference neither help nor hurt."
    ),
    scale=(
        "Scale:\n"
        "5 - all key facts are covered.\n"
        "4 - most are covered; one or two minor facts are missing.\n"
        "3 - about half are covered.\n"
        "2 - only a few are covered.\n"
        "1 - none are covered."
    ),
    fields={
        "reasoning": REASONING,
        "missing_facts": "list of the reference's key facts that the answer does not cover",
        "score": "integer 1-5",
    },
)


class Faithfulness(Metric):
    name: ClassVar[str] = "faithfulness"
    scale: ClassVar[Scale] = ONE_TO_FIVE
    default_threshold: ClassVar[float | None] = 4
    required: ClassVar[tuple[str, ...]] = ("answer", "contexts")
    question: ClassVar[str] = "Is the answer supported by the retrieved context?"

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        template = FAITHFULNESS_TEMPLATE
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        inputs: dict[str, Any] = {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}
        if sample.question:
            # For judges that read inputs (the offline judge turns "yes"/"no" into the claim it
            # makes). The prompt does not show it: faithfulness is judged against the context
            # alone, and LLM prompts and cache keys stay as they were.
            inputs["question"] = sample.question
        request = judge_request(self.name, template, user, FaithfulnessVerdict, inputs)
        verdict = await ask(request, FaithfulnessVerdict)
        return Scored(
            score=verdict.score,
            reasons=verdict.reasoning,
            evidence=GroundingEvidence(unsupported_statements=verdict.unsupported_statements),
        )


class AnswerRelevancy(Metric):
    name: ClassVar[str] = "answer_relevancy"
    scale: ClassVar[Scale] = ONE_TO_FIVE
    default_threshold: ClassVar[float | None] = 3
    required: ClassVar[tuple[str, ...]] = ("question", "answer")
    question: ClassVar[str] = "Does the answer address the question?"

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        template = RELEVANCY_TEMPLATE
        user = "\n\n".join([block("question", sample.question), block("answer", sample.answer)])
        inputs = {"question": sample.question, "answer": sample.answer}
        request = judge_request(self.name, template, user, RelevancyVerdict, inputs)
        verdict = await ask(request, RelevancyVerdict)
        return Scored(
            score=verdict.score,
            reasons=verdict.reasoning,
            evidence=RelevancyEvidence(off_topic_or_missing=verdict.off_topic_or_missing),
        )


class ContextRecall(Metric):
    """Key facts of the reference covered by the answer; the reference falls back to the context."""

    name: ClassVar[str] = "context_recall"
    scale: ClassVar[Scale] = ONE_TO_FIVE
    default_threshold: ClassVar[float | None] = 3
    required: ClassVar[tuple[str, ...]] = ("answer",)
    question: ClassVar[str] = "Does the answer cover the key facts of the reference?"

    def check_inputs(self, sample: Sample) -> None:
        super().check_inputs(sample)
        from ..errors import InputError

        if not (sample.reference and sample.reference.strip()) and not sample.contexts:
            raise InputError(
                "context_recall needs a reference (or, failing that, a context); pass reference=..."
            )

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        template = RECALL_TEMPLATE
        reference = sample.reference if sample.reference and sample.reference.strip() else None
        reference_text = reference if reference is not None else "\n\n".join(c.text for c in sample.contexts)
        user = "\n\n".join([block("reference", reference_text), block("answer", sample.answer)])
        inputs = {"answer": sample.answer, "reference": reference_text}
        request = judge_request(self.name, template, user, RecallVerdict, inputs)
        verdict = await ask(request, RecallVerdict)
        return Scored(
            score=verdict.score,
            reasons=verdict.reasoning,
            evidence=RecallEvidence(missing_facts=verdict.missing_facts),
        )


SINGLE_JUDGMENT_METRICS: tuple[type[Metric], ...] = (Faithfulness, AnswerRelevancy, ContextRecall)
