"""A share written as a percentage or as a fraction: "half of the members" is "50% of the members".

The tokenizer drops "%", and a fraction word is no number to the number check, so "50% of the
members voted" against "half of the members voted" held a number, 50, that the contexts lack, and
the other way round a word, "half", that they lack: a faithful answer scored 1 either way. Shares
are read here from the text itself, each as a percentage: "50%", "50 percent", "half", "a
quarter", "two thirds".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...scoring.text import normalize_number, stem

_FRACTIONS = {"half": 50.0, "halves": 50.0, "third": 100 / 3, "thirds": 100 / 3, "quarter": 25.0}
_FRACTIONS |= {"quarters": 25.0, "fifth": 20.0, "fifths": 20.0, "tenth": 10.0, "tenths": 10.0}
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "nine": 9}
_SHARE_RE = re.compile(
    r"(?P<number>\d+(?:\.\d+)?)\s?(?:%|percent\b|per cent\b)"
    rf"|(?:\b(?P<count>{'|'.join(_COUNTS)})[\s-])?\b(?P<fraction>{'|'.join(_FRACTIONS)})\b"
)
FRACTION_STEMS = frozenset(stem(word) for word in _FRACTIONS)
"""The fraction words as the context index keeps them, to find the sentences that may write one."""
_PERCENT_WORDS = frozenset({"percent", "per", "cent"})
ROUNDING = 0.5
"""How far a percentage may be from a fraction it writes: "33%" is a third, "67%" two thirds."""


@dataclass(frozen=True)
class Share:
    """One share of a text: its percentage, and how it was written (the number's digits, or the
    fraction word, lower-cased)."""

    percent: float
    written: str

    @property
    def in_words(self) -> bool:
        return not self.written[0].isdigit()


def shares(text: str) -> list[Share]:
    """The shares ``text`` states, as percentages, in order. "half" and "quarter" are shares on
    their own ("half of the members"); "third", "fifth" and "tenth" only after a count ("a third",
    "two thirds"), since "the third day" is an order."""
    found = []
    for match in _SHARE_RE.finditer(text.lower()):
        if match["number"] is not None:
            found.append(Share(float(match["number"]), normalize_number(match["number"])))
            continue
        fraction = match["fraction"]
        if fraction.startswith(("third", "fifth", "tenth")) and match["count"] is None:
            continue
        count = _COUNTS[match["count"]] if match["count"] else 1
        found.append(Share(count * _FRACTIONS[fraction], fraction))
    return found


def shares_backed(sentence: Sequence[Share], contexts: Sequence[Share]) -> list[Share]:
    """The sentence's shares that the contexts state in the other form: a percentage the contexts
    write as a fraction, or a fraction they write as a percentage."""
    return [
        share
        for share in sentence
        if any(
            other.in_words != share.in_words and abs(other.percent - share.percent) <= ROUNDING
            for other in contexts
        )
    ]


def share_positions(tokens: Sequence[str], backed: Sequence[Share]) -> set[int]:
    """The token positions of the ``backed`` shares: a percentage's number and the words after it
    ("percent", "per cent"), a fraction's word and the count before it ("two" of "two thirds")."""
    digits = {share.written for share in backed if not share.in_words}
    words = {share.written for share in backed if share.in_words}
    found: set[int] = set()
    for k, token in enumerate(tokens):
        if token in words:
            found.add(k)
            if k and tokens[k - 1] in _COUNTS:
                found.add(k - 1)
        elif normalize_number(token) in digits:
            found.add(k)
            following = k + 1  # "percent", or "per cent"
            while following < min(len(tokens), k + 3) and tokens[following] in _PERCENT_WORDS:
                found.add(following)
                following += 1
    return found


def percent_numbers(share: Share) -> set[str]:
    """The numbers a percentage within :data:`ROUNDING` of ``share`` may be written with: "33",
    "33.3" and "34" for a third."""
    whole = int(share.percent)
    candidates = {whole, whole + 1, round(share.percent, 1)}
    return {normalize_number(f"{value:g}") for value in candidates if abs(value - share.percent) <= ROUNDING}
