"""Behaviour of the offline judge: evidence, explanations, edge cases, and no network."""

from __future__ import annotations

import json
import math
import socket
from importlib import resources
from typing import Any

import pytest

from pytest_rag.judges.local.features import (
    ANSWER_FEATURES,
    CORRECTNESS_FEATURES,
    RELEVANCE_FEATURES,
    SENTENCE_FEATURES,
)
from pytest_rag.judges.local.scorer import CalibrationError, GroundingReport, LocalScorer, load_calibration

CONTEXTS = [
    "Bananas are a tropical fruit. They are rich in potassium and grow in large clusters.",
    "The Eiffel Tower in Paris was completed in 1889. It is about 330 metres tall. "
    "Gustave Eiffel's company designed and built the tower for the World's Fair.",
    "Photosynthesis turns light, water and carbon dioxide into sugar and oxygen in plants.",
]


def test_copied_sentence_beats_changed_number(scorer: LocalScorer) -> None:
    faithful = scorer.support("The Eiffel Tower was completed in 1889.", CONTEXTS)
    altered = scorer.support("The Eiffel Tower was completed in 1925.", CONTEXTS)
    assert faithful.sentences[0].probability > altered.sentences[0].probability
    assert faithful.probability > altered.probability
    assert altered.sentences[0].unsupported_numbers == ("1925",)
    assert faithful.sentences[0].unsupported_numbers == ()


def test_chit_chat_around_a_context_fact_counts_against_support(scorer: LocalScorer) -> None:
    # The same fact stated plainly, then wrapped in conversation about the speakers and asked
    # back as a question: the conversational register is evidence of an unattributable reply.
    plain = scorer.support("Bananas grow in large clusters and are rich in potassium.", CONTEXTS)
    chatty = scorer.support(
        "I think you would love bananas, do you know they grow in large clusters and are rich in potassium?",
        CONTEXTS,
    )
    assert plain.sentences[0].probability > chatty.sentences[0].probability
    assert plain.probability > chatty.probability


def test_speaker_experience_claim_is_marked_and_lowers_support(scorer: LocalScorer) -> None:
    # "We visited it" reports the speaker's own life, which no context can back; the same fact
    # without it must score higher, and the feature must fire only on the claim about the speaker.
    plain = "The Eiffel Tower in Paris was completed in 1889."
    claim = "We visited the Eiffel Tower in Paris, it was completed in 1889."
    (plain_evidence, claim_evidence), _ = scorer.evidence([plain, claim], plain, CONTEXTS)
    position = SENTENCE_FEATURES.index("experience_claim")
    assert plain_evidence.features[position] == 0.0
    assert claim_evidence.features[position] == 1.0
    assert scorer.support(plain, CONTEXTS).probability > scorer.support(claim, CONTEXTS).probability


def test_best_span_points_at_the_right_context(scorer: LocalScorer) -> None:
    report = scorer.support("Plants turn light and carbon dioxide into sugar.", CONTEXTS)
    best = report.sentences[0]
    assert best.context_index == 2
    assert "Photosynthesis" in best.span


def test_invented_name_and_negation_are_reported(scorer: LocalScorer) -> None:
    named = scorer.support("The tower was designed by Leonardo Bianchi for the fair.", CONTEXTS)
    assert set(named.sentences[0].unsupported_names) >= {"Leonardo", "Bianchi"}
    negated = scorer.support("The Eiffel Tower was not completed in 1889.", CONTEXTS)
    assert negated.sentences[0].negation_mismatch
    assert (
        not scorer.support("The Eiffel Tower was completed in 1889.", CONTEXTS).sentences[0].negation_mismatch
    )


def test_unrelated_sentence_is_flagged_among_supported_ones(scorer: LocalScorer) -> None:
    answer = (
        "Bananas are a tropical fruit rich in potassium. "
        "The moon landing in 1969 was broadcast to 600 million viewers."
    )
    report = scorer.support(answer, CONTEXTS)
    assert len(report.sentences) == 2
    unsupported = report.unsupported()
    assert [s.sentence for s in unsupported] == [report.sentences[1].sentence]
    assert report.supported_fraction() == 0.5
    assert "1969" in unsupported[0].explain()


