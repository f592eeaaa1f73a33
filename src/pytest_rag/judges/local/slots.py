"""A near copy of a context sentence with a different noun (or quantifier) in one of its slots.

"The museum was founded by the Dutch painter Pieter Vos" against "... by the Dutch collector Pieter
Vos" keeps every word but one, and the one it changes stands between the same words: a role, a
product, a channel ("booked by email" for "booked by phone"). :mod:`.names` catches this for
capitalised names; here it is any content word, aligned word by word with the span (``difflib``),
under three guards that keep paraphrase out:

* the new word must be absent from the contexts (:func:`.unbacked.absent_words`) and not close in
  meaning to the word it replaces (word-vector cosine below ``unbacked.SYNONYM_COSINE``), so
  "researcher" for "scientist" is no swap;
* the replaced stretch is short (at most two words each side), has the same words on both sides
  of it (the sentence's end counts as one), is not the sentence's start, and has a content word
  of the span within two words: a slot is "the head ___" or "booked by ___", not an opener such
  as "Additionally," for "However,";
* verb slots are left alone (:func:`.unbacked.is_verb_like`: a common verb, an "-ed" or "-ing"
  form, or a word after "do", "have", a modal or a subject pronoun): "leaves" for "departs",
  "is issued" for "is processed" are wording, not a new noun.

A quantifier that widens a restricted claim ("all patients" for "registered patients", "anyone
can book" for "members can book") is the same kind of edit: :func:`generalises`.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from ...scoring.text import NEGATION_WORDS, STOPWORDS
from .comparisons import negated_before
from .embedder import StaticEmbedder
from .lexical import cached_stem
from .opposites import are_opposites, opposites_of
from .spans import NEAR_COPY, Span
from .unbacked import SYNONYM_COSINE, is_adverb, is_verb_like

_QUANTIFIERS_TEXT = """
    all every any anyone anybody everyone everybody everything always each whole entire
"""
QUANTIFIERS = frozenset(_QUANTIFIERS_TEXT.split())
_MAX_STRETCH = 2  # words replaced on either side of a slot


def _anchored(stems: Sequence[str], span_stems: Sequence[str], i1: int, i2: int, j1: int, j2: int) -> bool:
    """Whether the replaced stretch sits in a slot: not at the sentence's start (where openers
    such as "Additionally," come and go), with a content word the span shares within two words
    on either side ("the head ___", "booked by ___")."""
    if i1 == 0:
        return False
    for ours, theirs in (
        (stems[max(0, i1 - 2) : i1], span_stems[max(0, j1 - 2) : j1]),
        (stems[i2 : i2 + 2], span_stems[j2 : j2 + 2]),
    ):
        if any(w in theirs and w not in STOPWORDS for w in ours):
            return True
    return False


def _abbreviates(ours: Sequence[str], theirs: Sequence[str]) -> bool:
    short = "".join(ours)
    return len(ours) == 1 and 1 < len(short) <= 4 and short == "".join(t[0] for t in theirs)


def generalises(
    tokens: Sequence[str], stems: Sequence[str], span: Span, span_stems: Sequence[str]
) -> tuple[str, str] | None:
    """(quantifier, dropped words) when the sentence puts a quantifier the span lacks ("all",
    "any") right before a word of the span whose restriction it drops (at most ``_MAX_STRETCH``
    + 1 content words, next to it): "all orders must be paid" for "orders over 50 euros must be
    paid", "anyone can book" for "registered members can book"."""
    codes = SequenceMatcher(None, list(stems), list(span_stems), autojunk=False).get_opcodes()
    for k, (tag, i1, i2, _, _) in enumerate(codes):
        at = [q for q in range(i1, i2) if tokens[q] in QUANTIFIERS] if tag in {"replace", "delete"} else []
        if not at or any(t in QUANTIFIERS for t in span.tokens):
            continue
        q = at[0]
        following = tokens[q + 1] if q + 1 < len(tokens) else ""
        if not following or following in STOPWORDS or (q and tokens[q - 1] in NEGATION_WORDS):
            continue  # "all of these", "in all", "not all": no word is widened
        dropped = [
            t
            for tag_, _, _, j1, j2 in codes[max(0, k - 1) : k + 3]
            if tag_ in {"replace", "insert"}
            for t in span.tokens[j1:j2]
            if t not in STOPWORDS or t == "only"
        ]
        if 0 < len(dropped) <= _MAX_STRETCH + 1:
            return tokens[q], " ".join(dropped)
    return None


