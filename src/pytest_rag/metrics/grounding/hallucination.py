"""Hallucination: how factually consistent is the answer with the passages, from 0 to 1?"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ...helper_forms import Check, score_form
from ...inputs import ContextLike, Sample
from ..base import Scale, Scored
from ..judging import SingleJudgment
from ..prompts import REASONING, Template, block, context_blocks
from .faithfulness import UnsupportedStatements

HALLUCINATION_CONSISTENCY = Template(
    id="hallucination.consistency",
    version="1",
    task=(
        "Task: estimate how factually consistent the answer is with the source passages, as a "
        "number from 0 to 1: the probability that a careful reader holding only the passages would "
        "accept everything the answer states. Statements the passages do not back count against the "
        "answer even if they are true."
    ),
    scale=(
        "Anchors:\n"
        "1.0 - everything is stated in or follows from the passages.\n"
        "0.75 - one minor detail is not backed.\n"
        "0.5 - a substantial part is not backed.\n"
        "0.25 - most of the answer is not backed.\n"
        "0.0 - the answer contradicts the passages or is invented."
    ),
    fields={
        "reasoning": REASONING,
        "unsupported_statements": "list of the answer's unsupported statements",
        "score": "number from 0 to 1",
    },
)


class ConsistencyScore(BaseModel):
    reasoning: str = Field(description=REASONING)
    unsupported_statements: list[str] = Field(
        description="statements of the answer that the contexts do not support; empty if none"
    )
    score: float = Field(ge=0, le=1, description="factual consistency from 0 to 1")


class Hallucination(SingleJudgment):
    """How factually consistent is the answer with the retrieved passages (0-1)?

    Open RAG Eval computes it with Vectara's HHEM classifier. Here the two kinds of judge reach the
    same kind of number by different means, and results from one are not comparable with the other:
    the offline judge answers with its calibrated probability that the whole answer is supported by
    the contexts (:meth:`~pytest_rag.offline.scorer.LocalScorer.support`), a classifier score in the
    HHEM sense that needs no generation; an LLM judge is asked directly for a 0-1 consistency score
    with anchors, in one call. Higher is better (more consistent, less hallucination), as in HHEM.
    """

    name = "hallucination"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("answer", "contexts")
    template = HALLUCINATION_CONSISTENCY
    verdict = ConsistencyScore

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts, tag="passage"), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}

    def scored(self, verdict: ConsistencyScore) -> Scored:
        evidence = UnsupportedStatements(unsupported_statements=verdict.unsupported_statements)
        return Scored(score=float(verdict.score), reasons=verdict.reasoning, evidence=evidence)


class HallucinationHelpers:
    """The ``rag_judge`` helpers of hallucination."""

    @score_form("hallucination")
    def hallucination(self, output: str, context: ContextLike, threshold: float | None = None) -> Check:
        """0-1 factual consistency of the answer with the passages (HHEM-style; higher is better)."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_no_hallucination, ahallucination, aassert_no_hallucination = hallucination.other_forms()
