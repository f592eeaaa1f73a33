"""The offline judge and near copies that claim more than the context sentence they copy, though
every word of theirs is in it: an answer that widens the sentence's scope ("all residents" where the
context says "residents of the east wing"), narrows it ("only on weekdays" where it says "on weekdays
and Saturdays"), or leaves out the condition it puts on the claim ("Members get 20% off" where it says
"if they pay by card"). Scope words are stopwords, and a dropped condition leaves nothing unbacked,
so before these checks such copies passed. Sentences written for these tests."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_rag.judges.local.conditions import dropped_condition
from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.judges.local.spans import Span
from pytest_rag.judges.local.tasks import faithfulness_single
from pytest_rag.judges.local.unbacked import widened_scope
from pytest_rag.scoring.text import tokenize

PASS = 4  # the faithfulness metric's default pass mark


def _verdict(scorer: LocalScorer, answer: str, contexts: list[str]) -> dict[str, Any]:
    return faithfulness_single(scorer, {"answer": answer, "contexts": contexts})


PERMITS = ["Residents of the east wing receive a free parking permit. Visitors pay at the gate."]
SHUTTLE = ["The airport shuttle runs on weekdays and Saturdays. Tickets are sold on board."]
MUSEUM = ["Every exhibit has a label in English and in Welsh. The cafe closes at four."]
GYM = ["Members get 20% off personal training if they pay by card. The pool opens at 7am."]
FERRY = ["Bicycles travel free on the ferry unless the crossing is full. Cars must be booked ahead."]
PILLS = ["Apply the cream twice a day when needed for itching. Store below 25 degrees."]
HISTORY = ["The harbour railway opened in 1908, when the port was at its busiest. It closed in 1965."]


@pytest.mark.parametrize(
    ("answer", "contexts", "named"),
    [
        # the scope widened or narrowed
        ("All residents receive a free parking permit.", PERMITS, "do not say: all"),
        ("Everyone receives a free parking permit.", PERMITS, "do not say: everyone"),
        ("The airport shuttle only runs on weekdays.", SHUTTLE, "do not say: only"),
        # the condition left out
        ("Members get 20% off personal training.", GYM, "if they pay by card"),
        ("Bicycles travel free on the ferry.", FERRY, "unless the crossing is full"),
    ],
)
def test_a_near_copy_that_claims_more_than_its_sentence_fails(
    scorer: LocalScorer, answer: str, contexts: list[str], named: str
) -> None:
    verdict = _verdict(scorer, answer, contexts)
    assert verdict["score"] < PASS, verdict["reasoning"]
    assert named in str(verdict["reasoning"])


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        ("Residents of the east wing receive a free parking permit.", PERMITS),
        ("The airport shuttle runs on weekdays and on Saturdays.", SHUTTLE),
        ("All exhibits have a label in English and in Welsh.", MUSEUM),  # "all" for "every": same scope
        ("Members who pay by card get 20% off personal training.", GYM),  # the condition, reworded
        ("Bicycles travel free on the ferry unless the crossing is full.", FERRY),
        ("The harbour railway opened in 1908.", HISTORY),  # a time, not a condition
        ("The pool opens at 7am.", GYM),  # the neighbouring sentence's condition is not this claim's
    ],
)
def test_the_same_claim_in_other_words_still_passes(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    verdict = _verdict(scorer, answer, contexts)
    assert verdict["score"] >= PASS, verdict["reasoning"]


def _span(text: str) -> Span:
    tokens = tuple(tokenize(text))
    return Span(0, text, tokens, frozenset(), frozenset(), False, 1, frozenset(), False)


def test_scope_words_are_read_by_group_and_not_after_not() -> None:
    span = _span("Claims above 5,000 euros are reviewed by a senior adjuster.")
    assert widened_scope(tokenize("A senior adjuster reviews all claims."), span) == ["all"]
    assert widened_scope(tokenize("Not all claims are reviewed by a senior adjuster."), span) == []
    every = _span("Every exhibit has a label.")
    assert widened_scope(tokenize("All exhibits have a label."), every) == []
    assert widened_scope(tokenize("Only some exhibits have a label."), every) == ["only"]


def test_when_is_a_condition_before_a_participle_only() -> None:
    assert dropped_condition(tokenize("Apply the cream twice a day."), PILLS[0]) == "when needed for itching"
    assert dropped_condition(tokenize("The harbour railway opened in 1908."), HISTORY[0]) == ""
    # an answer that states a condition of its own is left to the other checks
    assert dropped_condition(tokenize("Apply the cream twice a day if you can."), PILLS[0]) == ""