def test_claims_and_coverage_use_the_same_alignment(scorer: LocalScorer) -> None:
    claims = scorer.claims_support(["Bananas grow in clusters.", "Bananas are blue."], CONTEXTS)
    assert [s.sentence for s in claims.sentences] == [
        "Bananas grow in clusters.",
        "Bananas are blue.",
    ]
    covered = scorer.coverage("The tower is about 330 metres tall.", CONTEXTS)
    missing = scorer.coverage("The tower has 42 elevators made of gold.", CONTEXTS)
    assert covered.probability > missing.probability


def test_empty_answer_and_empty_contexts_have_documented_results(scorer: LocalScorer) -> None:
    assert scorer.support("", CONTEXTS) == GroundingReport((), 1.0)
    assert scorer.support("  \n ", CONTEXTS).probability == 1.0
    no_context = scorer.support("Bananas are yellow.", [])
    assert no_context.probability == 0.0
    assert no_context.sentences[0].probability == 0.0
    assert no_context.sentences[0].context_index is None
    blank_context = scorer.support("Bananas are yellow.", ["", "   "])
    assert blank_context.probability == 0.0
    assert scorer.claims_support([], CONTEXTS).probability == 1.0
    assert scorer.correctness("Who?", "Paris", []) == 0.0
    assert scorer.relevance("Where is it?", "") == 0.0
    assert scorer.similarity("", "something") == 0.0
    assert scorer.embed([]).shape == (0, 256)


def test_bad_argument_types_are_named(scorer: LocalScorer) -> None:
    with pytest.raises(TypeError, match="contexts must be a sequence of str"):
        scorer.support("An answer.", "a single string, not a list")
    with pytest.raises(TypeError, match=r"contexts\[1\] must be a str"):
        scorer.support("An answer.", ["ok", None])  # type: ignore[list-item]


def test_probabilities_are_finite_and_in_range(scorer: LocalScorer) -> None:
    texts = ["", "1 2 3", "???", "Bananas.", "no no no not never", "x" * 500]
    for text in texts:
        values = [
            scorer.support(text, CONTEXTS).probability,
            scorer.relevance("what?", text or "a"),
            scorer.answer_relevance("what?", text or "a"),
            scorer.correctness("what?", text, ["bananas"]),
            scorer.no_answer("what?", text),
        ]
        for v in values:
            assert math.isfinite(v) and 0.0 <= v <= 1.0


def test_refusal_is_detected_and_answer_is_not(scorer: LocalScorer) -> None:
    question = "When was the Eiffel Tower completed?"
    refusal = scorer.no_answer(question, "I don't know based on the provided documents.")
    other_refusal = scorer.no_answer(question, "The context does not mention when it was built.")
    answer = scorer.no_answer(question, "It was completed in 1889 for the World's Fair.")
    assert refusal > 0.5 and other_refusal > 0.5
    assert answer < 0.5


def test_relevance_prefers_on_topic_passage(scorer: LocalScorer) -> None:
    question = "How tall is the Eiffel Tower?"
    assert scorer.relevance(question, CONTEXTS[1]) > scorer.relevance(question, CONTEXTS[0])
    assert scorer.answer_relevance(question, "It is about 330 metres tall.") > (
        scorer.answer_relevance(question, "Bananas grow in large clusters.")
    )


def test_correctness_accepts_matching_answer_over_wrong_one(scorer: LocalScorer) -> None:
    question = "who wrote the play hamlet"
    right = scorer.correctness(question, "It was written by William Shakespeare.", ["Shakespeare"])
    wrong = scorer.correctness(question, "Christopher Marlowe", ["Shakespeare"])
    assert right > wrong


def test_similarity_and_embeddings(scorer: LocalScorer) -> None:
    vectors = scorer.embed(["a banana", "a yellow banana", "tax law"])
    norms = (vectors**2).sum(axis=1)
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-4)
    assert scorer.similarity("a banana", "a yellow banana") > scorer.similarity("a banana", "tax law")
    assert scorer.similarity("same text", "same text") == pytest.approx(1.0, abs=1e-5)


