"""Hand-worked checks of the metric arithmetic in pytest_rag.scoring."""

from __future__ import annotations

import math

import pytest

from pytest_rag.scoring import (
    NuggetJudgement,
    average_precision,
    average_precision_at_k,
    binary_relevance,
    citation_scores,
    dispersion,
    f1_score,
    nugget_scores,
    precision_at_k,
    precision_recall_f1,
    reciprocal_rank,
)

T, F = True, False

# --- ranking -------------------------------------------------------------------------


def test_precision_at_k_hand_worked() -> None:
    ranking = [T, F, T, T, F]
    assert precision_at_k(ranking, 1) == 1.0  # 1 of 1
    assert precision_at_k(ranking, 2) == 0.5  # 1 of 2
    assert precision_at_k(ranking, 4) == 0.75  # 3 of 4
    # Only 5 passages retrieved but 10 asked for: 3 relevant / 10.
    assert precision_at_k(ranking, 10) == 0.3


def test_average_precision_ragas_convention() -> None:
    # Relevant at ranks 1 and 3: precision@1 = 1/1, precision@3 = 2/3.
    # AP = (1 + 2/3) / 2 = 5/6.
    assert average_precision([T, F, T]) == pytest.approx(5 / 6)
    # Relevant at ranks 2, 3: precision@2 = 1/2, precision@3 = 2/3 -> (1/2 + 2/3)/2 = 7/12.
    assert average_precision([F, T, T]) == pytest.approx(7 / 12)
    # Ranking relevant passages first is rewarded.
    assert average_precision([T, T, F]) == 1.0


def test_average_precision_at_k_open_rag_eval_convention() -> None:
    # Open RAG Eval's own test cases: UMBRELA grades {1, 3, 0} -> [F, T, F]:
    # precision@2 = 1/2 at the only relevant rank -> AP@3 = 0.5; and all relevant -> 1.0.
    assert average_precision_at_k(binary_relevance([1, 3, 0]), 3) == pytest.approx(0.5)
    assert average_precision_at_k(binary_relevance([3, 2, 3]), 3) == 1.0
    # [T, F, F, T, T] at k = 3: only rank 1 is relevant within the top 3 -> AP@3 = 1/1 = 1.0
    # (the denominator is relevant-within-k = 1, not the 3 relevant in the whole list).
    ranking = [T, F, F, T, T]
    assert average_precision_at_k(ranking, 3) == 1.0
    # At k = 5: precision@1 = 1, @4 = 2/4, @5 = 3/5 -> (1 + 0.5 + 0.6) / 3 = 0.7.
    assert average_precision_at_k(ranking, 5) == pytest.approx(0.7)
    # k beyond the list changes nothing: no extra relevant passage can appear.
    assert average_precision_at_k(ranking, 50) == pytest.approx(0.7)


def test_reciprocal_rank() -> None:
    assert reciprocal_rank([F, F, T, T]) == pytest.approx(1 / 3)
    assert reciprocal_rank([T]) == 1.0
    assert reciprocal_rank(binary_relevance([1, 3, 0])) == 0.5


def test_no_relevant_passage_scores_zero_everywhere() -> None:
    none_relevant = binary_relevance([1, 1, 0])  # Open RAG Eval: grades below 2
    assert none_relevant == [F, F, F]
    assert precision_at_k(none_relevant, 3) == 0.0
    assert average_precision(none_relevant) == 0.0
    assert average_precision_at_k(none_relevant, 3) == 0.0
    assert reciprocal_rank(none_relevant) == 0.0
    assert average_precision([]) == 0.0
    assert reciprocal_rank([]) == 0.0
    assert precision_at_k([], 3) == 0.0


def test_binary_relevance_threshold() -> None:
    assert binary_relevance([0, 1, 2, 3]) == [F, F, T, T]
    assert binary_relevance([0, 1, 2, 3], threshold=1) == [F, T, T, T]


def test_ranking_rejects_graded_scores_and_bad_k() -> None:
    with pytest.raises(ValueError, match=r"rank 1 is 3.*binary_relevance"):
        average_precision([3, 2, 0])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="k must be a positive integer"):
        precision_at_k([T], 0)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        average_precision_at_k([T], 2.5)  # type: ignore[arg-type]


