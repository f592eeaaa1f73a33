"""The offline judge's round-4 behaviour, on sentences written for these tests: a sentence judged
by the claims it makes, each backed by one to three context spans together, and hedged claims.
Only the public scoring API is used, so the same checks run against the judge before these
changes: there every case expected to pass below failed (grade 1), and every case expected to fail
failed too. Facts from two sentences of one
passage were already read together (a candidate span is up to three neighbouring sentences): the
cases here take them from two passages. How sentences are cut into claims, and the learned entailment feature, are tested in
test_claim_split.py."""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.scorer import GroundingReport, LocalScorer
from pytest_rag.judges.local.tasks import grade_fraction

PASS = 4  # the faithfulness metric's default pass mark


def _grade(scorer: LocalScorer, answer: str, contexts: list[str]) -> tuple[int, GroundingReport]:
    report = scorer.support(answer, contexts)
    return grade_fraction(report), report


PILOT = [
    "Winifred Hale (born 30 June 1921) was a British-born pilot.",
    "She flew cargo planes during the war and later trained airline crews.",
]
CELLIST = [
    "Petra Ruiz joined the orchestra as principal cellist in 1996.",
    "The orchestra toured Japan for the first time in 2001, with Ruiz as soloist.",
]
PRIZE = [
    "The Halden Prize is awarded every two years to a young sculptor.",
    "Its first winner, in 1983, was the Swiss artist Mira Lenz.",
]
FERRY_CREW = [
    "Lars Eng, the ferry's captain, inspects the boat every Monday. Its chief engineer is Ada Moss."
]
QUARTET = [
    "The Varga Quartet won the Budapest chamber competition in 2009. In the following year the "
    "quartet was invited to play at festivals across Europe."
]
NOVELIST = [
    "The novelist Ada Krol won the Booker Prize in 1994. Her novels have been translated into thirty languages."
]


# -- claims that need several spans ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        # a place and a date of one sentence, a deed of the next
        ("Hale was born in Britain on 30th June 1921 and flew cargo planes during the war.", PILOT),
        (
            "Petra Ruiz became principal cellist in 1996 and was soloist on the orchestra's first tour of Japan in 2001.",
            CELLIST,
        ),
        # a relative clause backed by one sentence, the main clause by the other
        (
            "The Halden Prize, which goes to a young sculptor every two years, was first won by Mira Lenz in 1983.",
            PRIZE,
        ),
    ],
)
def test_a_sentence_joining_facts_from_two_places_passes(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    grade, report = _grade(scorer, answer, contexts)
    assert grade >= PASS, report.sentences[0].explain()


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        ("Hale was born in Britain on 30th June 1921 and flew fighter planes during the war.", PILOT),
        ("Hale was born in Britain on 30th June 1926 and flew cargo planes during the war.", PILOT),
        (
            "Petra Ruiz became principal cellist in 1996 and was soloist on the orchestra's first tour of China in 2001.",
            CELLIST,
        ),
        ("The Halden Prize was first awarded in 1983, to the Austrian sculptor Mira Lenz.", PRIZE),
        # an appositive with another role: the edit is seen in the sentence read whole
        ("Lars Eng, the ferry's mechanic, inspects the boat every Monday.", FERRY_CREW),
    ],
)
def test_a_compound_with_one_false_part_still_fails(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    grade, report = _grade(scorer, answer, contexts)
    assert grade < PASS, report.sentences[0].explain()


def test_the_explanation_names_the_weakest_claim(scorer: LocalScorer) -> None:
    answer = "Hale was born in Britain on 30th June 1926 and trained airline crews after the war."
    sentence = scorer.support(answer, PILOT).sentences[0]
    assert sentence.sentence == answer
    assert "weakest claim: 'Hale was born on 30th June 1926.'" in sentence.explain()
    assert "numbers not in the contexts: 1926" in sentence.explain()


# -- hedged claims ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        ("Krol won the Booker Prize in 1994, which may have contributed to her popularity abroad.", NOVELIST),
        (
            "Krol won the Booker Prize in 1994, which perhaps explains the many translations of her novels.",
            NOVELIST,
        ),
        (
            "The Varga Quartet won the Budapest competition in 2009, which may have raised its profile with festival organisers.",
            QUARTET,
        ),
    ],
)
def test_a_hedged_claim_that_is_a_fair_inference_does_not_sink_the_sentence(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    grade, report = _grade(scorer, answer, contexts)
    assert grade >= PASS, report.sentences[0].explain()
    assert "stated as uncertain, so it claims less" in report.sentences[0].explain()


@pytest.mark.parametrize(
    ("answer", "contexts"),
    [
        ("Krol possibly won the Booker Prize in 1997.", NOVELIST),  # another year
        ("Krol won the Booker Prize in 1994, which may have led to her Nobel Prize.", NOVELIST),  # a new name
        (
            "The Varga Quartet possibly did not win the Budapest chamber competition in 2009.",
            QUARTET,
        ),  # negation
    ],
)
def test_a_hedged_claim_the_contexts_contradict_still_fails(
    scorer: LocalScorer, answer: str, contexts: list[str]
) -> None:
    grade, report = _grade(scorer, answer, contexts)
    assert grade < PASS, report.sentences[0].explain()
    assert "claims less" not in report.sentences[0].explain()
