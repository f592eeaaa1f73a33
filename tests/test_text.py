"""Behaviour of the shared text primitives (tokens, sentences, n-grams, ROUGE)."""

from __future__ import annotations

import pytest

from pytest_rag.scoring.text import (
    RougeScore,
    content_words,
    ngrams,
    normalize_number,
    numbers_in,
    rouge_l,
    rouge_n,
    split_sentences,
    stem,
    tokenize,
)


def test_tokenize_keeps_numbers_and_contractions_whole() -> None:
    assert tokenize("It cost $1,000.50 — don't panic!") == [
        "it",
        "cost",
        "1,000.50",
        "don't",
        "panic",
    ]


def test_split_sentences_respects_abbreviations_initials_and_lines() -> None:
    text = "Dr. Smith met J. K. Rowling in the U.S. today. She left.\n- a list item\nLast line"
    assert split_sentences(text) == [
        "Dr. Smith met J. K. Rowling in the U.S. today.",
        "She left.",
        "a list item",
        "Last line",
    ]


def test_split_sentences_handles_lowercase_text_and_empty_input() -> None:
    assert split_sentences("it was square. in 2015 it changed.") == [
        "it was square.",
        "in 2015 it changed.",
    ]
    assert split_sentences("") == []
    assert split_sentences("  ...  \n\n") == []


def test_content_words_drop_function_words_but_keep_negation() -> None:
    words = content_words("The tower was not built in 1889")
    assert "the" not in words and "was" not in words
    assert {"tower", "not", "built", "1889"} <= set(words)


def test_stem_merges_inflections() -> None:
    assert stem("cars") == stem("car")
    assert stem("based") == stem("base") == stem("basing")
    assert stem("running") == stem("run")
    assert stem("class") == "class"


def test_stem_reads_irregular_past_forms_as_their_verb() -> None:
    assert stem("led") == stem("leads") == stem("leading")
    assert stem("sold") == stem("sells") and stem("written") == stem("writes") == stem("wrote")
    assert stem("held") == stem("holds") and stem("paid") == stem("pays")
    # forms that are other common words stay themselves
    assert stem("left") != stem("leave") and stem("found") != stem("find")


def test_numbers_are_normalised() -> None:
    assert normalize_number("1,000") == "1000"
    assert normalize_number("two") == "2"
    assert numbers_in(tokenize("In 1,000 years and 3.5 days")) == ["1000", "3.5"]


def test_ngrams() -> None:
    assert ngrams(["a", "b", "c"], 2) == [("a", "b"), ("b", "c")]
    assert ngrams(["a"], 2) == []
    with pytest.raises(ValueError, match="n-gram order"):
        ngrams(["a"], 0)


def test_rouge_n_precision_is_over_the_candidate() -> None:
    score = rouge_n("the cat sat", "the cat sat on the mat", 1)
    assert isinstance(score, RougeScore)
    assert score.precision == 1.0
    assert score.recall == pytest.approx(3 / 6)
    assert score.f1 == pytest.approx(2 * 0.5 / 1.5)
    swapped = rouge_n("the cat sat on the mat", "the cat sat", 1)
    assert swapped.recall == 1.0 and swapped.precision == pytest.approx(0.5)


def test_rouge_n_clips_repeated_ngrams() -> None:
    assert rouge_n("the the the", "the cat", 1).precision == pytest.approx(1 / 3)


def test_rouge_l_rewards_order() -> None:
    in_order = rouge_l("a b c d", "a b c d")
    shuffled = rouge_l("d c b a", "a b c d")
    assert in_order.f1 == 1.0
    assert shuffled.f1 < in_order.f1
    assert rouge_n("d c b a", "a b c d", 1).f1 == 1.0  # unigrams ignore order


def test_rouge_of_empty_text_is_zero_not_nan() -> None:
    for score in (rouge_n("", "abc", 2), rouge_l("abc", ""), rouge_l("", "")):
        assert score == RougeScore(0.0, 0.0, 0.0)