# --- nuggets -------------------------------------------------------------------------


def test_nugget_scores_hand_worked() -> None:
    judgements = [
        ("vital", "support"),  # 1.0, strict 1
        ("vital", "partial_support"),  # 0.5, strict 0
        ("vital", "not_support"),  # 0.0, strict 0
        ("okay", "support"),  # 1.0, strict 1
        ("okay", "partial_support"),  # 0.5, strict 0
    ]
    scores = nugget_scores(judgements)
    assert (scores.n_vital, scores.n_okay) == (3, 2)
    # all   = (1 + 0.5 + 0 + 1 + 0.5) / 5 = 3 / 5
    assert scores.all == pytest.approx(0.6)
    # vital = (1 + 0.5 + 0) / 3 = 0.5
    assert scores.vital == pytest.approx(0.5)
    # weighted = (1.5 + 0.5 * 1.5) / (3 + 0.5 * 2) = 2.25 / 4
    assert scores.weighted == pytest.approx(0.5625)
    # strict: all = 2/5, vital = 1/3, weighted = (1 + 0.5 * 1) / 4 = 0.375
    assert scores.strict_all == pytest.approx(0.4)
    assert scores.strict_vital == pytest.approx(1 / 3)
    assert scores.strict_weighted == pytest.approx(0.375)


def test_nugget_labels_are_case_insensitive_and_named_tuples_work() -> None:
    scores = nugget_scores([NuggetJudgement("Vital", "SUPPORT"), ("okay", " not_support ")])
    # weighted = (1 + 0.5 * 0) / (1 + 0.5) = 2/3
    assert scores.weighted == pytest.approx(2 / 3)


def test_nugget_empty_cases_are_none() -> None:
    empty = nugget_scores([])
    assert empty.all is None and empty.vital is None and empty.weighted is None
    assert empty.strict_all is None and empty.strict_vital is None
    assert empty.strict_weighted is None
    only_okay = nugget_scores([("okay", "support"), ("okay", "not_support")])
    assert only_okay.vital is None and only_okay.strict_vital is None
    # With no vital nugget, weighted = 0.5 * 1 / (0.5 * 2) = 0.5, the same as all.
    assert only_okay.weighted == pytest.approx(0.5)
    assert only_okay.all == pytest.approx(0.5)


def test_nugget_bad_labels_name_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="expected one of support, partial_support, not_support"):
        nugget_scores([("vital", "supported")])
    with pytest.raises(ValueError, match="expected one of vital, okay"):
        nugget_scores([("essential", "support")])
    with pytest.raises(ValueError, match="pair"):
        nugget_scores([("vital",)])  # type: ignore[list-item]


# --- citations -----------------------------------------------------------------------


def test_citation_scores_hand_worked() -> None:
    parts: list[list[str | float]] = [
        ["full_support", "partial_support"],  # part average (1 + 0.5) / 2 = 0.75
        ["no_support"],  # 0.0
        [],  # uncited part: 0.0
        [1.0],  # numeric score accepted: 1.0
    ]
    scores = citation_scores(parts)
    # precision = (1 + 0.5 + 0 + 1) / 4 citations = 0.625
    assert scores.precision == pytest.approx(0.625)
    # recall = (0.75 + 0 + 0 + 1) / 4 parts = 0.4375
    assert scores.recall == pytest.approx(0.4375)
    # F1 = 2 * 0.625 * 0.4375 / (0.625 + 0.4375) = 0.546875 / 1.0625 = 0.514706
    assert scores.f1 == pytest.approx(0.546875 / 1.0625)
    assert scores.part_scores == (0.75, 0.0, 0.0, 1.0)
    assert scores.n_citations == 4


def test_citation_scores_match_open_rag_eval_example() -> None:
    # Open RAG Eval's test: one part citing a partially and a non-supporting passage:
    # precision (0.5 + 0) / 2 = 0.25, part score 0.25, recall 0.25.
    scores = citation_scores([["partial_support", "no_support"]])
    assert scores.precision == pytest.approx(0.25)
    assert scores.recall == pytest.approx(0.25)
    assert scores.f1 == pytest.approx(0.25)


