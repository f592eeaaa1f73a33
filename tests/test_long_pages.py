"""Evidence anywhere on a long page: a sentence deep in one context string of 20,000 words is found,
a contradicting one still fails, and a page's index is kept for the next check against it."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_rag.judges.local import context_index
from pytest_rag.judges.local.context_index import forget_shared_indexes, shared_index
from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.judges.local.tasks import faithfulness_single

FACT = (
    "The Halvorsen lighthouse on Skarvik island was automated in 1987, after its last keeper, "
    "Ingrid Moe, retired."
)
WORDS = {
    "subject": "council museum harbour orchestra brewery railway clinic archive quarry mill bakery ferry",
    "verb": "reviewed repaired funded moved closed expanded audited renamed painted sold inspected opened",
    "thing": "budget roof timetable collection engine garden library bridge tower warehouse canal market",
    "place": "Brenna Tovik Halden Morvik Lysaker Fjell Dovre Sandnes Rauma Vinje Odda Leirvik",
}


def page(words: int, fact_at: float) -> str:
    """One page of seeded filler sentences of about ``words`` words with ``FACT`` at ``fact_at``."""
    rng = np.random.default_rng(7)
    pools = {key: value.split() for key, value in WORDS.items()}
    sentences: list[str] = []
    while sum(len(s.split()) for s in sentences) < words:
        pick = {key: pool[int(rng.integers(len(pool)))] for key, pool in pools.items()}
        year, count = int(rng.integers(1850, 2020)), int(rng.integers(2, 90))
        sentences.append(
            f"In {year} the {pick['subject']} of {pick['place']} {pick['verb']} the {pick['thing']} "
            f"for {count} weeks."
        )
    sentences.insert(int(len(sentences) * fact_at), FACT)
    return " ".join(sentences)


@pytest.fixture(scope="module")
def long_page() -> str:
    text = page(20_000, fact_at=0.93)
    assert len(text.split()) >= 20_000
    return text


def test_a_sentence_deep_in_a_long_page_is_found(scorer: LocalScorer, long_page: str) -> None:
    answer = "The lighthouse on Skarvik island was automated in 1987."
    verdict = faithfulness_single(scorer, {"answer": answer, "contexts": [long_page]})
    assert verdict["score"] >= 4, verdict["reasoning"]
    assert "Halvorsen lighthouse" in scorer.support(answer, [long_page]).sentences[0].span


def test_a_contradicting_sentence_still_fails_on_the_long_page(scorer: LocalScorer, long_page: str) -> None:
    for wrong in (
        "The lighthouse on Skarvik island was automated in 1979.",
        "The lighthouse on Skarvik island was automated after its last keeper, Ingrid Moe, died.",
    ):
        assert faithfulness_single(scorer, {"answer": wrong, "contexts": [long_page]})["score"] < 4, wrong


def test_a_long_page_keeps_its_index_and_a_short_one_does_not(scorer: LocalScorer, long_page: str) -> None:
    forget_shared_indexes()
    first = shared_index(scorer.embedder, [long_page])
    assert shared_index(scorer.embedder, [long_page]) is first
    short = ["The ferry leaves at 09:15."]
    assert shared_index(scorer.embedder, short) is not shared_index(scorer.embedder, short)


def test_only_the_last_few_pages_are_kept(scorer: LocalScorer) -> None:
    forget_shared_indexes()
    pages = [page(2_000, fact_at=0.1 * (i + 1)) for i in range(context_index.KEPT_INDEXES + 1)]
    oldest = shared_index(scorer.embedder, [pages[0]])
    for text in pages[1:]:
        shared_index(scorer.embedder, [text])
    assert shared_index(scorer.embedder, [pages[0]]) is not oldest
    assert shared_index(scorer.embedder, [pages[-1]]) is shared_index(scorer.embedder, [pages[-1]])
