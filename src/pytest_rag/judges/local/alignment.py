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

from ...scoring.text import (
    NEGATION_WORDS,
    content_words,
    lcs_length,
    ngrams,
    numbers_in,
    stem,
    tokenize,
)
from .comparisons import comparisons_in, is_comparison_flip
from .context_index import ContextIndex, shared_index
from .conversational_register import register_features
from .embedder import FloatArray, StaticEmbedder
from .names import is_name_swap, is_role_swap, names_in
from .negation import is_negation_flip
from .normalise import name_is_backed
from .numbers import miscounted_numbers, unbacked_numbers
from .slots import noun_swap
from .spans import SHORT_CLAIM_WORDS, stem_all
from .unbacked import (
    absent_words,
    added_content,
    claim_words,
    restated_span,
    unbacked_words,
)


def index_contexts(embedder: StaticEmbedder, contexts: Sequence[str]) -> ContextIndex:
    """Split every context into sentences and index them for alignment (see :mod:`.context_index`)."""
    return shared_index(embedder, contexts)


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
    wrong_slot: bool = False  # answers the question with an entity the contexts give for something else
    swapped_words: tuple[str, ...] = ()  # (new, replaced): a near copy with another noun in one slot
    added_words: tuple[str, ...] = ()  # unbacked words added to a span the sentence otherwise restates


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

    # The model was fitted on numbers in digits: its feature counts those; a spelled-out one the
    # contexts lack ("two ports" against "four ports") is an edit all the same.
    unbacked_digits, unbacked_spelled = unbacked_numbers(tokens, index.numbers_near(stems), index.clock_times)
    fitted_numbers = tuple(dict.fromkeys([*unbacked_digits, *miscounted_numbers(embedder, tokens, index)]))
    unsupported_numbers = tuple(dict.fromkeys([*fitted_numbers, *unbacked_spelled]))
    unsupported_names = tuple(
        dict.fromkeys(
            n
            for n in names
            if not set(tokenize(n)) <= index.tokens
            and stem(n.lower()) not in index.content
            and not name_is_backed(n, tokens, index.name_forms, index.initials)
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

    candidates = index.candidates(stems)
    if not candidates.spans:
        features = (
            share(stems, index.content),
            index.bigram_share(bigrams, candidates) if bigrams else share(stems, index.content),
            0.0, 0.0, 0.0, 0.0, 0.0,
            float(index.pooled_vector @ vector),
            _soft_precision(embedder, words, index, index.content),
            len(fitted_numbers) / len(set(numbers)) if numbers else 0.0,
            len(unsupported_names) / len(set(names)) if names else 0.0,
            0.0,
            math.log1p(sum(1 for s in stems if s not in index.content)),
            math.log1p(len(words)),
            *register,
        )  # fmt: skip
        return SentenceEvidence(sentence, features, None, "", unsupported_numbers, unsupported_names, False)
    cosines = candidates.vectors @ vector
    stem_set = set(stems)
    lexical = np.array(
        [len(stem_set & s.content) / len(stem_set) if stem_set else 0.0 for s in candidates.spans]
    )
    widths = np.array([s.width for s in candidates.spans], dtype=np.float64)
    # Prefer the narrowest span that explains the sentence: wider windows only win when they add.
    choice = lexical + cosines - 0.03 * (widths - 1)
    best = int(np.argmax(choice))
    span = candidates.spans[best]

    span_bigrams = span.bigrams
    negation_mismatch = has_negation != span.has_negation
    # Only spans holding at least half the sentence's words can be near copies; the negation and
    # comparison checks compare single sentences, the name check any span (a name swap may merge
    # a subject from one sentence with a fact from the next).
    half = [s for s, share in zip(candidates.spans, lexical, strict=True) if share >= 0.5]
    near = [s for s in half if s.width == 1]
    negation_flip = is_negation_flip(sentence, near)
    comparison_flip = is_comparison_flip(words, comparisons_in(tokens), near)
    single = [s for s, one in zip(candidates.spans, candidates.single_sentence, strict=True) if one]
    swapped_name = is_name_swap(tokens, sentence, unsupported_names, half) or is_role_swap(
        sentence, unsupported_names, single, index.table
    )
    swapped_words: tuple[str, ...] = ()
    added_words: tuple[str, ...] = ()
    claimed = claim_words(words)
    absent = absent_words(claimed, index)
    if len(set(claimed) - set(absent)) <= SHORT_CLAIM_WORDS:
        swapped_words = noun_swap(embedder, tokens, claimed, absent, half) or ()
        unbacked = unbacked_words(embedder, absent, index) if absent else []
        added = added_content(tokens, unbacked)
        added_words = tuple(added) if added and restated_span(claimed, unbacked, half) else ()
    features = (
        share(stems, index.content),
        index.bigram_share(bigrams, candidates) if bigrams else share(stems, index.content),
        share(stems, span.content),
        share(bigrams, span_bigrams) if bigrams else share(stems, span.content),
        lcs_length(stem_all(tokens), stem_all(span.tokens)) / len(tokens),
        float(cosines[best]),
        float(cosines[candidates.single_sentence].max()),
        float(index.pooled_vector @ vector),
        _soft_precision(embedder, words, index, index.content),
        len(fitted_numbers) / len(set(numbers)) if numbers else 0.0,
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
        swapped_words=swapped_words,
        added_words=added_words,
    )
