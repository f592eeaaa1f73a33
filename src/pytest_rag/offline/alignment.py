"""Aligning answer sentences to the contexts: the evidence behind every grounding verdict.

The contexts are indexed once per call (:func:`index_contexts`, spans as in :mod:`.spans`). Each
answer sentence is matched to the span that best combines lexical precision and embedding
similarity and is described by the numbers of ``SENTENCE_FEATURES``: how much of its wording the
span and the contexts hold, how close its meaning is, whether its numbers (:mod:`.numbers`), names
(:mod:`.names`) and negations (:mod:`.negation`) are backed, and whether it reads as conversation
(:mod:`.register`). The explanation (best span, unbacked numbers and names, the edit found) comes
out of the same pass, so a verdict can say why.
"""

from __future__ import annotations

import math
from collections.abc import Container, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ..scoring.text import (
    NEGATION_WORDS,
    content_words,
    lcs_length,
    ngrams,
    numbers_in,
    split_sentences,
    stem,
    tokenize,
)
from .comparisons import comparisons_in, is_comparison_flip
from .embedder import FloatArray, StaticEmbedder
from .names import is_name_swap, names_in
from .negation import is_negation_flip, states_negation
from .numbers import miscounted_numbers, number_set, numbers_with_units
from .register import register_features
from .spans import MAX_WINDOW, ContextIndex, Span, stem_all


def index_contexts(embedder: StaticEmbedder, contexts: Sequence[str]) -> ContextIndex:
    """Split every context into sentences and build the candidate spans and vocabularies."""
    sentences: list[tuple[int, str]] = []
    for ci, context in enumerate(contexts):
        sentences.extend((ci, s) for s in split_sentences(context))
    sums = embedder.token_sums([s for _, s in sentences])
    tokens = [tokenize(s) for _, s in sentences]
    spans: list[Span] = []
    vectors: list[FloatArray] = []
    start = 0
    while start < len(sentences):
        ci = sentences[start][0]
        stop = start
        while stop < len(sentences) and sentences[stop][0] == ci:
            stop += 1
        for i in range(start, stop):
            for width in range(1, MAX_WINDOW + 1):
                if i + width > stop:
                    break
                span_tokens = [t for k in range(i, i + width) for t in tokens[k]]
                spans.append(
                    Span(
                        context_index=ci,
                        text=" ".join(s for _, s in sentences[i : i + width]),
                        tokens=tuple(span_tokens),
                        content=frozenset(stem_all(content_words(span_tokens))),
                        bigrams=frozenset(ngrams(stem_all(span_tokens), 2)),
                        has_negation=any(t in NEGATION_WORDS for t in span_tokens),
                        width=width,
                        core=frozenset(
                            stem(t) for t in content_words(span_tokens) if t not in NEGATION_WORDS
                        ),
                        states_negation=states_negation(span_tokens),
                    )
                )
                vectors.append(sums.pooled(i, i + width))
        start = stop
    all_tokens = [t for ts in tokens for t in ts]
    vocabulary = tuple(dict.fromkeys(content_words(all_tokens)))
    number_units = frozenset(pair for ts in tokens for pair in numbers_with_units(ts))
    dim = embedder.dim
    return ContextIndex(
        spans=tuple(spans),
        span_vectors=np.stack(vectors) if vectors else np.zeros((0, dim), dtype=np.float32),
        single_sentence=np.array([s.width == 1 for s in spans], dtype=bool),
        sentence_count=len(sentences),
        content=frozenset(stem_all(vocabulary)),
        bigrams=frozenset(b for s in spans if s.width == 1 for b in s.bigrams),
        tokens=frozenset(all_tokens),
        numbers=frozenset(number_set(all_tokens)),
        number_units=number_units,
        units=frozenset(unit for _, unit in number_units),
        vocabulary=vocabulary,
        vocabulary_vectors=embedder.word_vectors(vocabulary),
        pooled_vector=sums.pooled(0, len(sentences)) if sentences else np.zeros(dim, dtype=np.float32),
    )


@dataclass(frozen=True)
class SentenceEvidence:
    """What the judge measured for one answer sentence, and what it matched it to."""

    sentence: str
    features: tuple[float, ...]  # aligned with SENTENCE_FEATURES
    context_index: int | None
    span: str
    unsupported_numbers: tuple[str, ...]
    unsupported_names: tuple[str, ...]
    negation_mismatch: bool
    negation_flip: bool = False  # a near copy of a context sentence with the negation reversed
    swapped_name: bool = False  # a near copy of a context sentence with one of its names replaced
    comparison_flip: bool = False  # a near copy of a context sentence with a comparison reversed


