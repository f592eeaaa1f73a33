"""The offline judge reads a terse answer's relevance by what its question asks for.

Word overlap and static vectors read "Sundays from 8 am." as off topic for "When does the farmers'
market open?" (they share no word). These cases are of domains the rule was not built on.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.asked_for import AskedFor, asked_for, terse_answer_gives
from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.judges.local.tasks import TERSE_ANSWER_RELEVANCE, answer_relevancy_single
from pytest_rag.metrics.relevance import AnswerRelevancy

MARKET = "When does the farmers' market open?"
ORGAN = "Who repairs the church organ?"
TICKETS = "How many tickets were sold for the gala?"


def grade(scorer: LocalScorer, question: str, answer: str) -> int:
    verdict = answer_relevancy_single(scorer, {"question": question, "answer": answer})
    score: int = verdict["score"]
    return score


@pytest.mark.parametrize(
    ("question", "answer", "given"),
    [
        (MARKET, "Sundays from 8 am.", AskedFor.TIME),
        ("What year was the lighthouse built?", "1872.", AskedFor.TIME),
        ("How long is the warranty on the kettle?", "Two years.", AskedFor.DURATION),
        ("How often are the filters changed?", "Every third month.", AskedFor.DURATION),
        (TICKETS, "Nearly 300.", AskedFor.AMOUNT),
        ("How heavy can a checked suitcase be?", "Up to 23 kg.", AskedFor.AMOUNT),
    ],
)
def test_a_terse_answer_that_gives_what_is_asked_passes_relevancy(
    scorer: LocalScorer, question: str, answer: str, given: AskedFor
) -> None:
    assert terse_answer_gives(question, answer) is given
    verdict = answer_relevancy_single(scorer, {"question": question, "answer": answer})
    assert verdict["score"] >= 4 > AnswerRelevancy.default_threshold
    assert verdict["off_topic_or_missing"] == []
    if scorer.answer_relevance(question, answer) < TERSE_ANSWER_RELEVANCE:  # raised: the reason says why
        assert f"gives the {given.value} the question asks for" in verdict["reasoning"]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (MARKET, "Tobias Lindqvist."),  # a name where a time is asked for
        (TICKETS, "Every other Friday."),  # a time where an amount is asked for
        (TICKETS, "March 3, 2021."),  # a date is not a count
        (TICKETS, "The blue ones."),  # "ones" counts nothing
        (MARKET, "The bakery, at 7 am."),  # the right kind, about another thing
    ],
)
def test_a_terse_answer_of_another_kind_or_topic_is_left_to_the_features(
    scorer: LocalScorer, question: str, answer: str
) -> None:
    assert terse_answer_gives(question, answer) is None
    assert grade(scorer, question, answer) < AnswerRelevancy.default_threshold


def test_an_answer_of_more_than_a_few_words_is_read_by_the_features_alone() -> None:
    long_answer = "It opens on Sundays from 8 am until the stalls sell out, rain or shine."
    assert terse_answer_gives(MARKET, long_answer) is None
    assert terse_answer_gives(MARKET, "It is open on Sundays.") is None  # a clause of its own


def test_a_refusal_is_still_a_refusal(scorer: LocalScorer) -> None:
    assert grade(scorer, ORGAN, "I don't know.") == 1


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When is the next ferry?", AskedFor.TIME),
        ("Which year did the mill close?", AskedFor.TIME),
        ("How old is the bridge?", AskedFor.DURATION),
        ("How often is the lawn mowed?", AskedFor.DURATION),
        ("How far is the station?", AskedFor.AMOUNT),
        ("What percentage of staff cycle to work?", AskedFor.AMOUNT),
        ("Who chairs the board?", None),  # a name: a person, a place or a film alike
        ("Where can visitors park?", None),
        ("What is the capital of Peru?", None),  # "what" asks for anything
        ("Whose bike is this?", None),
        ("How do I reset the router?", None),
        ("Is the gym open late?", None),
    ],
)
def test_the_kind_asked_for_is_read_from_the_opening_words(question: str, kind: AskedFor | None) -> None:
    assert asked_for(question) is kind
