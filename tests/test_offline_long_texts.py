"""The offline judge scores very long texts: it caps its work, not its verdict.

A 2 MB unsupported answer took half a minute and ended in a JudgeError about the size of the
verdict (one unsupported statement per sentence). Past :data:`MAX_JUDGED_SENTENCES` sentences the
judge reads an even spread of them, so a long unsupported answer still scores low, a long supported
one still scores high, and the reasoning says what was read. No timing is asserted here; the bound
on the work is asserted as the number of sentences the judge is handed.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_rag.inputs import Sample
from pytest_rag.judges.local import judge as local_judge
from pytest_rag.judges.local.judge import MAX_JUDGED_SENTENCES, MAX_SENTENCE_CHARS, bounded_inputs
from pytest_rag.scoring.text import split_sentences
from test_metrics_catalog import offline

CONTEXTS = [
    "Refunds are processed within five business days. Exchanges are free of charge within 30 days.",
    "Orders ship from Porto. Delivery takes two days in Portugal and four days elsewhere in Europe.",
]
SUPPORTED = [
    "Refunds are processed within five business days.",
    "Exchanges are free of charge within 30 days.",
    "Orders ship from Porto.",
    "Delivery takes two days in Portugal.",
]


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The inputs every handler of the offline judge is handed (what its work is bounded by)."""
    seen: list[dict[str, Any]] = []
    original = local_judge.bounded_inputs

    def spy(inputs: Any) -> Any:
        bounded, notes = original(inputs)
        seen.append(dict(bounded))
        return bounded, notes

    monkeypatch.setattr(local_judge, "bounded_inputs", spy)
    return seen


def test_a_two_megabyte_unsupported_answer_scores_1(handed: list[dict[str, Any]]) -> None:
    answer = "".join(
        f"The moon is made of green cheese and orbits Mars every {i} days. " for i in range(30_000)
    )
    assert len(answer) > 1_900_000
    result = offline("faithfulness", Sample(answer=answer, contexts=CONTEXTS))
    assert result.score == 1
    assert result.reasons.startswith(
        f"The answer has 30,000 sentences; the offline judge read {MAX_JUDGED_SENTENCES} of them, spread "
        "evenly from first to last."
    )
    (inputs,) = handed
    judged = split_sentences(inputs["answer"])
    assert len(judged) == MAX_JUDGED_SENTENCES
    assert judged[0].endswith("every 0 days.") and judged[-1].endswith("every 29999 days.")


def test_a_long_supported_answer_still_passes(handed: list[dict[str, Any]]) -> None:
    answer = " ".join(SUPPORTED[i % len(SUPPORTED)] for i in range(2_000))
    result = offline("faithfulness", Sample(answer=answer, contexts=CONTEXTS))
    assert result.score >= 4, result.reasons
    assert "read 100 of them" in result.reasons
    assert len(split_sentences(handed[0]["answer"])) == MAX_JUDGED_SENTENCES


def test_unsupported_sentences_spread_through_a_long_answer_are_found() -> None:
    """One sentence in three made up, all along the answer: the spread reads them as it reads the rest."""
    made_up = [f"Refunds are paid in gold coins on day {i}." for i in range(700)]
    answer = " ".join(s for i in range(700) for s in (SUPPORTED[i % 4], SUPPORTED[(i + 1) % 4], made_up[i]))
    result = offline("faithfulness", Sample(answer=answer, contexts=CONTEXTS))
    assert result.score <= 3, result.reasons
    assert any("gold coins" in statement for statement in result.evidence_dict()["unsupported_statements"])


def test_an_answer_without_full_stops_is_read_in_pieces(handed: list[dict[str, Any]]) -> None:
    answer = "the moon is made of green cheese and orbits mars " * 40_000  # 2 MB, one "sentence"
    result = offline("faithfulness", Sample(answer=answer, contexts=CONTEXTS))
    assert result.score == 1
    pieces = handed[0]["answer"].split("\n")
    assert len(pieces) == MAX_JUDGED_SENTENCES
    assert all(0 < len(piece) <= MAX_SENTENCE_CHARS for piece in pieces)


def test_a_text_within_the_bound_is_handed_over_as_it_is() -> None:
    answer = " ".join(SUPPORTED * 20)  # 80 sentences
    inputs = {"answer": answer, "contexts": CONTEXTS, "claims": SUPPORTED * 20}
    assert bounded_inputs(inputs) == (inputs, [])


def test_lists_of_claims_and_other_texts_are_bounded_the_same_way() -> None:
    claims = [f"claim {i}." for i in range(1_000)]
    reference = " ".join(f"Fact number {i} holds." for i in range(500))
    bounded, notes = bounded_inputs({"claims": claims, "reference": reference, "question": "q " * 10_000})
    assert len(bounded["claims"]) == MAX_JUDGED_SENTENCES
    assert (bounded["claims"][0], bounded["claims"][-1]) == ("claim 0.", "claim 999.")
    assert len(split_sentences(bounded["reference"])) == MAX_JUDGED_SENTENCES
    assert bounded["question"] == "q " * 10_000  # read as a whole, not sentence by sentence
    assert notes == [
        "The reference has 500 sentences; the offline judge read 100 of them, spread evenly from first to last.",
        "The claims are 1,000; the offline judge read 100 of them, spread evenly from first to last.",
    ]
