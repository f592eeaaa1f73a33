"""Hallucination (Open RAG Eval): a 0-1 factual-consistency score of the answer against the contexts.

Open RAG Eval computes it with Vectara's HHEM classifier. Here the two kinds of judge reach the same
kind of number by different means, and results from one are not comparable with the other:

* the offline judge answers with its calibrated probability that the whole answer is supported by
  the contexts (:meth:`~pytest_rag.offline.scorer.LocalScorer.support`), which is a classifier score
  in the HHEM sense and needs no generation;
* an LLM judge is asked directly for a 0-1 consistency score with anchors, in one call.

Higher is better (more consistent, less hallucination), as in HHEM.
"""

from __future__ import annotations

from typing import Any

from ..inputs import Sample
from .base import Scale, Scored
from .evidence import UnsupportedStatements
from .prompts import block, context_blocks
from .templates import HALLUCINATION_CONSISTENCY
from .toolkit import SingleJudgment
from .verdicts import ConsistencyScore


class Hallucination(SingleJudgment):
    """How factually consistent is the answer with the retrieved passages (0-1)?"""

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
