"""An amount of time in another unit is the same amount, and the same number in another unit of
time is another amount.

"The course lasts two weeks." against "14 days" held a number, 2, that the contexts lack, and
scored 1; "90 minutes" against "90 seconds" kept the number and a word close to the context's, and
scored 5.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.durations import read_durations
from pytest_rag.judges.local.scorer import SUPPORTED, LocalScorer
from pytest_rag.scoring.text import tokenize

TRIAL = "The free trial runs for 30 days, and the notice period is 3 months."
LAB = "Samples are kept in the freezer for 48 hours and the centrifuge spins for 120 seconds."


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (LAB, "Samples are kept in the freezer for two days."),
        (LAB, "The centrifuge spins for 2 minutes."),
        ("The warranty runs for 3 years.", "The warranty runs for 36 months."),
        ("The apprenticeship takes 2 years.", "The apprenticeship takes 24 months."),
        ("The ferry crossing takes 1.5 hours.", "The ferry crossing takes 90 minutes."),
    ],
)
def test_an_amount_of_time_in_another_unit_is_backed(scorer: LocalScorer, context: str, answer: str) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers == ()
    assert found.probability >= SUPPORTED


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (LAB, "Samples are kept in the freezer for 48 days."),
        (LAB, "The centrifuge spins for 120 minutes."),
        (LAB, "Samples are kept in the freezer for three days."),
        (TRIAL, "The free trial runs for 30 weeks."),
        (TRIAL, "The notice period is 3 years."),
    ],
)
def test_the_same_number_in_another_unit_of_time_is_caught(
    scorer: LocalScorer, context: str, answer: str
) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers != ()
    assert found.probability < SUPPORTED


def counted_days(number: str) -> frozenset[str]:
    return frozenset({"day"}) if number == "14" else frozenset({"month"}) if number == "30" else frozenset()


def test_which_numbers_of_time_convert() -> None:
    known = frozenset({"14", "30"})
    assert read_durations(tokenize("two weeks or 336 hours"), known, counted_days).backed == {0, 3}
    assert read_durations(tokenize("a fortnight"), known, counted_days).backed == set()  # no number
    assert (
        read_durations(tokenize("30 days"), known, counted_days).backed == set()
    )  # a month has no fixed days
    assert read_durations(tokenize("14 weeks, 30 years, 15 days"), known, counted_days).changed == (
        "14",
        "30",
    )
