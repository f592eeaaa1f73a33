"""Nugget scores: how much of the essential information does the answer contain?

The AutoNuggetizer (TREC 2024 RAG track, as run by Open RAG Eval) extracts atomic facts
("nuggets") from the retrieved passages, marks each "vital" (a good answer must have it) or
"okay" (worth having), and a judge assigns each nugget to the answer as "support" (fully
present, 1.0), "partial_support" (0.5) or "not_support" (0.0). This module does only the
arithmetic on those labels:

* all      = mean score over every nugget;
* vital    = mean score over vital nuggets;
* weighted = (sum of vital scores + 0.5 * sum of okay scores) / (n_vital + 0.5 * n_okay),
  so an okay nugget counts half as much as a vital one;
* strict_* = the same three with partial support counted as 0 (only full support is 1).

A score is None when it has nothing to average: no nuggets at all, or no vital nugget for
the vital scores. None, not 0.0: an answer cannot fail a nugget that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple

Importance = Literal["vital", "okay"]
Assignment = Literal["support", "partial_support", "not_support"]

ASSIGNMENT_SCORES: Mapping[str, float] = {
    "support": 1.0,
    "partial_support": 0.5,
    "not_support": 0.0,
}
OKAY_WEIGHT = 0.5
"""Weight of an okay nugget relative to a vital one in the weighted score."""


class NuggetJudgement(NamedTuple):
    """One nugget's importance and how the judge assigned it to the answer."""

    importance: str
    assignment: str


@dataclass(frozen=True)
class NuggetScores:
    """The six AutoNuggetizer scores; None where there is nothing to average."""

    all: float | None
    vital: float | None
    weighted: float | None
    strict_all: float | None
    strict_vital: float | None
    strict_weighted: float | None
    n_vital: int
    n_okay: int


def _normalised(label: str, allowed: Iterable[str], what: str) -> str:
    key = label.strip().lower() if isinstance(label, str) else label
    allowed = tuple(allowed)
    if key not in allowed:
        raise ValueError(f"unknown nugget {what} {label!r}; expected one of {', '.join(allowed)}")
    return key


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _weighted(vital: list[float], okay: list[float]) -> float | None:
    denominator = len(vital) + OKAY_WEIGHT * len(okay)
    if denominator == 0:
        return None
    return (sum(vital) + OKAY_WEIGHT * sum(okay)) / denominator


def nugget_scores(judgements: Iterable[tuple[str, str]]) -> NuggetScores:
    """Compute all, vital and weighted nugget scores, plain and strict.

    ``judgements`` holds one ``(importance, assignment)`` pair per nugget, e.g.
    ``("vital", "partial_support")``; :class:`NuggetJudgement` is such a pair. Labels are
    matched case-insensitively; anything else raises ValueError naming the allowed labels.
    """
    vital: list[float] = []
    okay: list[float] = []
    strict_vital: list[float] = []
    strict_okay: list[float] = []
    for judgement in judgements:
        if isinstance(judgement, str) or len(judgement) != 2:
            raise ValueError(f"each nugget must be an (importance, assignment) pair, got {judgement!r}")
        importance = _normalised(judgement[0], ("vital", "okay"), "importance")
        assignment = _normalised(judgement[1], ASSIGNMENT_SCORES, "assignment")
        score = ASSIGNMENT_SCORES[assignment]
        strict = 1.0 if assignment == "support" else 0.0
        if importance == "vital":
            vital.append(score)
            strict_vital.append(strict)
        else:
            okay.append(score)
            strict_okay.append(strict)
    return NuggetScores(
        all=_mean(vital + okay),
        vital=_mean(vital),
        weighted=_weighted(vital, okay),
        strict_all=_mean(strict_vital + strict_okay),
        strict_vital=_mean(strict_vital),
        strict_weighted=_weighted(strict_vital, strict_okay),
        n_vital=len(vital),
        n_okay=len(okay),
    )