def test_loading_and_scoring_open_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the offline judge tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(LocalScorer, "_instance", None)
    from pytest_rag.judges.local import embedder as embedder_module

    monkeypatch.setattr(embedder_module, "_INSTANCE", None)
    scorer = LocalScorer.load()
    assert scorer.support("Bananas are a tropical fruit.", CONTEXTS).probability > 0.5
    assert LocalScorer.load() is scorer  # cached per process


def test_calibration_matches_the_feature_extractor() -> None:
    raw = json.loads(
        resources.files("pytest_rag.judges.local").joinpath("calibration.json").read_text("utf-8")
    )
    expected = {
        "sentence": SENTENCE_FEATURES,
        "answer": ANSWER_FEATURES,
        "correctness": CORRECTNESS_FEATURES,
        "relevance": RELEVANCE_FEATURES,
        "answer_relevance": RELEVANCE_FEATURES,
    }
    for name, features in expected.items():
        assert tuple(raw["models"][name]["features"]) == features
        assert 0.0 < raw["models"][name]["threshold"] < 1.0
    assert raw["version"]
    assert load_calibration().version == raw["version"]


def test_mismatched_calibration_is_rejected_with_the_fix() -> None:
    raw = json.loads(
        resources.files("pytest_rag.judges.local").joinpath("calibration.json").read_text("utf-8")
    )
    raw["models"]["sentence"]["features"] = ["something_else"] * len(SENTENCE_FEATURES)
    with pytest.raises(CalibrationError, match=r"fit_local_judge\.py --write"):
        load_calibration(json.dumps(raw))
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration("{")


REFUND = ["Refunds are processed within 5 business days of approval."]


@pytest.mark.parametrize(
    "paraphrase",
    [
        "You get your refund within 5 business days once it is approved.",
        "You can expect the refund within 5 business days of approval.",
        "A refund is issued within 5 business days once it is approved.",
    ],
)
def test_second_person_paraphrase_is_supported_and_beats_a_changed_number(
    scorer: LocalScorer, paraphrase: str
) -> None:
    # Short RAG answers address the user; "you/your" must not count as chit-chat, and a faithful
    # paraphrase must rank above a near copy with the number changed.
    faithful = scorer.support(paraphrase, REFUND).sentences[0]
    changed = scorer.support("Refunds are processed within 30 business days of approval.", REFUND).sentences[
        0
    ]
    assert faithful.probability >= 0.5
    assert faithful.probability > changed.probability
    assert changed.unsupported_numbers == ("30",)


def test_negation_flip_of_a_context_sentence_is_capped(scorer: LocalScorer) -> None:
    original = scorer.support("Refunds are processed within 5 business days of approval.", REFUND)
    flipped = scorer.support("Refunds are not processed within 5 business days of approval.", REFUND)
    assert flipped.sentences[0].negation_flip
    assert not original.sentences[0].negation_flip
    assert flipped.sentences[0].probability < 0.5 < original.sentences[0].probability
    assert "negation reversed" in flipped.sentences[0].explain()
    # A faithful restatement that keeps the context's own negation is not a flip.
    leaflet = ["Children under 12 should not use this medicine."]
    kept = scorer.support("This medicine should not be used by children under 12.", leaflet)
    assert not kept.sentences[0].negation_flip
    dropped = scorer.support("Children under 12 can use this medicine.", leaflet)
    assert dropped.sentences[0].negation_flip


STORAGE = [
    "Backups older than 30 days are deleted automatically. The free tier stores up to 10 GB per user. "
    "Uploads are scanned for malware before they are published, and links expire after 7 days."
]


@pytest.mark.parametrize(
    "reversed_answer",
    [
        "Backups newer than 30 days are deleted automatically.",  # "newer" is no comparison word we know
        "Backups younger than 30 days are deleted automatically.",
        "The free tier stores at least 10 GB per user.",
        "Uploads are scanned for malware after they are published.",
        "Links expire before 7 days.",
    ],
)
def test_comparison_reversed_against_a_context_sentence_is_capped(
    scorer: LocalScorer, reversed_answer: str
) -> None:
    support = scorer.support(reversed_answer, STORAGE).sentences[0]
    if "newer" in reversed_answer:
        # Documented limit: only the listed comparison and order words are checked.
        assert not support.comparison_flip
        return
    assert support.comparison_flip
    assert support.probability < 0.5
    assert "comparison or order reversed" in support.explain()


