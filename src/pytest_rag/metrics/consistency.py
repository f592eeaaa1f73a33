"""Consistency across runs (Open RAG Eval): several answers to one question, compared pairwise.

Pass the answers of repeated runs as ``answers=[...]`` (at least two) and, optionally, the scores
each run got on other metrics as ``scores={"faithfulness": [4, 5, 3], ...}`` (numbers or
MetricResults). Nothing is judged: every pair of answers gets ROUGE-1, ROUGE-2 and ROUGE-L
(precision, recall, F1) and, in the default mode, the cosine of their embeddings (the judge's
embedder, one embeddings request for all answers); each metric's run scores get mean, sample
variance and coefficient of variation (:func:`pytest_rag.scoring.dispersion`; a single run has
variance 0 and says nothing about stability).

Headline score: mean pairwise embedding cosine (default mode, a semantic agreement in the spirit of
Open RAG Eval's BERTScore), or mean pairwise ROUGE-L F1 (mode ``lexical``, no embeddings at all).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ..errors import InputError
from ..helper_forms import Check, given, score_form
from ..inputs import Sample
from ..results import Evidence
from ..scoring import dispersion
from ..scoring.similarity import cosine
from ..scoring.text import rouge_l, rouge_n
from .base import Asker, Metric, Scale, Scored
from .options import read_text


class Overlap(BaseModel):
    precision: float
    recall: float
    f1: float


class AnswerPair(BaseModel):
    first: int
    second: int
    rouge1: Overlap
    rouge2: Overlap
    rougeL: Overlap
    cosine: float | None = None


class MetricSpread(BaseModel):
    n: int
    mean: float
    variance: float
    std: float
    coefficient_of_variation: float | None = None


class ConsistencyEvidence(Evidence):
    pairs: list[AnswerPair] = Field(default_factory=list)
    metrics: dict[str, MetricSpread] = Field(default_factory=dict)


def read_answers(options: Mapping[str, Any]) -> list[str]:
    raw = options.get("answers")
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) < 2:
        raise InputError(
            "consistency needs the answers of at least two runs of the same question: answers=['...', '...']"
        )
    for i, answer in enumerate(raw, start=1):
        if not isinstance(answer, str) or not answer.strip():
            raise InputError(
                f"consistency: answer {i} is empty or not a string; every run needs its answer text"
            )
    return list(raw)


def read_scores(options: Mapping[str, Any]) -> dict[str, list[float]]:
    raw = options.get("scores") or {}
    if not isinstance(raw, Mapping):
        raise InputError("consistency: scores must map a metric name to the list of its run scores")
    out: dict[str, list[float]] = {}
    for name, values in raw.items():
        if isinstance(values, str) or not isinstance(values, Sequence) or not values:
            raise InputError(f"consistency: scores[{name!r}] must be a non-empty list of run scores")
        numbers = []
        for v in values:
            number = getattr(v, "score", v)
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
                raise InputError(f"consistency: scores[{name!r}] holds {v!r}, which is not a finite number")
            numbers.append(float(number))
        out[str(name)] = numbers
    return out


def pairwise_overlap(answers: Sequence[str]) -> list[AnswerPair]:
    pairs = []
    for i, j in itertools.combinations(range(len(answers)), 2):
        a, b = answers[i], answers[j]
        pairs.append(
            AnswerPair(
                first=i + 1,
                second=j + 1,
                rouge1=Overlap(**vars(rouge_n(a, b, 1))),
                rouge2=Overlap(**vars(rouge_n(a, b, 2))),
                rougeL=Overlap(**vars(rouge_l(a, b))),
            )
        )
    return pairs


def spreads(scores: Mapping[str, Sequence[float]]) -> dict[str, MetricSpread]:
    return {name: MetricSpread(**vars(dispersion(values))) for name, values in scores.items()}


class Consistency(Metric):
    """Do repeated runs of the same question give the same answer?

    Open RAG Eval's consistency across runs, with an embedding cosine as its semantic agreement.
    """

    name = "consistency"
    scale = Scale(0, 1)
    default_threshold = None
    required = ()
    options: ClassVar[tuple[str, ...]] = ("answers", "scores", "embedding_model")
    uses_embeddings: ClassVar[bool] = True

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        answers = read_answers(options)
        pairs = pairwise_overlap(answers)
        if self.uses_embeddings:
            model = read_text(options, "embedding_model", metric=self.name)
            vectors = await ask.embed(answers, model)
            pairs = [
                p.model_copy(update={"cosine": cosine(vectors[p.first - 1], vectors[p.second - 1])})
                for p in pairs
            ]
        metrics = spreads(read_scores(options))
        details: dict[str, float] = {"answers": float(len(answers)), "pairs": float(len(pairs))}
        n = len(pairs)
        details["rouge1_f1"] = sum(p.rouge1.f1 for p in pairs) / n
        details["rouge2_f1"] = sum(p.rouge2.f1 for p in pairs) / n
        details["rougeL_f1"] = sum(p.rougeL.f1 for p in pairs) / n
        if self.uses_embeddings:
            details["cosine"] = sum(max(0.0, p.cosine or 0.0) for p in pairs) / len(pairs)
        for name, spread in metrics.items():
            details[f"{name}.mean"] = spread.mean
            details[f"{name}.variance"] = spread.variance
            if spread.coefficient_of_variation is not None:
                details[f"{name}.cv"] = spread.coefficient_of_variation
        headline = details["cosine"] if self.uses_embeddings else details["rougeL_f1"]
        what = "embedding cosine" if self.uses_embeddings else "ROUGE-L F1"
        return Scored(
            score=headline,
            reasons=f"Mean pairwise {what} over {len(pairs)} pair(s) of {len(answers)} answers: {headline:.3f}.",
            evidence=ConsistencyEvidence(pairs=pairs, metrics=metrics),
            details=details,
        )


class LexicalConsistency(Consistency):
    """Consistency by words only: the mean pairwise ROUGE-L F1, no embeddings."""

    mode = "lexical"
    options = ("answers", "scores")
    uses_embeddings = False
    asks_judge = False


class ConsistencyHelpers:
    """The ``rag_judge`` helpers of consistency across runs (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("consistency")
    def consistency(
        self,
        answers: Sequence[str],
        *,
        question: str | None = None,
        scores: Mapping[str, Sequence[Any]] | None = None,
        embedding_model: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Agreement of several answers to one question (pairwise ROUGE and embeddings) and the spread
        of their metric scores."""
        options = {"answers": answers, **given(scores=scores, embedding_model=embedding_model)}
        return Check(question=question, mode=mode, threshold=threshold, options=options)

    assert_consistent, aconsistency, aassert_consistent = consistency.other_forms()
