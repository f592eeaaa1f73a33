"""Contexts cut into candidate spans once per call, so many answer sentences can be aligned to them.

Every run of one to ``MAX_WINDOW`` consecutive sentences of one context is a candidate span. The
index also keeps the contexts' vocabulary, numbers and what each number counts, and the vectors the
alignment compares with. The edit detectors (:mod:`.negation`, :mod:`.comparisons`, :mod:`.names`)
all ask the same question of a span: is the answer sentence a near copy of it (``NEAR_COPY``)?
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..scoring.text import stem
from .embedder import FloatArray

MAX_WINDOW = 3
"""Longest run of consecutive context sentences treated as one candidate span."""

NEAR_COPY = 0.8
"""Share of a sentence's other content words a span must hold for the sentence to be a near copy of it."""


def stem_all(tokens: Sequence[str]) -> list[str]:
    return [stem(t) for t in tokens]


@dataclass(frozen=True)
class Span:
    """One candidate span: a run of consecutive sentences of one context, tokenised and stemmed."""

    context_index: int
    text: str
    tokens: tuple[str, ...]
    content: frozenset[str]  # stemmed content words
    bigrams: frozenset[tuple[str, ...]]
    has_negation: bool
    width: int
    core: frozenset[str]  # stemmed content words apart from negations
    states_negation: bool  # negated, idioms such as "not only" aside (see states_negation)


@dataclass(frozen=True)
class ContextIndex:
    """Contexts split, tokenised and embedded once, for scoring many sentences against them."""

    spans: tuple[Span, ...]
    span_vectors: FloatArray  # (n_spans, dim), unit norm
    single_sentence: npt.NDArray[np.bool_]  # which spans are one sentence wide
    sentence_count: int
    content: frozenset[str]
    bigrams: frozenset[tuple[str, ...]]
    tokens: frozenset[str]
    numbers: frozenset[str]
    number_units: frozenset[tuple[str, str]]  # (number, word it counts), see numbers.numbers_with_units
    units: frozenset[str]  # every word some number counts in the contexts
    vocabulary: tuple[str, ...]  # unstemmed content words, for soft matching
    vocabulary_vectors: FloatArray
    pooled_vector: FloatArray  # all contexts together

    @property
    def empty(self) -> bool:
        """True when the contexts contain no words at all."""
        return not self.spans