def test_citation_edge_cases() -> None:
    # No answer parts: nothing to measure on either side.
    nothing = citation_scores([])
    assert (nothing.precision, nothing.recall, nothing.f1) == (None, None, None)
    # Parts but no citations: precision undefined, recall 0, so F1 0 (the answer fails).
    uncited = citation_scores([[], []])
    assert uncited.precision is None
    assert uncited.recall == 0.0
    assert uncited.f1 == 0.0
    # Citations that all fail: precision 0, recall 0, F1 0, never NaN.
    failing = citation_scores([["no_support"]])
    assert (failing.precision, failing.recall, failing.f1) == (0.0, 0.0, 0.0)


def test_citation_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown citation support label"):
        citation_scores([["full"]])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        citation_scores([[1.5]])
    with pytest.raises(ValueError, match="wrap a single label in a list"):
        citation_scores(["full_support"])


# --- precision / recall / F1 ---------------------------------------------------------


def test_precision_recall_f1_hand_worked() -> None:
    # 3 of 4 answer claims entailed by the reference; 2 of 5 reference claims covered.
    # precision 0.75, recall 0.4, F1 = 2 * 0.3 / 1.15 = 0.521739
    result = precision_recall_f1(3, 4, 2, 5)
    assert result.precision == 0.75
    assert result.recall == 0.4
    assert result.f1 == pytest.approx(0.6 / 1.15)


def test_precision_recall_f1_edge_cases() -> None:
    # Answer with no claims against a reference with claims: precision undefined,
    # recall 0, F1 0.
    no_answer_claims = precision_recall_f1(0, 0, 0, 3)
    assert no_answer_claims.precision is None
    assert no_answer_claims.recall == 0.0
    assert no_answer_claims.f1 == 0.0
    # Reference with no claims, answer claims all supported: recall undefined, F1 unknown.
    no_reference = precision_recall_f1(2, 2, 0, 0)
    assert (no_reference.precision, no_reference.recall, no_reference.f1) == (1.0, None, None)
    # Nothing on either side.
    assert precision_recall_f1(0, 0, 0, 0).f1 is None
    # Both zero: F1 is 0, not 0/0.
    assert precision_recall_f1(0, 3, 0, 3).f1 == 0.0


def test_precision_recall_f1_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="cannot exceed"):
        precision_recall_f1(5, 4, 0, 1)
    with pytest.raises(ValueError, match="must not be negative"):
        precision_recall_f1(-1, 4, 0, 1)
    with pytest.raises(ValueError, match="finite"):
        precision_recall_f1(math.nan, 4, 0, 1)
    with pytest.raises(ValueError, match=r"precision must lie in \[0, 1\]"):
        f1_score(1.2, 0.5)


# --- dispersion ----------------------------------------------------------------------


def test_dispersion_hand_worked() -> None:
    # Runs 0.6, 0.8, 1.0: mean 0.8; squared deviations 0.04, 0, 0.04 -> sum 0.08;
    # sample variance 0.08 / (3 - 1) = 0.04; std 0.2; CV 0.2 / 0.8 = 0.25.
    result = dispersion([0.6, 0.8, 1.0])
    assert result.n == 3
    assert result.mean == pytest.approx(0.8)
    assert result.variance == pytest.approx(0.04)
    assert result.std == pytest.approx(0.2)
    assert result.coefficient_of_variation == pytest.approx(0.25)


def test_dispersion_single_run_and_zero_mean() -> None:
    single = dispersion([0.7])
    assert (single.n, single.mean, single.variance, single.std) == (1, 0.7, 0.0, 0.0)
    assert single.coefficient_of_variation == 0.0
    # Mean exactly 0: CV undefined -> None (runs -1 and 1: variance 2, std sqrt 2).
    centred = dispersion([-1.0, 1.0])
    assert centred.variance == pytest.approx(2.0)
    assert centred.coefficient_of_variation is None


def test_dispersion_rejects_empty_and_nan() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        dispersion([])
    with pytest.raises(ValueError, match="run scores contain NaN at index 1"):
        dispersion([0.5, math.nan])
