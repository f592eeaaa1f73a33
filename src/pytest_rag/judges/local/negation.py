"""Whether a sentence negates what it says, and a near copy with the negation added or removed.

A reply's opening "no" answers the other speaker, idioms such as "not only" negate nothing, and a
negation that bounds a comparison ("no more than 4") is that comparison's direction
(:mod:`.comparisons`). What is left is a negation of the statement; a sentence that restates a
context sentence with it reversed says the opposite of its source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...scoring.text import NEGATION_WORDS, STOPWORDS, tokenize
from .comparisons import COMPARISON_MARKERS, NEGATION_REACH
from .lexical import cached_stem
from .opposites import opposites_of
from .spans import NEAR_COPY, SHORT_CLAIM_WORDS, Span

CLAUSE_BREAK_RE = re.compile(
    r"[;:](?=\s)|,?\s+\b(?:but|whereas|while|although|though|however)\b|,\s+(?:and|so)\b", re.IGNORECASE
)
"""Where a sentence joins two statements ("Dogs are not allowed, but bicycles travel free"): each
side has its own negation."""

# Negation words that do not negate the statement: "not only", "if not most", "no other ... as
# famous" (a superlative), "no longer" and "no less" (comparisons).
_NEGATION_IDIOMS = frozenset(
    {("not", "only"), ("if", "not"), ("no", "other"), ("no", "longer"), ("no", "less")}
)


def states_negation(tokens: Sequence[str]) -> bool:
    """Whether a sentence negates what it says. A reply's opening "no" or "not" answers the
    other speaker rather than negating the sentence ("No, Australian Idol was ..."), and the
    idioms in ``_NEGATION_IDIOMS`` negate nothing. Nor does a negation that sets a bound on a
    comparison ("do not take more than 4", "no later than Friday"): ``comparisons.comparisons_in`` reads it as
    the comparison's direction, so "take no more than 4" restates "do not take more than 4"."""
    return _negation_at(tokens) is not None


def _negation_at(tokens: Sequence[str]) -> int | None:
    """The position of the sentence's first negation that negates its statement (see above)."""
    for k, token in enumerate(tokens):
        if k == 0 or token not in NEGATION_WORDS:
            continue
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if (token, after) in _NEGATION_IDIOMS or (tokens[k - 1], token) in _NEGATION_IDIOMS:
            continue
        if _bounds_a_comparison(tokens, k):
            continue
        return k
    return None


def _negated_word(tokens: Sequence[str]) -> str | None:
    """The stem of the content word a negated statement negates: "cover" of "does not cover",
    "available" of "are not available"."""
    k = _negation_at(tokens)
    if k is None:
        return None
    following = tokens[k + 1 : k + 1 + NEGATION_REACH]  # the reach a negation has over what follows
    word = next((t for t in following if t not in STOPWORDS and t not in NEGATION_WORDS), None)
    return None if word is None else cached_stem(word)


def _bounds_a_comparison(tokens: Sequence[str], k: int) -> bool:
    """Whether a comparison marker starts within ``NEGATION_REACH`` tokens after position k."""
    for j in range(k + 1, min(k + 1 + NEGATION_REACH, len(tokens))):
        pair = f"{tokens[j]}_{tokens[j + 1]}" if j + 1 < len(tokens) else ""
        if tokens[j] in COMPARISON_MARKERS or pair in COMPARISON_MARKERS:
            return True
    return False


def is_negation_flip(sentence: str, candidates: Sequence[Span]) -> bool:
    """Whether a clause of the sentence restates one clause of a context sentence with the
    negation added or removed, and no clause that agrees with it on negation restates it as well.

    A context clause restates the sentence's clause when they share at least ``NEAR_COPY`` of each
    other's content words apart from negations (a near copy both ways), or, for a short clause (at
    most ``SHORT_CLAIM_WORDS`` content words), when it holds ``NEAR_COPY`` of the clause's words
    and the clause keeps the very word the negation negates: "Racing damage is covered" shortens
    "The policy does not cover damage caused by racing" and keeps "cover"; "Towing is not
    included" negates the "towing is included" of "..., and towing is included". Clauses count
    apart on both sides ("..., but ...", "; ", ", and "), so restating the positive side of "The
    vaccine does not cause autism, but it can cause a mild fever" is no reversal. A word the
    context clause states as its opposite turns its polarity ("closed" is "not open"), and a
    clause stating both decides nothing."""
    return any(_clause_flips(tokenize(part), candidates) for part in CLAUSE_BREAK_RE.split(sentence))


@dataclass(frozen=True)
class _Clause:
    """One clause of a context sentence, as the reversal check reads it."""

    content: frozenset[str]  # content words' stems, negations aside
    negated: bool
    negated_word: str | None


def _clause(tokens: Sequence[str]) -> _Clause:
    negated = states_negation(tokens)
    return _Clause(
        frozenset(cached_stem(t) for t in tokens if t not in STOPWORDS and t not in NEGATION_WORDS),
        negated,
        _negated_word(tokens) if negated else None,
    )


@lru_cache(maxsize=1 << 14)
def _clauses(text: str) -> tuple[_Clause, ...]:
    """The clauses of a context sentence (read once: every answer sentence meets the same spans)."""
    if CLAUSE_BREAK_RE.search(text) is None:
        return (_clause(tokenize(text)),)
    return tuple(_clause(tokenize(part)) for part in CLAUSE_BREAK_RE.split(text))


def _clause_flips(tokens: Sequence[str], candidates: Sequence[Span]) -> bool:
    core = {cached_stem(t) for t in tokens if t not in STOPWORDS and t not in NEGATION_WORDS}
    if not core:
        return False
    has_negation = states_negation(tokens)
    negated_here = _negated_word(tokens) if has_negation else None
    short = len(core) <= SHORT_CLAIM_WORDS
    best_same = best_other = 0.0
    for span in candidates:
        clauses = _clauses(span.text)
        if span.states_negation == has_negation and all(
            len(core & clause.content) / len(core) < NEAR_COPY for clause in clauses
        ):
            # no clause holds the sentence's clause, which straddles several ("don't watch ..., so
            # with 1 billion hours ..."): the whole sentence, agreeing on negation, is its match
            best_same = max(best_same, len(core & span.core) / len(core))
        for clause in clauses:
            other = clause.content
            if not other:
                continue
            shared = len(core & other)
            cover = shared / len(core)
            closeness = min(cover, shared / len(other))
            opposed = {word for word in core if not opposites_of(word).isdisjoint(other)}
            if opposed & other:
                continue  # the clause states a word and its opposite ("opens ... and is closed"): undecided
            negated = clause.negated ^ bool(opposed)  # "closed" states "not open"
            if negated == has_negation:
                best_same = max(best_same, cover)  # any clause that holds the sentence agrees with it
                continue
            kept = short and (clause.negated_word in core if negated else negated_here in other)
            best_other = max(best_other, cover if kept else closeness)
    return best_other >= NEAR_COPY and best_other > best_same
