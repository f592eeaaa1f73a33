"""Aligning answer sentences (or their claims) to the contexts: the evidence behind every verdict.

The contexts are indexed once per call (:func:`index_contexts`, spans as in :mod:`.spans`). The
candidate spans of a sentence are ranked by lexical precision plus embedding similarity, narrower
spans preferred (:func:`rank_spans`). The best span is read together with up to two more single
sentences that hold words of the sentence it lacks (:func:`.spans.join_spans`), so a claim whose
facts stand in two places is compared with both. The sentence is described by the numbers of
``ALIGNMENT_FEATURES``: how much of its wording that premise and the contexts hold, how close its
meaning is, whether its numbers (:mod:`.numbers`), names (:mod:`.names`) and negations
(:mod:`.negation`) are backed, and whether it reads as conversation (:mod:`.register`); the
learned entailment probability over its top spans completes ``SENTENCE_FEATURES``
(:func:`attach_entailment`, one batch per check). The explanation (best span, unbacked numbers and
names, the edit found) comes out of the same pass, so a verdict can say why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ...scoring.text import (
    NEGATION_WORDS,
    content_words,
    lcs_length,
    ngrams,
    numbers_in,
    stem,
    tokenize,
)
from .claims import sentence_claims
from .comparisons import comparisons_in, is_comparison_flip
from .conditions import dropped_condition
from .context_index import ContextIndex, shared_index
from .conversational_register import register_features
from .durations import read_durations
from .embedder import FloatArray, StaticEmbedder
from .entailment import EntailmentModel
from .features import ALIGNMENT_FEATURES, entailment_log_odds, share
from .lexical import cached_stem
from .money import amounts, money_words_backed, other_currency
from .names import is_name_swap, is_role_swap, names_in
from .negation import is_negation_flip
from .normalise import name_is_backed
from .numbers import miscounted_numbers, unbacked_numbers
from .rounding import rounded_numbers_backed, rounding_words
from .shares import share_positions, shares, shares_backed
from .slots import noun_swap
from .spans import JOINED_SPANS, SHORT_CLAIM_WORDS, Candidates, Span, join_spans, stem_all
from .unbacked import (
    absent_words,
    added_content,
    claim_words,
    restated_span,
    unbacked_words,
    widened_scope,
)


def index_contexts(embedder: StaticEmbedder, contexts: Sequence[str]) -> ContextIndex:
    """Split every context into sentences and index them for alignment (see :mod:`.context_index`)."""
    return shared_index(embedder, contexts)


@dataclass(frozen=True)
class SentenceEvidence:
    """What the judge measured for one answer sentence, and what it matched it to."""

    sentence: str
    features: tuple[float, ...]  # ALIGNMENT_FEATURES; SENTENCE_FEATURES once with_entailment adds its own
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
    dropped_condition: str = ""  # a condition of the restated span the sentence leaves out (see .conditions)
    premises: tuple[str, ...] = ()  # the top spans, and the joined premise: what the entailment model reads
    hedged: bool = False  # the claim is stated as uncertain (see .claims)

    def with_entailment(self, probability: float) -> SentenceEvidence:
        """The evidence with the learned entailment probability of its best premise appended, so
        that ``features`` lines up with ``SENTENCE_FEATURES``."""
        if len(self.features) != len(ALIGNMENT_FEATURES):
            raise ValueError("the entailment feature is already attached to this evidence")
        return replace(self, features=(*self.features, entailment_log_odds(probability)))


def attach_entailment(model: EntailmentModel, evidence: Sequence[SentenceEvidence]) -> list[SentenceEvidence]:
    """Every sentence's evidence completed with its best P(entailed) over its premises, all pairs
    of the check read by the model in one batch (a sentence without premises gets 0)."""
    pairs = [(premise, e.sentence) for e in evidence for premise in e.premises]
    probabilities = model.probabilities(pairs) if pairs else np.zeros(0, dtype=np.float32)
    out: list[SentenceEvidence] = []
    start = 0
    for e in evidence:
        stop = start + len(e.premises)
        best = float(probabilities[start:stop].max()) if stop > start else 0.0
        out.append(e.with_entailment(best))
        start = stop
    return out


@dataclass(frozen=True)
class UnitEvidence:
    """One answer unit aligned: the sentence read whole, and each claim it makes (the whole alone
    when it makes one claim)."""

    whole: SentenceEvidence
    claims: tuple[SentenceEvidence, ...]

    def marked(self, *, wrong_slot: bool = False, negation_flip: bool = False) -> UnitEvidence:
        """The same evidence with these check flags raised on the whole and on every claim."""

        def mark(e: SentenceEvidence) -> SentenceEvidence:
            return replace(
                e, wrong_slot=e.wrong_slot or wrong_slot, negation_flip=e.negation_flip or negation_flip
            )

        return UnitEvidence(mark(self.whole), tuple(mark(c) for c in self.claims))


def claims_evidence(
    embedder: StaticEmbedder, index: ContextIndex, model: EntailmentModel, units: Sequence[str]
) -> list[UnitEvidence]:
    """Per answer unit, the evidence of the sentence and of each claim it makes
    (:func:`.claims.sentence_claims`), entailment attached: every text embedded in one call and
    every premise pair read in one batch. The whole of a sentence cut into claims is never
    treated as hedged: its plain claims must carry it."""
    claims = [sentence_claims(u) for u in units]
    texts: list[tuple[str, bool]] = []
    for unit, made in zip(units, claims, strict=True):
        if len(made) > 1:
            texts.append((unit, False))
        texts.extend((c.text, c.hedged) for c in made)
    vectors = embedder.embed([t for t, _ in texts])
    found = [
        replace(sentence_evidence(embedder, index, t, vectors[i]), hedged=hedged)
        for i, (t, hedged) in enumerate(texts)
    ]
    found = attach_entailment(model, found)
    grouped: list[UnitEvidence] = []
    start = 0
    for made in claims:
        if len(made) > 1:
            grouped.append(UnitEvidence(found[start], tuple(found[start + 1 : start + 1 + len(made)])))
            start += 1 + len(made)
        else:
            grouped.append(UnitEvidence(found[start], (found[start],)))
            start += 1
    return grouped


def rank_spans(
    candidates: Candidates, stems: Sequence[str], vector: FloatArray
) -> tuple[npt.NDArray[np.int64], FloatArray, npt.NDArray[np.float64]]:
    """The candidate spans best first, and each span's cosine and lexical precision: a span ranks
    by the share of the sentence's content words it holds plus its cosine, and wider windows
    rank lower (0.03 a sentence), so they only win when they add."""
    cosines: FloatArray = candidates.vectors @ vector
    stem_set = set(stems)
    lexical = np.array(
        [len(stem_set & s.content) / len(stem_set) if stem_set else 0.0 for s in candidates.spans]
    )
    widths = np.array([s.width for s in candidates.spans], dtype=np.float64)
    choice = lexical + cosines - 0.03 * (widths - 1)
    order: npt.NDArray[np.int64] = np.argsort(-choice, kind="stable")
    return order, cosines, lexical


def top_spans(embedder: StaticEmbedder, index: ContextIndex, sentence: str, k: int) -> list[str]:
    """The texts of the ``k`` candidate spans the alignment ranks highest for ``sentence``."""
    stems = stem_all(content_words(tokenize(sentence)))
    candidates = index.candidates(stems)
    if not candidates.spans:
        return []
    order, _, _ = rank_spans(candidates, stems, embedder.embed([sentence])[0])
    return [candidates.spans[int(i)].text for i in order[:k]]


def _covering(candidates: Candidates, order: npt.NDArray[np.int64], stems: set[str]) -> list[int]:
    """The best span, then (in rank order) up to ``JOINED_SPANS - 1`` single sentences outside it
    that each hold content words of the sentence the spans chosen so far lack."""
    first = int(order[0])
    chosen = [first]
    covered = stems & candidates.spans[first].content
    for i in order[1:]:
        if len(chosen) == JOINED_SPANS or covered >= stems:
            break
        span: Span = candidates.spans[int(i)]
        if span.width != 1 or any(span.text in candidates.spans[c].text for c in chosen):
            continue
        gain = (stems & span.content) - covered
        if gain:
            chosen.append(int(i))
            covered |= gain
    return chosen


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
    numbers_nearby = index.numbers_near(stems)
    rounded = rounded_numbers_backed(tokens, numbers_nearby, index)
    times = read_durations(tokens, numbers_nearby, index.counted_with)
    converted = times.backed
    stated_shares = shares(sentence)
    shared = (
        share_positions(tokens, shares_backed(stated_shares, index.shares_for(stated_shares)))
        if stated_shares
        else set()
    )
    unbacked_digits, unbacked_spelled = unbacked_numbers(
        tokens, numbers_nearby, index.clock_times, index.tokens, rounded | converted | shared
    )
    money = amounts(sentence)
    stated_money = index.amounts_for({a.number for a in money}) if money else []
    fitted_numbers = tuple(
        dict.fromkeys(
            [
                *unbacked_digits,
                *miscounted_numbers(embedder, tokens, index),
                *times.changed,
                *other_currency(money, stated_money),
            ]
        )
    )
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
    # A name the contexts give in another form ("Germany" for "German-born", "Austria" for
    # "Austrian") is found, for the word-overlap features as for the name check; so is a rounded
    # number the contexts bear out, with the words that round it ("about 300" for 288), and a
    # currency written as a word where the contexts write it as a symbol ("18 euros" for "€18").
    qualifiers = (
        rounding_words(tokens, rounded)
        | {tokens[k + 1] for k in converted}
        | {tokens[k] for k in shared}
        | money_words_backed(money, stated_money)
    )
    found = (
        index.content
        | {cached_stem(t) for n in names if n not in unsupported_names for t in tokenize(n)}
        | {cached_stem(t) for t in (*(tokens[k] for k in rounded | converted), *qualifiers)}
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
            share(stems, found),
            index.bigram_share(bigrams, candidates) if bigrams else share(stems, found),
            0.0, 0.0, 0.0, 0.0, 0.0,
            float(index.pooled_vector @ vector),
            _soft_precision(embedder, words, index, found),
            len(fitted_numbers) / len(set(numbers)) if numbers else 0.0,
            len(unsupported_names) / len(set(names)) if names else 0.0,
            0.0,
            math.log1p(sum(1 for s in stems if s not in found)),
            math.log1p(len(words)),
            *register,
        )  # fmt: skip
        return SentenceEvidence(sentence, features, None, "", unsupported_numbers, unsupported_names, False)
    order, cosines, lexical = rank_spans(candidates, stems, vector)
    chosen = _covering(candidates, order, set(stems))
    span = join_spans([candidates.spans[i] for i in chosen])
    joined_vector = candidates.vectors[chosen].sum(axis=0)
    span_cosine = float(joined_vector @ vector) / max(float(np.linalg.norm(joined_vector)), 1e-12)
    premises = [candidates.spans[int(i)].text for i in order[:JOINED_SPANS]]
    if len(chosen) > 1:
        premises.append(span.text)

    span_bigrams = span.bigrams
    negation_mismatch = has_negation != span.has_negation
    # Only spans holding at least half the sentence's words can be near copies; the negation and
    # comparison checks compare single sentences, the name check any span (a name swap may merge
    # a subject from one sentence with a fact from the next).
    half = [s for s, share in zip(candidates.spans, lexical, strict=True) if share >= 0.5]
    near = [s for s in half if s.width == 1]
    if len(chosen) > 1:
        half.append(span)  # spans read together are a span too: a name swapped into them is a swap
    negation_flip = is_negation_flip(sentence, near)
    comparison_flip = is_comparison_flip(words, comparisons_in(tokens), near)
    single = [s for s, one in zip(candidates.spans, candidates.single_sentence, strict=True) if one]
    swapped_name = is_name_swap(tokens, sentence, unsupported_names, half) or is_role_swap(
        sentence, unsupported_names, single, index.table
    )
    swapped_words: tuple[str, ...] = ()
    added_words: tuple[str, ...] = ()
    dropped = ""
    claimed = [w for w in claim_words(words) if w not in qualifiers]
    absent = absent_words(claimed, index)
    if len(set(claimed) - set(absent)) <= SHORT_CLAIM_WORDS:
        swapped_words = noun_swap(embedder, tokens, claimed, absent, half) or ()
        unbacked = unbacked_words(embedder, absent, index) if absent else []
        restated = restated_span(claimed, unbacked, half)
        if restated is not None:
            added_words = tuple(added_content(tokens, unbacked) + widened_scope(tokens, restated))
            dropped = dropped_condition(tokens, restated.text)
    features = (
        share(stems, found),
        index.bigram_share(bigrams, candidates) if bigrams else share(stems, found),
        share(stems, span.content | (found - index.content)),
        share(bigrams, span_bigrams) if bigrams else share(stems, span.content | (found - index.content)),
        lcs_length(stem_all(tokens), stem_all(span.tokens)) / len(tokens),
        span_cosine,
        float(cosines[candidates.single_sentence].max()),
        float(index.pooled_vector @ vector),
        _soft_precision(embedder, words, index, found),
        len(fitted_numbers) / len(set(numbers)) if numbers else 0.0,
        len(unsupported_names) / len(set(names)) if names else 0.0,
        1.0 if negation_mismatch else 0.0,
        math.log1p(sum(1 for s in stems if s not in found)),
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
        dropped_condition=dropped,
        premises=tuple(dict.fromkeys(premises)),
    )