def _slot_swap(
    embedder: StaticEmbedder,
    tokens: Sequence[str],
    stems: Sequence[str],
    span: Span,
    span_stems: Sequence[str],
    new: set[str],
) -> tuple[str, str] | None:
    """(new words, replaced words) of the first replaced stretch that is a noun swap (see the
    module docstring), or None."""
    matcher = SequenceMatcher(None, list(stems), list(span_stems), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        ours, theirs = list(tokens[i1:i2]), list(span.tokens[j1:j2])
        if tag != "replace" or len(ours) > _MAX_STRETCH or len(theirs) > _MAX_STRETCH:
            continue
        same_before = (stems[i1 - 1] if i1 else "") == (span_stems[j1 - 1] if j1 else "")
        after = stems[i2] if i2 < len(stems) else ""
        same_after = not after or after == (span_stems[j2] if j2 < len(span_stems) else "")
        if not (same_before and same_after and _anchored(stems, span_stems, i1, i2, j1, j2)):
            continue
        if any(is_verb_like(t, tokens[i1 - 1]) for t in ours) or any(
            is_verb_like(t, span.tokens[j1 - 1] if j1 else "") for t in theirs
        ):
            continue
        if any(t in NEGATION_WORDS for t in (*ours, *theirs)) or _abbreviates(ours, theirs):
            continue  # a negation change is the negation check's; "la" abbreviates "los angeles"
        replaced = [t for t in theirs if t not in STOPWORDS]
        added = [t for t in ours if t in new and not is_adverb(t)]
        if not replaced or not added:
            continue
        closeness = embedder.word_vectors(added) @ embedder.word_vectors(replaced).T
        if float(closeness.max()) < SYNONYM_COSINE:
            return " ".join(ours), " ".join(theirs)
    return None


def _opposite(
    tokens: Sequence[str], stems: Sequence[str], span: Span, words: Sequence[str], opposed: frozenset[str]
) -> tuple[str, str] | None:
    """(new word, replaced word) when the sentence restates the span (at least ``NEAR_COPY`` of
    its other content words) with one word of it turned into its opposite, within a replaced
    stretch of at most three words each side
    (:func:`.opposites.are_opposites`: "enabled" for "disabled", "yearly" for "monthly"). An
    opposite negated on one side only says the same thing twice reversed ("not open" for
    "closed", "isn't enabled" for "disabled"): no edit. ``opposed`` holds the opposites of every
    word of the sentence: a span holding none of them (as a content word, or a short word such
    as "off" that no stem changes) has nothing to align."""
    if opposed.isdisjoint(span.content) and opposed.isdisjoint(span.tokens):
        return None
    span_stems = [cached_stem(t) for t in span.tokens]
    matcher = SequenceMatcher(None, list(stems), span_stems, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 > _MAX_STRETCH + 1 or j2 - j1 > _MAX_STRETCH + 1:
            continue
        pairs = [
            (i, j)
            for i in range(i1, i2)
            for j in range(j1, j2)
            if are_opposites(stems[i], span_stems[j])
            and negated_before(tokens, i) == negated_before(span.tokens, j)
            and stems[i] not in span_stems  # the span states both ("opens ... and closes"): undecided
        ]
        if not pairs:
            continue
        i, j = pairs[0]
        rest = {cached_stem(w) for w in words if w != tokens[i] and w not in NEGATION_WORDS}
        if rest and len(rest & span.core) / len(rest) >= NEAR_COPY:
            return tokens[i], span.tokens[j]
    return None


def noun_swap(
    embedder: StaticEmbedder,
    tokens: Sequence[str],
    words: Sequence[str],
    absent: Sequence[str],
    candidates: Sequence[Span],
) -> tuple[str, str] | None:
    """(new words, replaced words) when the sentence restates a span (at least ``NEAR_COPY`` of
    its other content words are in it) with a different noun or quantifier in one slot."""
    new = set(absent)
    stems = [cached_stem(t) for t in tokens]
    opposed = frozenset().union(*(opposites_of(s) for s in set(stems)))
    for span in candidates:
        found = _opposite(tokens, stems, span, words, opposed)
        if found:
            return found
    if not new and not any(t in QUANTIFIERS for t in tokens):
        return None
    core = {cached_stem(w) for w in words if w not in new and w not in NEGATION_WORDS}
    if not core:
        return None
    for span in candidates:
        if len(core & span.core) / len(core) < NEAR_COPY:
            continue
        span_stems = [cached_stem(t) for t in span.tokens]
        found = _slot_swap(embedder, tokens, stems, span, span_stems, new)
        if found is None and any(t in QUANTIFIERS for t in tokens):
            found = generalises(tokens, stems, span, span_stems)
        if found:
            return found
    return None
