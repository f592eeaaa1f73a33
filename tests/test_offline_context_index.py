"""The offline judge's lexical first stage: large contexts are searched, not scanned, with the same verdicts."""

from __future__ import annotations

import numpy as np

from pytest_rag.judges.local.context_index import CANDIDATE_SENTENCES, FULL_SCAN_SENTENCES, ContextIndex
from pytest_rag.judges.local.lexical import SentenceTable
from pytest_rag.judges.local.scorer import LocalScorer

FACTS = [
    "The Marlow ferry leaves the north pier every 40 minutes between May and September.",
    "Bicycles travel free on the Marlow ferry, but dogs need a 3 euro ticket.",
]


def filler(count: int) -> list[str]:
    """Passages about other things, different enough from each other that the index has a spread."""
    topics = ["orchard", "glacier", "violin", "satellite", "bakery", "marathon", "lighthouse", "quarry"]
    return [
        f"In {1900 + i} the {topics[i % 8]} committee of district {i} reviewed {i + 2} reports on "
        f"{topics[(i * 3 + 1) % 8]} maintenance and published a summary for the region."
        for i in range(count)
    ]


def large_contexts() -> list[str]:
    passages = filler(300)
    passages.insert(170, " ".join(FACTS))
    return passages


def test_large_context_is_searched_and_small_one_scanned(scorer: LocalScorer) -> None:
    small = ContextIndex(scorer.embedder, [" ".join(FACTS)])
    large = ContextIndex(scorer.embedder, large_contexts())
    assert small.full_scan and not large.full_scan
    assert large.sentence_count > FULL_SCAN_SENTENCES
    # Only the spans around the best-matching sentences are built for one answer sentence.
    found = large.candidates(["marlow", "ferry", "north", "pier"])
    assert 0 < len(found.spans) <= CANDIDATE_SENTENCES * 5
    assert any("north pier" in span.text for span in found.spans)


def test_large_context_keeps_the_match_and_the_edits(scorer: LocalScorer) -> None:
    contexts = large_contexts()
    right = scorer.support("The Marlow ferry leaves the north pier every 40 minutes.", contexts)
    wrong = scorer.support("The Marlow ferry leaves the north pier every 25 minutes.", contexts)
    counted = scorer.support("Dogs travel on the Marlow ferry with a 3 minute ticket.", contexts)
    assert "north pier" in right.sentences[0].span
    assert right.sentences[0].context_index == 170
    assert right.sentences[0].probability > 0.5
    assert wrong.sentences[0].unsupported_numbers == ("25",)
    assert wrong.sentences[0].probability <= 0.2
    # 3 is in the contexts, but it counts euros there, not minutes: found through the number's postings.
    assert counted.sentences[0].unsupported_numbers == ("3",)


def test_sentence_sharing_no_word_with_a_large_context_has_no_span(scorer: LocalScorer) -> None:
    report = scorer.support("Penguins huddle together for warmth.", large_contexts())
    assert report.sentences[0].context_index is None
    assert report.sentences[0].probability < 0.5


def test_pooled_vector_of_a_large_context_matches_the_exact_average(scorer: LocalScorer) -> None:
    contexts = large_contexts()
    index = ContextIndex(scorer.embedder, contexts)
    sums = scorer.embedder.token_sums(index.table.texts).sums.sum(axis=0)
    exact = sums / np.linalg.norm(sums)
    assert float(index.pooled_vector @ exact) > 0.9


def test_rank_prefers_sentences_sharing_more_and_rarer_words() -> None:
    table = SentenceTable(["Red apples grow here. Green apples grow on old trees here. Pears grow."])
    assert table.rank({"appl", "green", "tre"}, 2) == [1, 0]
    assert table.rank({"banana"}, 5) == []
    assert table.with_number("3") == []


def test_counted_numbers_are_read_the_same_in_both_modes(scorer: LocalScorer) -> None:
    for contexts in ([" ".join(FACTS)], large_contexts()):
        index = ContextIndex(scorer.embedder, contexts)
        assert "euro" in index.counted_with("3")
        assert index.counts_anything_as("minut")
        assert not index.counts_anything_as("pier")
        assert np.isclose(float(np.linalg.norm(index.pooled_vector)), 1.0, atol=1e-4)