def share(items: Sequence[Hashable], pool: Container[Hashable]) -> float:
    if not items:
        return 1.0
    return sum(1 for x in items if x in pool) / len(items)


def _soft_precision(
    embedder: StaticEmbedder, words: Sequence[str], index: ContextIndex, exact: frozenset[str]
) -> float:
    """Mean over content words: 1 for an exact (stemmed) match, else the best cosine with any
    context content word (floored at 0)."""
    if not words:
        return 1.0
    missing = [w for w in words if stem(w) not in exact]
    if not missing or not index.vocabulary:
        return (len(words) - len(missing)) / len(words)
    sims = embedder.word_vectors(missing) @ index.vocabulary_vectors.T
    best = np.clip(sims.max(axis=1), 0.0, 1.0)
    return float((len(words) - len(missing) + best.sum()) / len(words))


def sentence_evidence(
    embedder: StaticEmbedder, index: ContextIndex, sentence: str, vector: FloatArray
) -> SentenceEvidence:
    """Align one answer sentence (with its unit embedding ``vector``) to the contexts."""
    tokens = tokenize(sentence)
    words = content_words(tokens)
    stems = stem_all(words)
    bigrams = ngrams(stem_all(tokens), 2)
    numbers = numbers_in(tokens)
    names = names_in(sentence)
    has_negation = any(t in NEGATION_WORDS for t in tokens)

    unsupported_numbers = tuple(
        dict.fromkeys(
            [*(n for n in numbers if n not in index.numbers), *miscounted_numbers(embedder, tokens, index)]
        )
    )
    unsupported_names = tuple(
        dict.fromkeys(
            n for n in names if not set(tokenize(n)) <= index.tokens and stem(n.lower()) not in index.content
        )
    )
    register = register_features(sentence, tokens)
    if index.empty or not tokens:
        features = (
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            1.0 if numbers else 0.0, 1.0 if names else 0.0, 0.0,
            math.log1p(len(words)), math.log1p(len(words)),
            *register,
        )  # fmt: skip
        return SentenceEvidence(sentence, features, None, "", unsupported_numbers, unsupported_names, False)

    cosines = index.span_vectors @ vector
    stem_set = set(stems)
    lexical = np.array([len(stem_set & s.content) / len(stem_set) if stem_set else 0.0 for s in index.spans])
    widths = np.array([s.width for s in index.spans], dtype=np.float64)
    # Prefer the narrowest span that explains the sentence: wider windows only win when they add.
    choice = lexical + cosines - 0.03 * (widths - 1)
    best = int(np.argmax(choice))
    span = index.spans[best]

    span_bigrams = span.bigrams
    negation_mismatch = has_negation != span.has_negation
    # Only spans holding at least half the sentence's words can be near copies; the negation and
    # comparison checks compare single sentences, the name check any span (a name swap may merge
    # a subject from one sentence with a fact from the next).
    half = [s for s, share in zip(index.spans, lexical, strict=True) if share >= 0.5]
    near = [s for s in half if s.width == 1]
    negation_flip = is_negation_flip(words, states_negation(tokens), near)
    comparison_flip = is_comparison_flip(words, comparisons_in(tokens), near)
    swapped_name = is_name_swap(tokens, sentence, unsupported_names, half)
    features = (
        share(stems, index.content),
        share(bigrams, index.bigrams) if bigrams else share(stems, index.content),
        share(stems, span.content),
        share(bigrams, span_bigrams) if bigrams else share(stems, span.content),
        lcs_length(stem_all(tokens), stem_all(span.tokens)) / len(tokens),
        float(cosines[best]),
        float(cosines[index.single_sentence].max()),
        float(index.pooled_vector @ vector),
        _soft_precision(embedder, words, index, index.content),
        len(unsupported_numbers) / len(set(numbers)) if numbers else 0.0,
        len(unsupported_names) / len(set(names)) if names else 0.0,
        1.0 if negation_mismatch else 0.0,
        math.log1p(sum(1 for s in stems if s not in index.content)),
        math.log1p(len(words)),
        *register,
    )
    return SentenceEvidence(
        sentence=sentence,
        features=features,
        context_index=span.context_index,
        span=span.text,
        unsupported_numbers=unsupported_numbers,
        unsupported_names=unsupported_names,
        negation_mismatch=negation_mismatch,
        negation_flip=negation_flip,
        swapped_name=swapped_name,
        comparison_flip=comparison_flip,
    )
