"""Citation quality: do the cited passages support the answer parts that cite them?

Following the TREC 2024 RAG citation metric as implemented by Open RAG Eval, a judge
labels every (answer part, cited passage) pair as full support (1.0), partial support (0.5)
or no support (0.0). From those labels:

* weighted precision = sum of all citation scores / number of citations, i.e. how good
  the average citation is;
* weighted recall = mean over answer parts of the part's average citation score, where a
  part without any citation scores 0, i.e. how well the answer as a whole is backed;
* F1 = harmonic mean of the two.

Every citation counts once here. Open RAG Eval first averages the scores of each distinct
passage and then averages the passages; the two agree unless several parts cite the same
passage, and the per-citation form needs no passage ids.

Edge cases (see :mod:`pytest_rag.scoring.fscore`): no citations at all gives precision
None; no answer parts gives recall None; F1 is 0.0 when either side is 0.0 (an answer
that cites nothing has recall 0 and so F1 0) and None when it depends on an undefined side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pytest_rag.scoring.fscore import PrecisionRecallF1, precision_recall_f1

CitationSupport = Literal["full_support", "partial_support", "no_support"]

SUPPORT_SCORES: Mapping[str, float] = {
    "full_support": 1.0,
    "partial_support": 0.5,
    "no_support": 0.0,
}


@dataclass(frozen=True)
class CitationScores(PrecisionRecallF1):
    """Citation precision/recall/F1 plus the per-part scores behind the recall."""

    part_scores: tuple[float, ...]
    n_citations: int


def citation_support_score(label: str | float) -> float:
    """Numeric score of one judged citation: a support label or a number in [0, 1]."""
    if isinstance(label, str):
        key = label.strip().lower()
        if key not in SUPPORT_SCORES:
            raise ValueError(
                f"unknown citation support label {label!r}; expected one of {', '.join(SUPPORT_SCORES)}"
            )
        return SUPPORT_SCORES[key]
    if isinstance(label, bool) or not 0.0 <= float(label) <= 1.0:
        raise ValueError(f"citation score must be a number in [0, 1], got {label!r}")
    return float(label)


def citation_scores(parts: Sequence[Sequence[str | float]]) -> CitationScores:
    """Score an answer from the judged support of each part's citations.

    ``parts`` has one entry per answer part (sentence or statement), each a list of the
    support levels of that part's citations: labels ("full_support", "partial_support",
    "no_support") or their scores (1.0, 0.5, 0.0). An empty list is an uncited part.
    """
    all_scores: list[float] = []
    part_scores: list[float] = []
    for part in parts:
        if isinstance(part, (str, bytes)):
            raise ValueError(
                f"each answer part must be a list of citation support levels, got {part!r}; "
                "wrap a single label in a list"
            )
        scores = [citation_support_score(label) for label in part]
        all_scores.extend(scores)
        part_scores.append(sum(scores) / len(scores) if scores else 0.0)
    # Precision's "hits" are the summed citation scores over all citations; recall's are
    # the summed part scores over all parts.
    shared = precision_recall_f1(sum(all_scores), len(all_scores), sum(part_scores), len(parts))
    return CitationScores(
        precision=shared.precision,
        recall=shared.recall,
        f1=shared.f1,
        part_scores=tuple(part_scores),
        n_citations=len(all_scores),
    )
