"""The offline judge and conditions an answer leaves out: a near copy of a context sentence
without the condition the context puts on it ("Members get 20% off" where the context says "if
they pay by card") states more than the context does. Before this check such copies passed:
every word of the answer is in the context. Sentences written for these tests."""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.conditions import dropped_condition
from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.judges.local.tasks import faithfulness_single
from pytest_rag.scoring.text import tokenize

PASS = 4  # the faithfulness metric's default pass mark

GYM = ["Members get 20% off personal training if they pay by card. The pool opens at 7am."]
FERRY = ["Bicycles travel free on the ferry unless the crossing is full. Cars must be booked ahead."]
PILLS = ["Apply the cream twice a day when needed for itching. Store below 25 degrees."]
HISTORY = ["The harbour railway opened in 1908, when the port was at its busiest. It closed in 1965."]


@pytest.fixture(scope="module")
def scorer() -> LocalScorer:
    return LocalScorer.load()


def _verdict(scorer: LocalScorer, answer: str, contexts: list[str]) -> dict[str, object]:
    return faithfulness_single(scorer, {"answer": answer, "contexts": contexts})


@pytest.mark.parametrize(
    ("answer", "contexts", "condition"),
    [
        ("Members get 20% off personal training.", GYM, "if they pay by card"),
        ("Bicycles travel free on the ferry.", FERRY, "unless the crossing is full"),
    ],
)
def test_a_near_copy_without_its_condition_fails(
    scorer: LocalScorer, answer: str, contexts: list[str], condition: str
) -> None:
    verdict = _verdict(scorer, answer, contexts)
    assert verdict["score"] < PASS, verdict["reasoning"]
    assert condition in str(verdict["reasoning"])


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        ("Members who pay by card get 20% off personal training.", GYM),  # the condition, reworded
        ("Bicycles travel free on the ferry unless the crossing is full.", FERRY),
        ("The harbour railway opened in 1908.", HISTORY),  # a time, not a condition
        ("The pool opens at 7am.", GYM),  # the neighbouring sentence's condition is not this claim's
    ],
)
def test_a_copy_that_keeps_the_condition_or_drops_only_a_time_passes(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    verdict = _verdict(scorer, answer, contexts)
    assert verdict["score"] >= PASS, verdict["reasoning"]


def test_when_is_a_condition_before_a_participle_only() -> None:
    assert dropped_condition(tokenize("Apply the cream twice a day."), PILLS[0]) == "when needed for itching"
    assert dropped_condition(tokenize("The harbour railway opened in 1908."), HISTORY[0]) == ""
    # an answer that states a condition of its own is left to the other checks
    assert dropped_condition(tokenize("Apply the cream twice a day if you can."), PILLS[0]) == ""
