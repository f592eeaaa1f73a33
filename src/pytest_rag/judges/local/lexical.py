"""The contexts' sentences as a lexical index: which sentences hold which words.

This is the judge's first stage. Tokenising and stemming a megabyte of contexts is cheap (each
distinct word is stemmed once), and an inverted index from stemmed content word to sentences lets
an answer sentence find the few context sentences worth embedding and comparing, so the rest of
the work grows with the answer, not the corpus.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

from ...scoring.text import STOPWORDS, split_sentences, stem, tokenize
from .numbers import is_number, number_set, number_value

cached_stem = lru_cache(maxsize=1 << 16)(stem)
"""``scoring.text.stem``, remembered per word: a corpus repeats its words many times over."""


class SentenceTable:
    """Every context sentence, tokenised and stemmed, with a content-word index over them."""

    def __init__(self, contexts: Sequence[str]) -> None:
        self.texts: list[str] = []
        self.context_of: list[int] = []
        for ci, context in enumerate(contexts):
            for sentence in split_sentences(context):
                self.texts.append(sentence)
                self.context_of.append(ci)
        self.tokens: list[list[str]] = [tokenize(s) for s in self.texts]
        self.counts: Counter[str] = Counter(chain.from_iterable(self.tokens))
        stem_of = {t: cached_stem(t) for t in self.counts}
        self.stems: list[list[str]] = [[stem_of[t] for t in tokens] for tokens in self.tokens]
        self._postings: dict[str, list[int]] = {}
        self._numbers: dict[str, list[int]] = {}
        content = {t for t in self.counts if t not in STOPWORDS}
        numbers = {t: number_value(t) for t in content if is_number(t)}
        number_tokens = numbers.keys()
        for i, tokens in enumerate(self.tokens):  # ascending, so every postings list is sorted
            distinct = set(tokens)
            for token in distinct & content:
                self._postings.setdefault(stem_of[token], []).append(i)
            if number_tokens:
                for token in distinct & number_tokens:
                    self._numbers.setdefault(numbers[token], []).append(i)

    def number_forms(self) -> frozenset[str]:
        """Every number of the contexts normalised ("1,000" -> "1000", "five" -> "5"), with the
        other words as they are: ``numbers.number_set`` of the whole corpus's words."""
        return frozenset(number_set(list(self.counts)))

    def with_stem(self, stemmed: str) -> list[int]:
        """The sentences holding a content word with this stem, in order."""
        return self._postings.get(stemmed, [])

    def numbers(self) -> list[str]:
        """Every (normalised) number the sentences hold."""
        return list(self._numbers)

    def with_number(self, number: str) -> list[int]:
        """The sentences holding this (normalised) number, in order."""
        return self._numbers.get(number, [])

    def rank(self, stems: set[str], limit: int) -> list[int]:
        """The ``limit`` sentences sharing the most of ``stems``, rarer words counting more (a
        word found in few sentences says more about where a claim comes from); ties go to the
        earlier sentence. Sentences sharing nothing are never candidates."""
        scores: dict[int, float] = {}
        for s in stems:
            ids = self._postings.get(s)
            if not ids:
                continue
            weight = 1.0 + 1.0 / len(ids)
            for i in ids:
                scores[i] = scores.get(i, 0.0) + weight
        best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
        return [i for i, _ in best]
