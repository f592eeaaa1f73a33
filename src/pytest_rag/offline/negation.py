"""Whether a sentence negates what it says, and a near copy with the negation added or removed.

A reply's opening "no" answers the other speaker, idioms such as "not only" negate nothing, and a
negation that bounds a comparison ("no more than 4") is that comparison's direction
(:mod:`.comparisons`). What is left is a negation of the statement; a sentence that restates a
context sentence with it reversed says the opposite of its source.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..scoring.text import NEGATION_WORDS, stem
from .comparisons import COMPARISON_MARKERS, NEGATION_REACH
from .spans import NEAR_COPY, Span

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
    for k, token in enumerate(tokens):
        if k == 0 or token not in NEGATION_WORDS:
            continue
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if (token, after) in _NEGATION_IDIOMS or (tokens[k - 1], token) in _NEGATION_IDIOMS:
            continue
        if _bounds_a_comparison(tokens, k):
            continue
        return True
    return False


def _bounds_a_comparison(tokens: Sequence[str], k: int) -> bool:
    """Whether a comparison marker starts within ``NEGATION_REACH`` tokens after position k."""
    for j in range(k + 1, min(k + 1 + NEGATION_REACH, len(tokens))):
        pair = f"{tokens[j]}_{tokens[j + 1]}" if j + 1 < len(tokens) else ""
        if tokens[j] in COMPARISON_MARKERS or pair in COMPARISON_MARKERS:
            return True
    return False


def is_negation_flip(words: Sequence[str], has_negation: bool, candidates: Sequence[Span]) -> bool:
    """Whether the sentence restates one context sentence nearly word for word (both ways, at
    least ``NEAR_COPY`` of the content words apart from negations) with the negation added or
    removed, and no equally close context sentence agrees with it on negation."""
    core = {stem(w) for w in words if w not in NEGATION_WORDS}
    if not core:
        return False
    best_same = best_other = 0.0
    for span in candidates:
        other = span.core
        if not other:
            continue
        shared = len(core & other)
        closeness = min(shared / len(core), shared / len(other))
        if span.states_negation == has_negation:
            best_same = max(best_same, closeness)
        else:
            best_other = max(best_other, closeness)
    return best_other >= NEAR_COPY and best_other > best_same