@pytest.mark.parametrize(
    "faithful",
    [
        "Backups older than 30 days are deleted automatically.",
        "Each user gets up to 10 GB on the free tier.",
        "Uploads are checked for malware before they are published.",
        "Links expire after 7 days.",
        # A negation before the marker turns it: "no more than 10 GB" is the same upper bound.
        "The free tier stores no more than 10 GB per user.",
    ],
)
def test_comparison_kept_as_the_context_states_it_is_not_a_flip(scorer: LocalScorer, faithful: str) -> None:
    support = scorer.support(faithful, STORAGE).sentences[0]
    assert not support.comparison_flip
    assert support.probability >= 0.5


def test_comparison_words_in_other_senses_are_not_flips(scorer: LocalScorer) -> None:
    # "carried over to the next year" and "symptoms last" use comparison words as verbs and
    # particles; tying each comparison to what it compares keeps them apart.
    leave = ["Up to 5 unused days can be carried over to the next year."]
    assert (
        not scorer.support("Up to 5 unused days can be carried over to the next year.", leave)
        .sentences[0]
        .comparison_flip
    )
    leaflet = ["See a doctor if symptoms last more than 3 days."]
    assert (
        not scorer.support("See a doctor when symptoms last more than 3 days.", leaflet)
        .sentences[0]
        .comparison_flip
    )
    assert (
        scorer.support("See a doctor if symptoms last less than 3 days.", leaflet)
        .sentences[0]
        .comparison_flip
    )


DELIVERY = [
    "Orders placed before noon ship the same day from our warehouse in Leeds. "
    "Parcels are delivered by DPD, and tracking links are sent by email."
]


@pytest.mark.parametrize(
    ("answer", "swapped"),
    [
        ("Orders placed before noon ship the same day from our warehouse in Bristol.", True),
        ("Parcels are delivered by Hermes, and tracking links are sent by email.", True),
        ("Your order ships the same day from our Leeds warehouse if you order before noon.", False),
        # An abbreviation of the context's name is not a swap ("UK" for "United Kingdom").
        ("Orders placed before noon ship the same day from our warehouse in the UK.", False),
    ],
)
def test_name_replaced_in_a_near_copy_is_capped(scorer: LocalScorer, answer: str, swapped: bool) -> None:
    contexts = DELIVERY if "UK" not in answer else [DELIVERY[0].replace("in Leeds", "in the United Kingdom")]
    support = scorer.support(answer, contexts).sentences[0]
    assert support.swapped_name is swapped
    if swapped:
        assert support.probability < 0.5
        assert "names replaced" in support.explain()
    else:
        assert support.probability >= 0.5


def test_number_that_counts_something_else_in_the_contexts_is_unsupported(scorer: LocalScorer) -> None:
    # 4 occurs in the leaflet, but only as a number of tablets; "every 4 hours" is not backed.
    leaflet = ["Adults should take one tablet every 6 hours. Do not take more than 4 tablets in 24 hours."]
    wrong = scorer.support("Adults should take one tablet every 4 hours.", leaflet).sentences[0]
    right = scorer.support("Take one tablet every 6 hours.", leaflet).sentences[0]
    assert wrong.unsupported_numbers == ("4",)
    assert right.unsupported_numbers == ()
    assert wrong.probability < 0.5 < right.probability
    # A changed unit is caught too, while a following word the contexts use but never count is not.
    travel = [
        "Flight LX 318 departs from Gate B12 at 14:35. Each passenger may bring one cabin bag of up to 8 kg."
    ]
    assert (
        scorer.support("You may bring one cabin bag of up to 8 pounds.", travel)
        .sentences[0]
        .unsupported_numbers
    )
    assert not scorer.support("At 14:35, flight LX 318 departs.", travel).sentences[0].unsupported_numbers
