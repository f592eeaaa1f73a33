"""A number written in another form is the same number to the offline judge's number checks.

"1.3 kilograms" against a context's "1.3 kg" was reported as a number the contexts count in
another unit (the check that catches "8 pounds" for "8 kg"), and "2025-03-14" against "14 March
2025" as a number ("03") the contexts lack, so faithful answers scored 1.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.numbers import is_unit, same_unit, written_dates
from pytest_rag.judges.local.scorer import SUPPORTED, LocalScorer
from pytest_rag.scoring.text import tokenize


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("The dam wall is 85 m high and holds 3 million cubic metres.", "The dam wall is 85 metres high."),
        (
            "The night bus takes 45 min to reach the airport.",
            "The night bus needs 45 minutes to the airport.",
        ),
        ("Each crate weighs 20 kilograms when full.", "A full crate weighs 20 kg."),
        ("The camera stores clips of up to 4 GB each.", "Each clip can be up to 4 gigabytes."),
    ],
)
def test_a_unit_in_another_form_backs_the_number(scorer: LocalScorer, context: str, answer: str) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers == ()
    assert found.probability >= SUPPORTED


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Each crate weighs 20 kilograms when full.", "A full crate weighs 20 pounds."),
        ("The camera stores clips of up to 4 GB each.", "Each clip can be up to 4 TB."),
        ("The night bus takes 45 min to reach the airport.", "The night bus takes 45 hours."),
    ],
)
def test_a_number_in_another_unit_is_still_caught(scorer: LocalScorer, context: str, answer: str) -> None:
    found = scorer.support(answer, [context])
    sentence = found.sentences[0]
    assert sentence.unsupported_numbers or sentence.added_words  # as a number or a word the contexts lack
    assert found.probability < SUPPORTED


def test_the_forms_of_one_unit_are_one_unit() -> None:
    assert same_unit("kilogram", "kg") and same_unit("kilo", "kg")
    assert same_unit("hour", "hrs") and not same_unit("hour", "minut")
    assert not same_unit("business", "business")  # no unit: the check compares the words themselves
    assert is_unit("litres") and not is_unit("crate")


OPENING = "The new wing of the gallery opens on 9 October 2026 and is open 7 days a week, 10 to 6."


@pytest.mark.parametrize(
    "answer",
    [
        "The new wing opens on 2026-10-09.",
        "The new wing opens on 09/10/2026.",
        "The new wing opens on 10/9/2026.",  # month first, as in the US
        "The new wing opens on 9/10/26.",
    ],
)
def test_a_date_in_digits_is_backed_by_the_same_date_in_words(scorer: LocalScorer, answer: str) -> None:
    found = scorer.support(answer, [OPENING])
    assert found.sentences[0].unsupported_numbers == ()
    assert found.probability >= SUPPORTED


@pytest.mark.parametrize(
    "answer",
    [
        "The new wing opens on 2026-11-09.",  # another month
        "The new wing opens on 19/10/2026.",  # another day
        "The new wing opens on 09/10/2027.",  # another year
    ],
)
def test_another_date_in_digits_is_caught(scorer: LocalScorer, answer: str) -> None:
    found = scorer.support(answer, [OPENING])
    assert found.sentences[0].unsupported_numbers != ()
    assert found.probability < SUPPORTED


def test_a_pair_of_numbers_is_backed_by_both_and_only_both(scorer: LocalScorer) -> None:
    context = ["The hotline answers calls 24 hours a day, 7 days a week."]
    assert scorer.support("The hotline answers calls 24/7.", context).probability >= SUPPORTED
    assert scorer.support("The hotline is staffed 24/5.", context).sentences[0].unsupported_numbers == (
        "24/5",
    )


def test_the_readings_of_a_date_in_digits() -> None:
    assert set(written_dates(tokenize("due 2026-10-09")).values()) == {((2026, 10, 9),)}
    assert written_dates(tokenize("due 09/10/2026")) == {1: ((2026, 10, 9), (2026, 9, 10))}
    assert written_dates(tokenize("due 25/10/2026")) == {1: ((2026, 10, 25),)}  # no 25th month
    assert written_dates(tokenize("in 2026 12 rooms")) == {}  # no two-digit month and day after it
    assert written_dates(tokenize("gate 24/7")) == {}
