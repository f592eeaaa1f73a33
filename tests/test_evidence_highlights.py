"""Each built-in metric declares on its evidence what a report marks: unsupported statements of the
answer, and a grade per retrieved passage by its 1-based rank."""

from __future__ import annotations

import pytest

from pytest_rag.metrics.context_use import AugmentationEvidence
from pytest_rag.metrics.grounding import (
    AnswerConsistencyEvidence,
    ClaimsEvidence,
    ClaimVerdict,
    UnsupportedStatements,
)
from pytest_rag.metrics.reference.agreement import CheckedClaim, FactualCorrectnessEvidence
from pytest_rag.metrics.reference.context_recall import AttributionEvidence, RecallEvidence
from pytest_rag.metrics.retrieval import PassageEvidence, PassageGrade, PassageJudgment, UmbrelaEvidence
from pytest_rag.results import Evidence, Highlights

OFF = "Delivery is free on Sundays."


@pytest.mark.parametrize(
    "evidence",
    [
        UnsupportedStatements(
            unsupported_statements=[OFF]
        ),  # faithfulness, hallucination, binary consistency
        ClaimsEvidence(
            claims=[
                ClaimVerdict(claim="Delivery takes 2 days.", supported=True),
                ClaimVerdict(claim=OFF, supported=False),
            ],
            unsupported_statements=[OFF],
        ),
        AnswerConsistencyEvidence(unsupported_statements=[OFF]),
        FactualCorrectnessEvidence(
            generated_claims=[
                CheckedClaim(claim=OFF, verdict="contradiction"),
                CheckedClaim(claim="Delivery is fast.", verdict="neutral"),
            ]
        ),
    ],
    ids=lambda e: type(e).__name__,
)
def test_grounding_evidence_marks_the_statements_the_judge_rejected(evidence: Evidence) -> None:
    assert evidence.highlights() == Highlights(statements=[OFF])


@pytest.mark.parametrize(
    "evidence,grades",
    [
        (
            PassageEvidence(
                passages=[PassageJudgment(index=2, relevant=True), PassageJudgment(index=1, relevant=False)]
            ),
            {1: "relevant: no", 2: "relevant: yes"},
        ),
        (
            UmbrelaEvidence(passages=[PassageGrade(index=1, grade=3), PassageGrade(index=2, grade=0)]),
            {1: "grade: 3", 2: "grade: 0"},
        ),
        (
            AugmentationEvidence(
                passages=[
                    {"index": 1, "relevant": True, "used": False},
                    {"index": 2, "relevant": False, "used": None},
                ]
            ),
            {1: "relevant: yes", 2: "relevant: no"},
        ),
        (
            AugmentationEvidence(passages=[{"index": 1, "used": True}, {"index": 2, "used": False}]),
            {1: "used: yes", 2: "used: no"},
        ),
    ],
    ids=["context_precision", "umbrela", "augmentation_precision", "augmentation_accuracy"],
)
def test_retrieval_evidence_grades_each_passage_by_rank(evidence: Evidence, grades: dict[int, str]) -> None:
    assert evidence.highlights() == Highlights(passages=grades)


def test_evidence_about_the_reference_marks_nothing_in_the_answer() -> None:
    assert RecallEvidence(missing_facts=[OFF]).highlights() == Highlights()
    assert AttributionEvidence(missing_facts=[OFF]).highlights() == Highlights()
