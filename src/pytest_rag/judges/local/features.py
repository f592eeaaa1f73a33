"""The feature vectors the offline judge's calibrated models read, and how each is computed.

``SENTENCE_FEATURES`` describe one answer sentence or claim aligned to the contexts (computed in
:mod:`.alignment`, the last one by the learned :mod:`.entailment` model); ``ANSWER_FEATURES`` aggregate a whole answer's sentence logits; the correctness
and relevance vectors compare an answer with reference answers and a text with a query. Feature
names are stored next to the coefficients in ``calibration.json`` and checked at load time, so the
extractor and the fitted model cannot silently drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Container, Hashable, Sequence
from difflib import SequenceMatcher

import numpy as np

from ...scoring.text import STOPWORDS, content_words, numbers_in, split_sentences, stem, tokenize
from .embedder import StaticEmbedder

ALIGNMENT_FEATURES: tuple[str, ...] = (
    "content_precision_all",  # share of the sentence's content words found anywhere in C
    "bigram_precision_all",  # share of its word bigrams found anywhere in C
    "content_precision_span",  # the same two against the best span only
    "bigram_precision_span",
    "rouge_l_precision_span",  # longest common subsequence with the best span / sentence length
    "embedding_span",  # cosine with the best span
    "embedding_max_sentence",  # best cosine with any single context sentence
    "embedding_all",  # cosine with all contexts pooled
    "soft_content_precision",  # content words matched exactly or by nearest context word vector
    "unsupported_number_share",
    "unsupported_name_share",
    "negation_mismatch",
    "novel_content_words",  # log(1 + number of content words absent from C)
    "sentence_length",  # log(1 + number of content words)
    "first_person_share",  # share of tokens that are I/we forms: talk about the speaker
    "ends_with_question",  # the sentence asks rather than states
    "conversational_share",  # share of tokens that are opinion, agreement or chit-chat words
    "experience_claim",  # 1 if the speaker reports their own experience or taste ("I love", "we went")
)
"""What :mod:`.alignment` measures of one sentence (or claim) against its premise spans."""

SENTENCE_FEATURES: tuple[str, ...] = (
    *ALIGNMENT_FEATURES,
    "entailment_log_odds",  # learned P(entailed), best over the top three spans and their join; clipped log-odds
)
"""What the sentence model reads: the alignment's features and the learned entailment model's."""

ENTAILMENT_CLIP = 0.01
"""P(entailed) is read within [0.01, 0.99] (log-odds within ±4.6): the model's extreme
probabilities are no surer than that, and one confident number must not outweigh the rest."""


def entailment_log_odds(probability: float) -> float:
    """The entailment feature: clipped log-odds of P(entailed)."""
    p = min(max(probability, ENTAILMENT_CLIP), 1.0 - ENTAILMENT_CLIP)
    return math.log(p / (1.0 - p))


def share(items: Sequence[Hashable], pool: Container[Hashable]) -> float:
    """Share of ``items`` found in ``pool`` (1.0 for none: nothing is missing)."""
    if not items:
        return 1.0
    return sum(1 for x in items if x in pool) / len(items)


ANSWER_FEATURES: tuple[str, ...] = (
    "min_logit",
    "softmin_logit",
    "unsupported_share",
)


CORRECTNESS_FEATURES: tuple[str, ...] = (
    "token_f1",
    "reference_recall",
    "answer_precision",
    "exact_match",
    "reference_contained",
    "embedding_reference",
    "number_mismatch",
    "answer_length",
    "soft_reference_recall",
    "answer_contained",
    "character_similarity",
)


RELEVANCE_FEATURES: tuple[str, ...] = (
    "query_recall",
    "query_recall_idf",
    "embedding",
    "embedding_max_sentence",
    "soft_query_recall",
    "text_length",
)

_LOGIT_CLIP = 8.0


def answer_features(sentence_logits: Sequence[float]) -> tuple[float, ...]:
    """Aggregate per-sentence support logits for the answer model.

    An answer is supported only when every sentence is, so the aggregates look at the weakest
    sentences: the minimum, a soft minimum (``-log mean exp(-logit)``, which lets a second weak
    sentence count) and the share of sentences below even odds. Whole-answer overlap used to be
    part of this vector; it was dropped because the answer model is fitted mostly on one-sentence
    answers, where it duplicates the sentence evidence and then misleads on long answers.
    """
    logits = np.clip(np.asarray(sentence_logits, dtype=np.float64), -_LOGIT_CLIP, _LOGIT_CLIP)
    if logits.size == 0:
        logits = np.array([-_LOGIT_CLIP])
    softmin = -math.log(float(np.mean(np.exp(-logits))))
    return (float(logits.min()), softmin, float(np.mean(logits < 0.0)))


_ARTICLES = {"a", "an", "the"}


def _answer_tokens(text: str) -> list[str]:
    return [t for t in tokenize(text) if t not in _ARTICLES]


def _f1(candidate: Sequence[str], reference: Sequence[str]) -> tuple[float, float, float]:
    if not candidate or not reference:
        return 0.0, 0.0, 0.0
    ref_pool = list(reference)
    common = 0
    for t in candidate:
        if t in ref_pool:
            ref_pool.remove(t)
            common += 1
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(candidate), common / len(reference)
    return 2 * precision * recall / (precision + recall), recall, precision


def correctness_features(
    embedder: StaticEmbedder, question: str, answer: str, references: Sequence[str]
) -> tuple[float, ...]:
    """Closeness of an answer to its best-matching reference answer.

    Words that merely repeat the question are removed from the answer first, since an answer
    like "The capital of France is Paris" should be judged on "Paris".
    """
    question_words = {stem(t) for t in content_words(tokenize(question))}
    raw = [stem(t) for t in _answer_tokens(answer)]
    trimmed = [t for t in raw if t not in question_words] or raw
    vectors = embedder.embed([answer, *references])
    best: tuple[float, ...] = ()
    for i, reference in enumerate(references):
        ref = [stem(t) for t in _answer_tokens(reference)]
        f1, recall, precision = _f1(trimmed, ref)
        ref_joined, ans_joined = " ".join(ref), " ".join(raw)
        contained = bool(ref) and f" {ref_joined} " in f" {ans_joined} "
        ref_numbers, ans_numbers = set(numbers_in(ref)), set(numbers_in(raw))
        mismatch = bool(ref_numbers) and bool(ans_numbers) and not (ref_numbers & ans_numbers)
        ref_content = [t for t in ref if t not in STOPWORDS] or ref
        soft = _soft_recall(embedder, ref_content, trimmed)
        candidate = (
            f1,
            recall,
            precision,
            1.0 if ref and ref == raw else 0.0,
            1.0 if contained else 0.0,
            float(vectors[0] @ vectors[i + 1]),
            1.0 if mismatch else 0.0,
            math.log1p(len(raw)),
            soft,
            1.0 if trimmed and set(trimmed) <= set(ref) else 0.0,
            SequenceMatcher(None, " ".join(trimmed), ref_joined).ratio(),
        )
        if not best or candidate[0] + candidate[5] + candidate[8] > best[0] + best[5] + best[8]:
            best = candidate
    return best or (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, math.log1p(len(raw)), 0.0, 0.0, 0.0)


def _soft_recall(embedder: StaticEmbedder, wanted: Sequence[str], pool: Sequence[str]) -> float:
    """Mean over ``wanted`` words of 1 (exact) or their best cosine with a ``pool`` word."""
    if not wanted:
        return 0.0
    pool_set = set(pool)
    missing = [w for w in wanted if w not in pool_set]
    if not missing or not pool:
        return (len(wanted) - len(missing)) / len(wanted)
    sims = embedder.word_vectors(missing) @ embedder.word_vectors(list(pool_set)).T
    best = np.clip(sims.max(axis=1), 0.0, 1.0)
    return float((len(wanted) - len(missing) + best.sum()) / len(wanted))


def relevance_features(
    embedder: StaticEmbedder, query: str, text: str, idf: dict[str, float] | None = None
) -> tuple[float, ...]:
    """How well ``text`` (a passage or an answer) matches the words and meaning of ``query``."""
    query_words = [stem(t) for t in content_words(tokenize(query))]
    text_tokens = tokenize(text)
    text_words = {stem(t) for t in content_words(text_tokens)}
    weights = [(idf or {}).get(w, 1.0 + min(len(w), 10) / 5.0) for w in query_words]
    recall = share(query_words, text_words) if query_words else 0.0
    weighted = (
        sum(w for q, w in zip(query_words, weights, strict=False) if q in text_words) / sum(weights)
        if query_words
        else 0.0
    )
    sentences = split_sentences(text) or [text]
    vectors = embedder.embed([query, text, *sentences])
    return (
        recall,
        weighted,
        float(vectors[0] @ vectors[1]),
        float((vectors[2:] @ vectors[0]).max()),
        _soft_recall(embedder, query_words, sorted(text_words)),
        math.log1p(len(text_tokens)),
    )
