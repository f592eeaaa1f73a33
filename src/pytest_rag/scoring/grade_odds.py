"""How likely each score was, when a judge said how sure it was of its grade.

An LLM's 1-5 grade is one integer, so a check whose answer sits between two grades flips between
reruns and judge versions. Where the provider reports token log-probabilities, the token that wrote
the grade also says how likely every other grade was at that point. Weighting the grades by those
probabilities gives the expected score (as G-Eval scores), and summing the probabilities of the
grades at or above a bar gives the probability that the grade reaches it.

:class:`GradeOdds` is that distribution: read from the alternatives of the grade's token
(:meth:`GradeOdds.from_alternatives`), combined into the distribution of a mean of independent
grades (:meth:`GradeOdds.mean_of`, for metrics that average two or more grades), and asked for its
expected score and pass probability. Pure arithmetic: the same log-probabilities always give the
same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_GRADE_MASS = 0.5
"""The least probability the valid grades must carry together at the grade's token. Below it the
model was mostly weighing something other than a grade there (a quote, a space, another key), so
renormalising the little that is left would overstate what is known: no odds are given."""

_SURROUNDINGS = " \t\r\n\"':,{}"
"""What a token may carry around the digits of a grade: a JSON grade is written after ``":`` and
before ``,`` or ``}``, and tokenisers merge these with the digits in different ways."""

_ROUNDING = 1e-9
"""Slack when comparing a probability-weighted score with a bar: sums of renormalised probabilities
land a hair off the exact value (an expected 4 computed as 3.9999999999 still reaches 4)."""


def reaches(score: float, threshold: float) -> bool:
    """True when ``score`` reaches ``threshold``, up to the rounding of probability arithmetic."""
    return score >= threshold - _ROUNDING


def against_bar(score: float, expected: float | None, threshold: float | None) -> tuple[bool | None, str]:
    """Whether a check passes, and what was held to the bar: its expected score when one is given
    (``"expected_score"``), else its score (``"score"``). No bar, no verdict."""
    if threshold is None:
        return None, "score"
    if expected is not None:
        return reaches(expected, threshold), "expected_score"
    return score >= threshold, "score"


def grade_of_token(token: str, grades: Sequence[int]) -> int | None:
    """The grade a token writes: its text without the JSON punctuation and spaces around it, read
    as an integer that is one of ``grades``; None for any other token."""
    text = token.strip(_SURROUNDINGS)
    if not text or not (text.isdigit() or (text[0] == "-" and text[1:].isdigit())):
        return None
    value = int(text)
    return value if value in grades else None


@dataclass(frozen=True)
class GradeOdds:
    """A distribution over scores: ``(score, probability)`` pairs, scores ascending, probabilities
    summing to 1."""

    probabilities: tuple[tuple[float, float], ...]

    @classmethod
    def from_alternatives(
        cls, alternatives: Iterable[tuple[str, float]], grades: Sequence[int]
    ) -> GradeOdds | None:
        """The odds of ``grades`` from the ``(token, log-probability)`` alternatives the model weighed
        at the token of its grade. Tokens that write the same grade (``4`` and `` 4``) add up; other
        tokens are left out and the grades renormalised over what they carry. None when the grades
        carry less than :data:`MIN_GRADE_MASS` together."""
        mass: dict[float, float] = {}
        for token, logprob in alternatives:
            grade = grade_of_token(token, grades)
            if grade is not None and math.isfinite(logprob):
                mass[float(grade)] = mass.get(float(grade), 0.0) + math.exp(logprob)
        total = sum(mass.values())
        if total < MIN_GRADE_MASS:
            return None
        return cls(tuple((grade, p / total) for grade, p in sorted(mass.items())))

    @classmethod
    def mean_of(cls, parts: Sequence[GradeOdds | None]) -> GradeOdds | None:
        """The odds of the mean of independent grades, one drawn from each of ``parts`` (two ratings
        averaged, one grade per passage averaged); None when the odds of any part are unknown, or
        there is no part."""
        known = [part for part in parts if part is not None]
        if not parts or len(known) < len(parts):
            return None
        sums: dict[float, float] = {0.0: 1.0}
        for part in known:
            following: dict[float, float] = {}
            for total, p in sums.items():
                for score, q in part.probabilities:
                    following[total + score] = following.get(total + score, 0.0) + p * q
            sums = following
        n = len(parts)
        return cls(tuple((total / n, p) for total, p in sorted(sums.items())))

    @property
    def expected(self) -> float:
        """The probability-weighted mean score."""
        return sum(score * p for score, p in self.probabilities)

    def pass_probability(self, threshold: float) -> float:
        """The probability that the score reaches ``threshold``."""
        return sum(p for score, p in self.probabilities if reaches(score, threshold))


def pooled(
    judgments: Sequence[GradeOdds | None], threshold: float | None
) -> tuple[float | None, float | None]:
    """The expected score and pass probability of one check judged several times (repeats, several
    judges): the means over its judgments, which are those of a score drawn from a judgment picked
    at random. Both unknown unless every judgment's odds are known; no pass probability without a
    threshold."""
    known = [odds for odds in judgments if odds is not None]
    if not judgments or len(known) < len(judgments):
        return None, None
    expected = sum(odds.expected for odds in known) / len(known)
    if threshold is None:
        return expected, None
    return expected, sum(odds.pass_probability(threshold) for odds in known) / len(known)
