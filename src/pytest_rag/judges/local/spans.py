"""Candidate spans of the contexts, and what every edit detector asks of them.

Every run of one to ``MAX_WINDOW`` consecutive sentences of one context is a candidate span
(:class:`.context_index.ContextIndex` builds them). The edit detectors (:mod:`.negation`,
:mod:`.comparisons`, :mod:`.names`, :mod:`.slots`) all ask the same question of a span: is the answer
sentence a near copy of it (``NEAR_COPY``)? Several judge only a short claim (``SHORT_CLAIM_WORDS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .embedder import FloatArray
from .lexical import cached_stem

MAX_WINDOW = 3
"""Longest run of consecutive context sentences treated as one candidate span."""

NEAR_COPY = 0.8
"""Share of a sentence's other content words a span must hold for the sentence to be a near copy of it."""

SHORT_CLAIM_WORDS = 10
"""Most distinct content words the contexts hold (the restated part: added words do not count,
so adding more cannot escape the check) of a sentence the added-content, negation and noun-swap
checks judge. A support-bot answer's sentence has fewer; the labelled long-form answers' sentences mostly more,
and there annotators accept added connecting words and one-word paraphrases that the word vectors
rate far apart ("reviews" for "criticism"). Judging every length moved LFQA sentence-level
balanced accuracy from 0.865 to 0.831, beyond its interval; a limit of 10 to 0.844, of 8 to 0.852,
but 8 lets a one-word claim in a longer sentence pass ("are waterproof and offer up to 30 hours
of battery life"), which is the class this check is for (docs/offline-judge.md)."""


def stem_all(tokens: Sequence[str]) -> list[str]:
    return [cached_stem(t) for t in tokens]


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
class Candidates:
    """The spans an answer sentence is compared with, and their unit vectors."""

    spans: tuple[Span, ...]
    vectors: FloatArray  # (n_spans, dim), unit norm
    single_sentence: npt.NDArray[np.bool_]  # which spans are one sentence wide


JOINED_SPANS = 3
"""Most candidate spans read together as one premise for a claim whose facts stand in several places."""


def join_spans(spans: Sequence[Span]) -> Span:
    """Several spans read as one premise (the first one's context names it): their words, bigrams
    and negations pooled. A claim may take its subject from one sentence and its date from another
    passage; against the spans joined it is judged as a reader who has both in view would judge it."""
    if len(spans) == 1:
        return spans[0]
    return Span(
        context_index=spans[0].context_index,
        text=" … ".join(s.text for s in spans),
        tokens=tuple(t for s in spans for t in s.tokens),
        content=frozenset().union(*(s.content for s in spans)),
        bigrams=frozenset().union(*(s.bigrams for s in spans)),
        has_negation=any(s.has_negation for s in spans),
        width=sum(s.width for s in spans),
        core=frozenset().union(*(s.core for s in spans)),
        states_negation=any(s.states_negation for s in spans),
    )
