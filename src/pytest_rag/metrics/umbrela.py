"""UMBRELA passage grading (TREC 2024 RAG track, Open RAG Eval): 0-3 relevance per retrieved passage.

Grades: 0 unrelated; 1 related but does not answer; 2 holds some answer, possibly unclear or buried;
3 dedicated to the question and holds the exact answer. One judge call per passage. The score is
the mean grade (0-3); from the grades, with a passage relevant at grade >= 2, the result's details
also hold precision@k and AP@k for each requested k (default 1, 3, 5) and the reciprocal rank of
the first relevant passage (:mod:`pytest_rag.scoring.ranking` documents the conventions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError
from ..inputs import Chunk, Sample
from ..scoring import (
    RELEVANCE_THRESHOLD,
    average_precision_at_k,
    binary_relevance,
    precision_at_k,
    reciprocal_rank,
)
from .base import Asker, Metric, Scale, Scored
from .evidence import PassageGrade, UmbrelaEvidence
from .retrieval import judge_each_passage
from .templates import UMBRELA_GRADE
from .verdicts import UmbrelaVerdict

DEFAULT_K_VALUES = (1, 3, 5)


async def grade_passages(
    ask: Asker, metric: str, question: str, chunks: Sequence[Chunk]
) -> list[PassageGrade]:
    """One UMBRELA grade per passage, concurrently (shared with the nuggets metric)."""
    verdicts = await judge_each_passage(ask, metric, UMBRELA_GRADE, UmbrelaVerdict, question, chunks)
    return [
        PassageGrade(index=i, id=c.id, grade=v.score, reason=v.reasoning)
        for i, (c, v) in enumerate(zip(chunks, verdicts, strict=True), start=1)
    ]


def read_k_values(metric: str, options: Mapping[str, Any]) -> tuple[int, ...]:
    raw = options.get("k_values", DEFAULT_K_VALUES)
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = (raw,)
    values = tuple(raw) if isinstance(raw, (list, tuple)) else ()
    if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in values):
        raise InputError(
            f"{metric}: k_values must be positive integers, e.g. k_values=[1, 3, 5]; got {raw!r}"
        )
    return tuple(sorted(set(values)))


def ranking_details(grades: Sequence[int], k_values: Sequence[int]) -> dict[str, float]:
    """precision@k, AP@k and MRR at relevance >= 2, plus the mean grade."""
    relevant = binary_relevance(grades, RELEVANCE_THRESHOLD)
    details: dict[str, float] = {}
    for k in k_values:
        details[f"precision@{k}"] = precision_at_k(relevant, k)
        details[f"ap@{k}"] = average_precision_at_k(relevant, k)
    details["mrr"] = reciprocal_rank(relevant)
    details["relevant"] = float(sum(relevant))
    details["mean_grade"] = sum(grades) / len(grades) if grades else 0.0
    return details


class Umbrela(Metric):
    """How relevant is each retrieved passage, and are the relevant ones ranked first?"""

    name = "umbrela"
    scale = Scale(0, 3)
    default_threshold = None
    required = ("question", "contexts")
    options = ("k_values",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        k_values = read_k_values(self.name, options)
        graded = await grade_passages(ask, self.name, sample.question, sample.contexts)
        grades = [g.grade for g in graded]
        details = ranking_details(grades, k_values)
        return Scored(
            score=details["mean_grade"],
            reasons=f"UMBRELA grades by rank: {grades}; {int(details['relevant'])} passage(s) at grade >= "
            f"{RELEVANCE_THRESHOLD}; MRR {details['mrr']:.3f}.",
            evidence=UmbrelaEvidence(passages=graded, k_values=list(k_values)),
            details=details,
        )
