"""Numbers an answer sentence states, and whether the contexts state them counting the same thing.

"Take one tablet every 4 hours" against a context that says "every 6 hours ... more than 4 tablets"
holds a 4 the contexts have, but they count tablets with it, not hours. Each number is paired with
the content words after it (what it counts), for the answer and for the index of the contexts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..scoring.text import STOPWORDS, has_digit, normalize_number, numbers_in, stem
from .embedder import StaticEmbedder

if TYPE_CHECKING:
    from .context_index import ContextIndex

_MAGNITUDES = frozenset({"hundred", "thousand", "million", "billion", "trillion", "percent"})
_UNIT_LOOKAHEAD = 2  # content words after a number that may name what it counts


def numbers_with_units(tokens: Sequence[str], lookahead: int = _UNIT_LOOKAHEAD) -> list[tuple[str, str]]:
    """(number, stemmed content word after it) pairs of one sentence: what each number counts.

    "every 6 hours" gives ("6", "hour"); "5 business days" gives ("5", "business") and ("5",
    "day"). Stopwords are skipped, and the look-ahead stops at the next number.
    """
    pairs: list[tuple[str, str]] = []
    for k, token in enumerate(tokens):
        if not has_digit(token):
            continue
        found = 0
        for following in tokens[k + 1 : k + 6]:
            if has_digit(following) or found == lookahead:
                break
            if following in STOPWORDS:
                continue
            pairs.append((normalize_number(token), stem(following)))
            found += 1
    return pairs


def miscounted_numbers(embedder: StaticEmbedder, tokens: Sequence[str], index: ContextIndex) -> list[str]:
    """Numbers that occur in the contexts but count something else there.

    "take one tablet every 4 hours" against "every 6 hours ... more than 4 tablets": 4 is in the
    contexts, but only with "tablets", while "hours" follows other numbers. A number is reported
    when the first content word after it is a word the contexts count with numbers and never
    with this one, or a word the contexts never use while they count this number with another
    ("8 pounds" against "8 kg"); a following word that is in the contexts but never counted there
    ("at 14:35, flight ...") proves nothing and is ignored. Only a word right after the number counts as its unit here ("in
    1987 a year later" has none), and magnitudes ("4 billion") are not units.
    """
    found: list[str] = []
    for k, token in enumerate(tokens[:-1]):
        unit = tokens[k + 1]
        if not has_digit(token) or has_digit(unit) or unit in STOPWORDS or unit in _MAGNITUDES:
            continue
        number, unit = normalize_number(token), stem(unit)
        if number not in index.numbers or unit in index.counted_with(number):
            continue
        # A word the contexts count with other numbers, or a word they never use that reads like
        # the unit they count this number in ("8 pounds" where the contexts say "8 kg").
        if index.counts_anything_as(unit) or (
            unit not in index.content and _like_unit(embedder, tokens[k + 1], number, index)
        ):
            found.append(number)
    return found


_UNIT_LIKENESS = 0.4  # word-vector cosine: pounds~kg 0.40, MB~GB 0.45, minutes~hours 0.58


def _like_unit(embedder: StaticEmbedder, word: str, number: str, index: ContextIndex) -> bool:
    """Whether ``word`` is close in meaning to a word the contexts count ``number`` with."""
    counted = sorted(index.counted_with(number))
    if not counted:
        return False
    sims = embedder.word_vectors(counted) @ embedder.word_vectors([word])[0]
    return bool(sims.max() >= _UNIT_LIKENESS)


def number_set(tokens: Sequence[str]) -> set[str]:
    found = set(numbers_in(tokens))
    found.update(normalize_number(t) for t in tokens if t.isalpha())
    return found
