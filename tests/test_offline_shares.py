"""A share written as a percentage is the same share written as a fraction.

"50% of the members voted" against "half of the members voted" held a number the contexts lack,
and "half" against "50%" a word they lack: a faithful answer scored 1 either way.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.scorer import SUPPORTED, LocalScorer
from pytest_rag.judges.local.shares import share_positions, shares, shares_backed
from pytest_rag.scoring.text import tokenize


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "Three quarters of the orchard's trees are apple trees.",
            "75% of the orchard's trees are apple trees.",
        ),
        (
            "20 percent of the tickets are reserved for students.",
            "A fifth of the tickets are reserved for students.",
        ),
        ("Half of the rooms face the sea.", "50 per cent of the rooms face the sea."),
        (
            "About 33% of the survey's answers were blank.",
            "About a third of the survey's answers were blank.",
        ),
    ],
)
def test_a_share_in_the_other_form_is_backed(scorer: LocalScorer, context: str, answer: str) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers == () and found.sentences[0].added_words == ()
    assert found.probability >= SUPPORTED


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "Three quarters of the orchard's trees are apple trees.",
            "60% of the orchard's trees are apple trees.",
        ),
        (
            "20 percent of the tickets are reserved for students.",
            "A quarter of the tickets are reserved for students.",
        ),
    ],
)
def test_another_share_is_still_caught(scorer: LocalScorer, context: str, answer: str) -> None:
    assert scorer.support(answer, [context]).probability < SUPPORTED


def test_the_shares_of_a_text() -> None:
    read = shares("Half of them, a third, two-thirds, 25%, 12.5 percent; on the third day; a tenth")
    assert [(round(s.percent, 1), s.written) for s in read] == [
        (50.0, "half"),
        (33.3, "third"),
        (66.7, "thirds"),
        (25.0, "25"),
        (12.5, "12.5"),
        (10.0, "tenth"),
    ]  # "the third day" is an order, not a share


def test_the_positions_of_backed_shares_take_the_count_before_a_fraction() -> None:
    tokens = tokenize("two thirds voted, and 67% agreed")
    backed = shares_backed(shares("two thirds voted, and 67% agreed"), tuple(shares("67%, two thirds")))
    assert share_positions(tokens, backed) == {0, 1, 4}
