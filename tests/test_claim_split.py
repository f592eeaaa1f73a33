"""How the offline judge cuts a sentence into claims and reads hedges (:mod:`.claims`), and the
learned entailment probability joined as a sentence feature; on sentences written for these tests.
The verdicts these give are tested in test_offline_claims.py."""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.alignment import claims_evidence, top_spans
from pytest_rag.judges.local.claims import is_hedged, sentence_claims, unhedged
from pytest_rag.judges.local.embedder import load_embedder
from pytest_rag.judges.local.features import SENTENCE_FEATURES, entailment_log_odds
from pytest_rag.judges.local.scorer import LocalScorer


@pytest.mark.parametrize(
    ("sentence", "claims"),
    [
        (
            # a weekday and a common-noun place are neither dates nor names: nothing to cut
            "The ferry leaves from Harwich on Tuesdays at the north pier.",
            ["The ferry leaves from Harwich on Tuesdays at the north pier."],
        ),
        (
            "Tove Halvorsen was born in Bergen on 2 April 1931.",
            ["Tove Halvorsen was born in Bergen.", "Tove Halvorsen was born on 2 April 1931."],
        ),
        (
            "Halvorsen, a glassblower, opened her first workshop in 1958.",
            ["Halvorsen opened her first workshop in 1958.", "Halvorsen is a glassblower."],
        ),
        (
            "Halvorsen, who trained in Murano, taught at the academy for twenty years.",
            ["Halvorsen taught at the academy for twenty years.", "Halvorsen trained in Murano."],
        ),
        (
            "The workshop closed in 1990 and moved its kilns to the museum.",
            ["The workshop closed in 1990.", "The workshop moved its kilns to the museum."],
        ),
        (
            "The ferry began service in 1987 and crosses the estuary twice a day.",
            ["The ferry began service in 1987.", "The ferry crosses the estuary twice a day."],
        ),
        (
            "The museum reopened in 2004, and its glass collection doubled.",
            ["The museum reopened in 2004.", "Its glass collection doubled."],
        ),
        ("Cats and dogs are welcome in the garden.", ["Cats and dogs are welcome in the garden."]),
    ],
)
def test_a_compound_sentence_is_cut_into_claims_that_keep_their_subject(
    sentence: str, claims: list[str]
) -> None:
    assert [c.text for c in sentence_claims(sentence)] == claims


def test_a_trailing_relative_clause_is_read_with_the_clause_it_comments_on() -> None:
    claims = sentence_claims("The kiln failed in 1971, which probably delayed the exhibition.")
    assert [c.text for c in claims] == [
        "The kiln failed in 1971.",
        "The kiln failed in 1971, which delayed the exhibition.",  # judged without its hedging word
    ]
    assert [c.hedged for c in claims] == [False, True]


@pytest.mark.parametrize(
    ("text", "hedged"),
    [
        ("The delay might have cost the studio its grant.", True),
        ("It is believed that the vase was made in Prague.", True),
        ("The vase is thought to be the oldest in the collection.", True),
        ("Visitors may bring cameras into the gallery.", False),  # a permission, not a hedge
        ("The gallery could seat forty people.", False),  # an ability
        ("The vase was made in Prague.", False),
    ],
)
def test_hedges_are_told_from_permissions_and_plain_statements(text: str, hedged: bool) -> None:
    assert is_hedged(text) is hedged


def test_a_hedged_statement_is_matched_without_its_hedging_words() -> None:
    assert unhedged("It is believed that the vase was made in Prague.") == "The vase was made in Prague."
    assert unhedged("The vase was possibly made in Prague.") == "The vase was made in Prague."
    (claim,) = sentence_claims("Perhaps the vase was made in Prague.")
    assert claim.text == "The vase was made in Prague." and claim.hedged


# -- the learned entailment feature ------------------------------------------------------------------

FERRY = [
    "The Marlow ferry began service in 1987.",
    "Painted green and white, the boat crosses the Ouse estuary four times a day.",
]


def test_every_claim_carries_the_entailment_probability_of_its_top_spans(scorer: LocalScorer) -> None:
    position = SENTENCE_FEATURES.index("entailment_log_odds")
    copied, swapped = claims_evidence(
        scorer.embedder,
        scorer.context_index(FERRY),
        scorer.entailment,
        ["The Marlow ferry began service in 1987.", "The Ouse estuary began service in 1987."],
    )
    assert len(copied.whole.features) == len(SENTENCE_FEATURES)
    assert copied.whole.features[position] > swapped.whole.features[position]
    assert copied.whole.premises[0] == FERRY[0]


def test_a_compound_sentence_keeps_its_whole_reading_beside_its_claims(scorer: LocalScorer) -> None:
    (found,) = claims_evidence(
        scorer.embedder,
        scorer.context_index(FERRY),
        scorer.entailment,
        ["The Marlow ferry began service in 1987 and crosses the Ouse estuary."],
    )
    assert [c.sentence for c in found.claims] == [
        "The Marlow ferry began service in 1987.",
        "The Marlow ferry crosses the Ouse estuary.",
    ]
    assert found.whole.sentence == "The Marlow ferry began service in 1987 and crosses the Ouse estuary."
    # the whole sentence needs both sentences of the context: it is read against them joined
    assert FERRY[0] in found.whole.span and FERRY[1] in found.whole.span


def test_the_entailment_feature_is_clipped_log_odds() -> None:
    assert entailment_log_odds(0.5) == pytest.approx(0.0)
    assert entailment_log_odds(1.0) == entailment_log_odds(0.999) > 4.0
    assert entailment_log_odds(0.0) == pytest.approx(-entailment_log_odds(1.0))


def test_top_spans_rank_the_span_holding_the_sentence_first(scorer: LocalScorer) -> None:
    spans = top_spans(scorer.embedder, scorer.context_index(FERRY), "The boat crosses the Ouse estuary.", 3)
    assert spans == [FERRY[1], FERRY[0]]  # two one-sentence contexts: two spans


def test_the_embedder_exposes_what_the_entailment_model_reads() -> None:
    embedder = load_embedder()
    assert embedder.token_matrix.shape[1] == embedder.dim
    assert embedder.tokenizer.encode("ferry", add_special_tokens=False).ids
