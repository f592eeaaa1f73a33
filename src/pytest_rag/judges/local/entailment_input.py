"""What the entailment model reads: a text as tokens with their words and the flags of each word,
and (premise, hypothesis) pairs batched into padded arrays.

Kept apart from the model (:mod:`.entailment`) because two programs read text this way: the judge
at inference and ``scripts/train_entailment.py`` at training, which imports this module so the
two can never featurise a sentence differently. Reading is most of a check's entailment cost, so
the tokens of each text are kept per process (:func:`forget_kept_tokens` drops them) and a
premise's sentences are tokenised once each (:mod:`.sentence_pieces`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_rag.judges.local.embedder import StaticEmbedder
from pytest_rag.judges.local.sentence_pieces import PieceEncoder
from pytest_rag.scoring.text import (
    NEGATION_WORDS,
    NUMBER_WORDS,
    STOPWORDS,
    has_digit,
    normalize_number,
    stem,
    tokenize,
    word_spans,
)

__all__ = [
    "MAX_HYPOTHESIS_TOKENS",
    "MAX_PREMISE_TOKENS",
    "TOKEN_FLAGS",
    "PairBatch",
    "TextTokens",
    "Tokenizer",
    "assemble_batch",
    "batch_pairs",
    "forget_kept_tokens",
    "token_flags",
]

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

MAX_PREMISE_TOKENS = 160
"""Premises are context spans of one to three sentences; tokens past this are not read."""
MAX_HYPOTHESIS_TOKENS = 64
"""Hypotheses are answer sentences or claims; tokens past this are not read."""

TOKEN_FLAGS = (
    "in_premise",  # the word occurs in the premise as written (numbers normalised)
    "stem_in_premise",  # not as written, but its stem does
    "number",  # the word carries digits or is a number word
    "number_unbacked",  # a number the premise lacks
    "negation",  # not, no, never, without, don't, ...
    "name_unbacked",  # a capitalised word (not sentence-initial) the premise lacks in any form
    "stopword",
    "mark",  # a token outside any word: punctuation or a bare word boundary
)
"""The flags each token carries beside its word vector. Premise tokens carry only the flags that
do not depend on the hypothesis (number, negation, stopword, mark), so a premise is encoded once
however many hypotheses it is compared with."""


# ---------------------------------------------------------------------------------------------
# Reading text: tokens, their words, and the flags of each word


@dataclass(frozen=True)
class TextTokens:
    """One text as the model reads it: WordLlama token ids and, per token, the word it belongs to.

    ``words`` are the text's words as :func:`~pytest_rag.scoring.text.tokenize` finds them
    (lower case, numbers normalised); ``word_of[i]`` is the index of token ``i``'s word, or -1
    for a token outside any word (punctuation, a bare word boundary). ``word_flags`` holds the
    hypothesis-independent flags of each word (number, negation, capitalised, stopword).
    """

    ids: IntArray
    word_of: IntArray
    words: tuple[str, ...]
    stems: tuple[str, ...]
    word_flags: FloatArray  # (n_words, 4): number, negation, capitalised (not initial), stopword

    @property
    def word_set(self) -> frozenset[str]:
        return frozenset(self.words)

    @property
    def stem_set(self) -> frozenset[str]:
        return frozenset(self.stems)


def _words_with_offsets(text: str) -> list[tuple[str, int, int]]:
    """Each word of ``tokenize(text)`` with its character span in ``text``."""
    # offsets must stay those of ``text``: no character lowers to none, so a lowered text of the same
    # length lowered each character to one (nearly every text), and the tokenizer's own matches
    # give the spans; else lower one at a time ("İ" gives two) and find each word
    lowered = text.lower()
    if len(lowered) == len(text):
        return word_spans(lowered.replace("’", "'"))
    lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text).replace("’", "'")
    found: list[tuple[str, int, int]] = []
    position = 0
    for word in tokenize(text):
        start = lowered.find(word, position)
        if start < 0:  # pragma: no cover - tokenize reads the same lowered text
            continue
        found.append((word, start, start + len(word)))
        position = start + len(word)
    return found


def _starts_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens the text or follows a sentence end (or a line break)."""
    position = start - 1
    while position >= 0 and text[position] in " \t\"'“‘(":
        position -= 1
    return position < 0 or text[position] in ".!?:\n"


KEPT_TEXTS = 4096
"""How many texts' tokens are kept: a check reads the same premise spans for each of its claims, and
the next check of a suite often the same contexts again. One WordLlama tokenizer per process, so the
text and the token limit are the key."""
_KEPT: dict[tuple[str, int], TextTokens] = {}
_KEPT_LOCK = threading.Lock()


