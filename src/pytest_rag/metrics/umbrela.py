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

from pydantic import BaseModel, Field

from ..errors import InputError
from ..inputs import Chunk, Sample
from ..results import Evidence, Highlights, passage_labels
from ..scoring import (
    RELEVANCE_THRESHOLD,
    average_precision_at_k,
    binary_relevance,
    precision_at_k,
    reciprocal_rank,
)
from .base import Asker, Metric, Scale, Scored
from .prompts import Template, block
from .retrieval import passage_block
from .toolkit import REASONING, judge_request

DEFAULT_K_VALUES = (1, 3, 5)


class UmbrelaVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    score: int = Field(ge=0, le=3, description="the grade, 0-3")


class PassageGrade(BaseModel):
    index: int
    id: str | None = None
    grade: int
    reason: str = ""


class UmbrelaEvidence(Evidence):
    passages: list[PassageGrade] = Field(default_factory=list)
    k_values: list[int] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages=passage_labels(self.passages, "grade"))


UMBRELA = Template(
    id="umbrela.grade",
    version="1",
    task=(
        "Task: grade how relevant the passage is to the search question. First consider what the "
        "person asking most likely wants to know. Then weigh how well the passage's content matches "
        "that intent and how trustworthy the passage is, and decide on one grade."
    ),
    scale=(
        "Grades:\n"
        "3 - the passage is dedicated to the question and contains the exact answer.\n"
        "2 - the passage contains some answer to the question, but it may be unclear or hidden among "
        "unrelated information.\n"
        "1 - the passage is related to the question but does not answer it.\n"
        "0 - the passage has nothing to do with the question."
    ),
    fields={"reasoning": REASONING, "score": "integer 0-3"},
)


async def grade_passages(
    ask: Asker, metric: str, question: str, chunks: Sequence[Chunk]
) -> list[PassageGrade]:
    """One UMBRELA grade per passage, concurrently (shared with the nuggets metric)."""
    requests = [
        judge_request(
            metric,
            UMBRELA,
            "\n\n".join([block("question", question), passage_block(chunk, i)]),
            UmbrelaVerdict,
            {"question": question, "passage": chunk.text},
        )
        for i, chunk in enumerate(chunks, start=1)
    ]
    verdicts = await ask.gather(*(ask(r, UmbrelaVerdict) for r in requests))
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
    name = "umbrela"
    scale = Scale(0, 3)
    default_threshold = None
    required = ("question", "contexts")
    question = "How relevant is each retrieved passage, and are the relevant ones ranked first?"
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
