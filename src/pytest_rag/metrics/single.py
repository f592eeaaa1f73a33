"""The three single-judgment metrics (the omk RAG metrics specification): faithfulness, answer relevancy, context recall.

One judge call each, a 1-5 score with fixed anchors, the length-is-not-quality paragraph, and the
judge's reasons plus the statements or facts that cost points, so a failure can be read.
"""

from __future__ import annotations

from typing import Any

from ..inputs import Sample
from .base import Scale, Scored
from .evidence import RecallEvidence, RelevancyEvidence, UnsupportedStatements
from .prompts import block, context_blocks
from .templates import FAITHFULNESS_TEMPLATE, RECALL_TEMPLATE, RELEVANCY_TEMPLATE
from .toolkit import SingleJudgment
from .verdicts import FaithfulnessVerdict, RecallVerdict, RelevancyVerdict

ONE_TO_FIVE = Scale(1, 5)


class Faithfulness(SingleJudgment):
    """Is the answer supported by the retrieved context?"""

    name = "faithfulness"
    scale = ONE_TO_FIVE
    default_threshold = 4
    required = ("answer", "contexts")
    template = FAITHFULNESS_TEMPLATE
    verdict = FaithfulnessVerdict

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        inputs: dict[str, Any] = {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}
        if sample.question:
            # For judges that read inputs (the offline judge turns "yes"/"no" into the claim it
            # makes). The prompt does not show it: faithfulness is judged against the context
            # alone, and LLM prompts and cache keys stay as they were.
            inputs["question"] = sample.question
        return user, inputs

    def scored(self, verdict: FaithfulnessVerdict) -> Scored:
        evidence = UnsupportedStatements(unsupported_statements=verdict.unsupported_statements)
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)


class AnswerRelevancy(SingleJudgment):
    """Does the answer address the question?"""

    name = "answer_relevancy"
    scale = ONE_TO_FIVE
    default_threshold = 3
    required = ("question", "answer")
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