def forget_kept_tokens() -> None:
    """Drop the kept tokens (benchmarks time first reads with it, as with the context indexes)."""
    with _KEPT_LOCK:
        _KEPT.clear()


class Tokenizer:
    """Turns texts into :class:`TextTokens` with WordLlama's tokenizer (the embedder's own)."""

    def __init__(self, tokenizer: Any, vocabulary_size: int) -> None:
        self._tokenizer = tokenizer
        self._vocabulary_size = vocabulary_size
        self._pieces: PieceEncoder | None = None

    @classmethod
    def of(cls, embedder: StaticEmbedder) -> Tokenizer:
        """The tokenizer of the process's embedder (no second copy of WordLlama is loaded)."""
        return cls(embedder.tokenizer, embedder.token_matrix.shape[0])

    def read(self, texts: Sequence[str], limit: int) -> list[TextTokens]:
        """Tokens of each text, cut after ``limit`` tokens."""
        if not texts:
            return []
        with _KEPT_LOCK:
            found = {text: kept for text in texts if (kept := _KEPT.get((text, limit))) is not None}
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            if self._pieces is None:
                self._pieces = PieceEncoder(self._tokenizer)
            read = dict(
                zip(missing, self._read_many(missing, self._pieces.encode(missing), limit), strict=True)
            )
            found.update(read)
            with _KEPT_LOCK:
                if len(_KEPT) + len(read) > KEPT_TEXTS:
                    _KEPT.clear()
                _KEPT.update(((text, limit), tokens) for text, tokens in read.items())
        return [found[text] for text in texts]

    def _read_many(
        self, texts: Sequence[str], encoded: Sequence[tuple[IntArray, IntArray]], limit: int
    ) -> list[TextTokens]:
        """:class:`TextTokens` of each text from its token ids and offsets. The texts are read as one: their
        tokens and words laid end to end (character places shifted by the texts before), so each
        array step runs once per call rather than once per text; a text's arrays are its slices."""
        words = [_words_with_offsets(text) for text in texts]
        word_counts = np.array([len(w) for w in words], dtype=np.int64)
        first_word = np.cumsum(word_counts) - word_counts
        shift = np.cumsum([0] + [len(text) for text in texts[:-1]], dtype=np.int64)
        every_word = list(chain.from_iterable(words))
        bounds = np.array([(start, end) for _, start, end in every_word], dtype=np.int64).reshape(-1, 2)
        bounds += np.repeat(shift, word_counts)[:, None]

        token_counts = [len(ids) for ids, _ in encoded]
        ids = np.concatenate([ids for ids, _ in encoded])
        offsets = np.concatenate([offsets for _, offsets in encoded])
        text_of = np.repeat(np.arange(len(texts)), token_counts)
        # a text keeps its first ``limit`` tokens of the vocabulary
        known = (ids >= 0) & (ids < self._vocabulary_size)
        seen = np.cumsum(known)
        before = np.concatenate([[0], seen])[np.cumsum(token_counts) - token_counts]
        kept = known & (seen - np.repeat(before, token_counts) <= limit)
        ids, offsets, text_of = ids[kept], offsets[kept], text_of[kept]
        starts, ends = offsets.T
        # a token's last character names its word (its first may be the space before the word)
        last = np.maximum(ends - 1, 0) + shift[text_of]
        word = np.searchsorted(bounds[:, 0], last, side="right") - 1
        inside = (word >= first_word[text_of]) & (ends > starts)
        inside[inside] = last[inside] < bounds[word[inside], 1]
        word_of = np.where(inside, word - first_word[text_of], -1).astype(np.int64)

        facts = [_word_facts(w) for w, _, _ in every_word]
        flags = np.array([row for _, _, row in facts], dtype=np.float32).reshape(len(every_word), 4)
        # a capital counts only off a sentence's start: look back only for a capital
        flags[:, 2] = [
            text[start].isupper() and not _starts_sentence(text, start)
            for text, text_words in zip(texts, words, strict=True)
            for _, start, _ in text_words
        ]
        for array in (ids, word_of, flags):  # kept and shared between checks: never written
            array.flags.writeable = False
        token_stops = np.cumsum(np.bincount(text_of, minlength=len(texts)))
        word_stops = np.cumsum(word_counts)
        out = []
        for k in range(len(texts)):
            token_start = int(token_stops[k - 1]) if k else 0
            word_start, word_stop = int(first_word[k]), int(word_stops[k])
            keys = tuple(key for key, _, _ in facts[word_start:word_stop])
            out.append(
                TextTokens(
                    ids[token_start : token_stops[k]],
                    word_of[token_start : token_stops[k]],
                    keys,
                    tuple(stemmed for _, stemmed, _ in facts[word_start:word_stop]),
                    flags[word_start:word_stop],
                )
            )
        return out


