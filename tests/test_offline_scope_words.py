"""The offline judge and words that set how far a claim reaches ("all", "every", "only"): an answer
that copies a context sentence but widens its scope ("all residents" where the context says
"residents of the east wing") or narrows it ("only on weekdays" where the context says "on weekdays
and Saturdays") claims what the contexts do not say. These words are stopwords, so before this
check such a near copy passed. Sentences written for these tests."""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.judges.local.spans import Span
from pytest_rag.judges.local.tasks import faithfulness_single
from pytest_rag.judges.local.unbacked import widened_scope
from pytest_rag.scoring.text import tokenize

PASS = 4  # the faithfulness metric's default pass mark

PERMITS = ["Residents of the east wing receive a free parking permit. Visitors pay at the gate."]
SHUTTLE = ["The airport shuttle runs on weekdays and Saturdays. Tickets are sold on board."]
MUSEUM = ["Every exhibit has a label in English and in Welsh. The cafe closes at four."]


@pytest.fixture(scope="module")
def scorer() -> LocalScorer:
    return LocalScorer.load()


def _grade(scorer: LocalScorer, answer: str, contexts: list[str]) -> dict[str, object]:
    return faithfulness_single(scorer, {"answer": answer, "contexts": contexts})


@pytest.mark.parametrize(
    ("answer", "contexts", "word"),
    [
        ("All residents receive a free parking permit.", PERMITS, "all"),
        ("Everyone receives a free parking permit.", PERMITS, "everyone"),
        ("The airport shuttle only runs on weekdays.", SHUTTLE, "only"),
    ],
)
def test_a_near_copy_that_widens_or_narrows_its_scope_fails(
    scorer: LocalScorer, answer: str, contexts: list[str], word: str
) -> None:
    verdict = _grade(scorer, answer, contexts)
    assert verdict["score"] < PASS, verdict["reasoning"]
    assert f"do not say: {word}" in str(verdict["reasoning"])


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        ("Residents of the east wing receive a free parking permit.", PERMITS),
        ("The airport shuttle runs on weekdays and on Saturdays.", SHUTTLE),
        ("All exhibits have a label in English and in Welsh.", MUSEUM),  # "all" for "every": same scope
    ],
)
def test_the_same_scope_in_other_words_still_passes(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    verdict = _grade(scorer, answer, contexts)
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
