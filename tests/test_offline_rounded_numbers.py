"""A rounded number, or a bound, that is true of a number the contexts state is backed.

Generated answers round: "about 300 passengers" for 288, "2.4 million books" for 2,385,000, "more
than 12,000 runners" for 12,430. Each number was reported as one the contexts lack, so a faithful
answer scored 1. Another number, a bound on the wrong side or far from the figure, a bound read
from another bound, a number that counts something else, and a plain number that only rounds
are all still caught.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.rounding import rounded_numbers_backed, rounding_words
from pytest_rag.judges.local.scorer import SUPPORTED, LocalScorer
from pytest_rag.scoring.text import tokenize

STADIUM = "The stadium seats 41,870 spectators and has 96 private boxes."
HOSPITAL = "Last year the hospital treated 18,640 patients in its emergency ward."
TRAIN = "The night train covers the 1,148 km between the two cities; a ticket costs 74 euros."
VINEYARD = "The estate's vines cover 23.4 hectares, and it bottles up to 90,000 bottles a year."


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (STADIUM, "The stadium seats about 42,000 spectators."),
        (STADIUM, "The stadium seats roughly 40 thousand spectators."),
        (STADIUM, "The stadium has nearly 100 private boxes."),
        (HOSPITAL, "Last year the hospital treated over 18,000 patients in its emergency ward."),
        (TRAIN, "The night train covers more than 1,100 km between the two cities."),
        (TRAIN, "A ticket for the night train costs under 80 euros."),
        (VINEYARD, "The estate's vines cover approximately 23 hectares."),
    ],
)
def test_a_rounded_number_or_a_bound_true_of_the_context_is_backed(
    scorer: LocalScorer, context: str, answer: str
) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers == ()
    assert found.probability >= SUPPORTED


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (STADIUM, "The stadium seats about 50,000 spectators."),  # rounds another number
        (STADIUM, "The stadium seats more than 45,000 spectators."),  # the bound's wrong side
        (STADIUM, "The stadium seats over 10,000 spectators."),  # true, but far from the figure
        (STADIUM, "The stadium has about 42,000 private boxes."),  # counts something else there
        (STADIUM, "The stadium seats 42,000 spectators."),  # a plain number means itself
        (VINEYARD, "The estate bottles up to 120,000 bottles a year."),  # another bound's figure
        (HOSPITAL, "Last year the hospital treated about 19,500 patients in its emergency ward."),
    ],
)
def test_a_rounded_number_or_a_bound_the_context_does_not_bear_out_is_caught(
    scorer: LocalScorer, context: str, answer: str
) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers != ()
    assert found.probability < SUPPORTED


class _Counts:
    """A context that counts "day" with 30 and states 40 as a bound ("up to 40 days")."""

    def counted_with(self, number: str) -> frozenset[str]:
        return frozenset({"day"}) if number in ("30", "40") else frozenset()

    def bounds(self, number: str) -> bool:
        return number == "40"


@pytest.mark.parametrize(
    ("sentence", "backed"),
    [
        ("about 30 days", {1}),
        ("nearly 31 days", set()),  # "nearly" puts the exact figure below it
        ("almost 30 days", {1}),
        ("at least 30 days", {2}),
        ("up to 50 days", set()),  # only 40 is within its last digit, and the contexts bound with it
        ("up to 45 days", set()),  # 30 is on the bound's side, but not within its last digit
        ("about 1.99 thousand days", set()),  # 1987 is a year, and this is no year
        ("in about 1990", {2}),  # a year rounds a year
        ("30 days", set()),
    ],
)
def test_which_numbers_are_read_as_rounded(sentence: str, backed: set[int]) -> None:
    tokens = tokenize(sentence)
    assert rounded_numbers_backed(tokens, frozenset({"30", "40", "1987"}), _Counts()) == backed


def test_the_words_that_round_a_backed_number_are_no_claim_of_their_own() -> None:
    tokens = tokenize("roughly 2.4 million books, about 7 rooms")
    assert rounding_words(tokens, {1}) == {"roughly", "million"}
    assert rounding_words(tokens, set()) == frozenset()


@pytest.mark.parametrize(
    ("answer", "backed"),
    [
        ("The reservoir holds 3.1 million cubic metres of water.", True),
        ("The reservoir holds 3.1 billion cubic metres of water.", False),  # every digit kept
        ("The reservoir holds 3.1 thousand cubic metres of water.", False),
    ],
)
def test_a_number_at_another_scale_is_another_number(scorer: LocalScorer, answer: str, backed: bool) -> None:
    context = ["The reservoir holds 3.1 million cubic metres of water when full."]
    found = scorer.support(answer, context)
    assert (found.sentences[0].unsupported_numbers == ()) is backed
    assert (found.probability >= SUPPORTED) is backed
