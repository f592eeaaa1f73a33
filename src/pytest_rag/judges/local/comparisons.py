"""Comparisons and orders a sentence states, and a near copy that turns one the other way.

"At least 30 hours" for "up to 30 hours", "after departure" for "before departure": the fact is
reversed while every other word is kept, so lexical and embedding evidence cannot see it. Each
comparison is read as (family, direction, what is compared), and a near copy of a context sentence
that states the same thing in the other direction is an edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...scoring.text import NEGATION_WORDS, stem
from .spans import NEAR_COPY, Span

# Comparison and order words by family, as (one direction, the other). A near copy of a context
# sentence that says the opposite direction of a family ("at least 30 hours" for "up to 30 hours",
# "after departure" for "before departure", "smaller than 2 GB" for "larger than 2 GB") reverses
# the fact while keeping every other word, so lexical and embedding evidence cannot see it.
# Families end with ";"; in each, the words of one direction | the words of the other ("_" joins
# the two words of a marker).
_COMPARISON_FAMILIES_TEXT = """
    more greater over above exceed exceeds exceeding larger bigger higher longer heavier older wider
    minimum at_least or_more
    | less fewer under below smaller lower shorter lighter younger narrower maximum up_to at_most
    or_less or_fewer;
    before earlier prior | after later;
    first earliest | last latest;
    increase increases increased increasing raise raises raised rise rises
    | decrease decreases decreased decreasing reduce reduces reduced fall falls;
    faster quicker | slower;
"""


_COMPARISON_FAMILIES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(up.split()), frozenset(down.split()))
    for up, down in (family.split("|") for family in _COMPARISON_FAMILIES_TEXT.split(";") if family.strip())
)
MORE_OR_LESS = next(k for k, (up, _) in enumerate(_COMPARISON_FAMILIES) if "more" in up)
"""The family of :func:`comparisons_in` whose directions are "more" and "less" (the bounds)."""
COMPARISON_MARKERS: frozenset[str] = frozenset(
    m for family in _COMPARISON_FAMILIES for side in family for m in side
)
_COMPARISON_STEMS: frozenset[str] = frozenset(stem(m) for m in COMPARISON_MARKERS if "_" not in m)
NEGATION_REACH = 3  # a negation this many tokens before a marker turns it ("not take more than")
_COMPARISON_GLUE = frozenset({"than", "to", "of", "the", "a", "an", "then"})


def negated_before(tokens: Sequence[str], k: int) -> bool:
    """Whether a negation stands within ``NEGATION_REACH`` tokens before token ``k`` ("not take
    more than", "is not open")."""
    return any(t in NEGATION_WORDS for t in tokens[max(0, k - NEGATION_REACH) : k])


def comparisons_in(tokens: Sequence[str]) -> frozenset[tuple[int, bool, str]]:
    """The comparisons a sentence states, as (family, direction, what is compared): the word
    after the marker, past "than", "to" and articles ("less than 3 days" -> 3, "after departure"
    -> departure). Tying each comparison to its object keeps phrasal verbs and other senses
    ("carried over to", "symptoms last") from counting. Two-word markers ("at least", "up to")
    win over their words, and a negation just before a marker reverses it ("no more than" is an
    upper bound)."""
    found: set[tuple[int, bool, str]] = set()
    k = 0
    while k < len(tokens):
        pair = f"{tokens[k]}_{tokens[k + 1]}" if k + 1 < len(tokens) else ""
        marker, width = (pair, 2) if pair in COMPARISON_MARKERS else (tokens[k], 1)
        if marker in COMPARISON_MARKERS:
            negated = negated_before(tokens, k)
            rest = [t for t in tokens[k + width :] if t not in _COMPARISON_GLUE]
            compared = stem(rest[0]) if rest else ""
            for family, (up, down) in enumerate(_COMPARISON_FAMILIES):
                if marker in up or marker in down:
                    found.add((family, (marker in up) != negated, compared))
        k += width
    return frozenset(found)


def is_comparison_flip(
    words: Sequence[str], comparisons: frozenset[tuple[int, bool, str]], candidates: Sequence[Span]
) -> bool:
    """Whether the sentence restates one context sentence (at least ``NEAR_COPY`` of its content
    words, comparison words and negations aside, are in it) with the comparison of the same
    thing turned the other way, and no context sentence as close states it the same way. The
    context may say more than the sentence (the sentence may pick one fact out of it), since the
    comparison must match in what it compares. A comparison the context does not make at all is
    an addition, not a reversal: the model and the other checks judge that."""
    if not comparisons:
        return False
    core = {stem(w) for w in words if w not in NEGATION_WORDS} - _COMPARISON_STEMS
    if not core:
        return False
    scored = [(len(core & span.core) / len(core), comparisons_in(span.tokens)) for span in candidates]
    for family, up, compared in comparisons:
        same = max((c for c, stated in scored if (family, up, compared) in stated), default=0.0)
        opposite = max(
            (
                c
                for c, stated in scored
                if (family, not up, compared) in stated and (family, up, compared) not in stated
            ),
            default=0.0,
        )
        if opposite >= NEAR_COPY and opposite > same:
            return True
    return False
