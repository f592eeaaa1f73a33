"""The three single-judgment metrics (the omk RAG metrics specification): faithfulness, answer relevancy, context recall.

One judge call each, a 1-5 score with fixed anchors, the length-is-not-quality paragraph, and the
judge's reasons plus the statements or facts that cost points, so a failure can be read.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ..inputs import Sample
from ..results import Evidence
from .base import Scale, Scored
from .prompts import Template, block, context_blocks
from .toolkit import SingleJudgment, UnsupportedStatements

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


class RelevancyEvidence(Evidence):
    off_topic_or_missing: list[str] = Field(default_factory=list)


class RecallEvidence(Evidence):
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


class Faithfulness(SingleJudgment):
    name = "faithfulness"
    scale = ONE_TO_FIVE
    default_threshold = 4
    required = ("answer", "contexts")
    question = "Is the answer supported by the retrieved context?"
    template = FAITHFULNESS_TEMPLATE
    verdict = FaithfulnessVerdict

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}

    def scored(self, verdict: FaithfulnessVerdict) -> Scored:
        evidence = UnsupportedStatements(unsupported_statements=verdict.unsupported_statements)
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)


class AnswerRelevancy(SingleJudgment):
    name = "answer_relevancy"
    scale = ONE_TO_FIVE
    default_threshold = 3
    required = ("question", "answer")
    question = "Does the answer address the question?"
    template = RELEVANCY_TEMPLATE
    verdict = RelevancyVerdict

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([block("question", sample.question), block("answer", sample.answer)])
        return user, {"question": sample.question, "answer": sample.answer}

    def scored(self, verdict: RelevancyVerdict) -> Scored:
        evidence = RelevancyEvidence(off_topic_or_missing=verdict.off_topic_or_missing)
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)


class ContextRecall(SingleJudgment):
    """Key facts of the reference covered by the answer; the reference falls back to the context."""

    name = "context_recall"
    scale = ONE_TO_FIVE
    default_threshold = 3
    required = ("answer",)
    question = "Does the answer cover the key facts of the reference?"
    template = RECALL_TEMPLATE
    verdict = RecallVerdict

    def check_inputs(self, sample: Sample) -> None:
        super().check_inputs(sample)
        from ..errors import InputError

        if not (sample.reference and sample.reference.strip()) and not sample.contexts:
            raise InputError(
                "context_recall needs a reference (or, failing that, a context); pass reference=..."
            )

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        reference = sample.reference if sample.reference and sample.reference.strip() else None
        reference_text = reference if reference is not None else "\n\n".join(c.text for c in sample.contexts)
        user = "\n\n".join([block("reference", reference_text), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "reference": reference_text}

    def scored(self, verdict: RecallVerdict) -> Scored:
        evidence = RecallEvidence(missing_facts=verdict.missing_facts)
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)
