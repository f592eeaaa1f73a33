"""A unit written short or in full is the same unit to the offline judge's number checks.

"1.3 kilograms" against a context's "1.3 kg" was reported as a number the contexts count in
another unit (the check that catches "8 pounds" for "8 kg"), so a faithful answer scored 1.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.numbers import is_unit, same_unit
from pytest_rag.judges.local.scorer import SUPPORTED, LocalScorer


@pytest.fixture(scope="module")
def scorer() -> LocalScorer:
    return LocalScorer.load()


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
