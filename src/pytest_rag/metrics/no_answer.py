"""No-answer detection (Open RAG Eval): did the system attempt to answer, or decline?

Score 1 when the answer attempts the question (right or wrong), 0 when it says it cannot answer,
lacks the information, or is empty. An empty answer is a non-answer without asking any judge. The
share of 1s over a run is the "questions answered" percentage of Open RAG Eval's reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..inputs import Sample
from .base import Asker, Scale, Scored
from .evidence import NoAnswerEvidence
from .prompts import block
from .templates import ANSWER_ATTEMPTED
from .toolkit import SingleJudgment
from .verdicts import AttemptVerdict


class NoAnswer(SingleJudgment):
    """Did the system attempt an answer (1) or decline (0)?"""

    name = "no_answer"
    scale = Scale(0, 1)
    default_threshold = 1
    required = ("question",)
    template = ANSWER_ATTEMPTED
    verdict = AttemptVerdict

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        if not sample.answer.strip():  # no judge needed to see that nothing was attempted
            return Scored(
                score=0.0,
                reasons="The answer is empty: no attempt.",
                evidence=NoAnswerEvidence(attempted=False),
            )
        return await super().score(ask, sample, options)

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([block("question", sample.question), block("answer", sample.answer)])
        return user, {"question": sample.question, "answer": sample.answer}

    def scored(self, verdict: AttemptVerdict) -> Scored:
        evidence = NoAnswerEvidence(attempted=verdict.attempted)
        return Scored(score=1.0 if verdict.attempted else 0.0, reasons=verdict.reasoning, evidence=evidence)