@functools.lru_cache(maxsize=65536)
def _word_facts(word: str) -> tuple[str, str, tuple[float, float, float, float]]:
    """A word's key (numbers normalised), the key's stem, and its ``word_flags`` row (the capital
    flag, which depends on where the word stands, left down): the same wherever the word stands,
    so read once per word."""
    number = has_digit(word) or word in NUMBER_WORDS
    key = normalize_number(word) if number else word
    return key, stem(key), (float(number), float(word in NEGATION_WORDS), 0.0, float(word in STOPWORDS))


def token_flags(text: TextTokens, premise: TextTokens | None) -> FloatArray:
    """``TOKEN_FLAGS`` of every token of ``text``: compared with ``premise`` for a hypothesis,
    or ``None`` for a premise (the pair flags are then zero)."""
    n_words = len(text.words)
    per_word = np.zeros((n_words + 1, len(TOKEN_FLAGS)), dtype=np.float32)  # last row: no word
    if n_words:
        number, negation, capital, stop = text.word_flags.T
        per_word[:n_words, 2] = number
        per_word[:n_words, 4] = negation
        per_word[:n_words, 6] = stop
        if premise is not None:
            words, stems = premise.word_set, premise.stem_set
            exact = np.array([w in words for w in text.words], dtype=np.float32)
            by_stem = np.array([s in stems for s in text.stems], dtype=np.float32) * (1.0 - exact)
            per_word[:n_words, 0] = exact
            per_word[:n_words, 1] = by_stem
            per_word[:n_words, 3] = number * (1.0 - exact)
            per_word[:n_words, 5] = capital * (1.0 - exact) * (1.0 - by_stem)
    per_word[n_words, 7] = 1.0
    flags: FloatArray = per_word[text.word_of]  # word_of == -1 picks the last row
    return flags


# ---------------------------------------------------------------------------------------------
# Batching pairs into padded arrays


@dataclass(frozen=True)
class PairBatch:
    """Padded arrays for a batch of pairs; premises are stored once each and shared by index."""

    premise_ids: IntArray  # (U, Lp)
    premise_flags: FloatArray  # (U, Lp, F)
    premise_mask: FloatArray  # (U, Lp)
    hypothesis_ids: IntArray  # (B, Lh)
    hypothesis_flags: FloatArray  # (B, Lh, F)
    hypothesis_mask: FloatArray  # (B, Lh)
    premise_of: IntArray  # (B,) row of each pair's premise


def _pad(rows: Sequence[IntArray], flags: Sequence[FloatArray]) -> tuple[IntArray, FloatArray, FloatArray]:
    width = max([len(r) for r in rows] + [1])
    ids = np.zeros((len(rows), width), dtype=np.int64)
    padded = np.zeros((len(rows), width, len(TOKEN_FLAGS)), dtype=np.float32)
    mask = np.zeros((len(rows), width), dtype=np.float32)
    for row, (r, f) in enumerate(zip(rows, flags, strict=True)):
        ids[row, : len(r)] = r
        padded[row, : len(r)] = f
        mask[row, : len(r)] = 1.0
    return ids, padded, mask


def batch_pairs(tokenizer: Tokenizer, pairs: Sequence[tuple[str, str]]) -> PairBatch:
    """Read ``(premise, hypothesis)`` pairs into a :class:`PairBatch` (each distinct premise once)."""
    distinct = list(dict.fromkeys(p for p, _ in pairs))
    row_of = {p: i for i, p in enumerate(distinct)}
    premises = tokenizer.read(distinct, MAX_PREMISE_TOKENS)
    hypotheses = tokenizer.read([h for _, h in pairs], MAX_HYPOTHESIS_TOKENS)
    return assemble_batch(premises, hypotheses, np.array([row_of[p] for p, _ in pairs], dtype=np.int64))


def assemble_batch(
    premises: Sequence[TextTokens], hypotheses: Sequence[TextTokens], premise_of: IntArray
) -> PairBatch:
    """A :class:`PairBatch` of read texts: hypothesis ``i`` is compared with ``premises[premise_of[i]]``."""
    p_ids, p_flags, p_mask = _pad([t.ids for t in premises], [token_flags(t, None) for t in premises])
    h_ids, h_flags, h_mask = _pad(
        [t.ids for t in hypotheses],
        [token_flags(h, premises[row]) for h, row in zip(hypotheses, premise_of, strict=True)],
    )
    return PairBatch(p_ids, p_flags, p_mask, h_ids, h_flags, h_mask, premise_of)
