"""Numbers an answer gives rounded, or as a bound, that are true of a number the contexts state.

Generated answers round: "about 30% renewed" for 29.7%, "1.3 million residents" for 1,298,000,
"over 500 employees" for 512. Such a number is not among the contexts' numbers, so the number
check (:func:`.numbers.unbacked_numbers`) would call it unbacked, yet what it says is true. Kept
apart from :mod:`.numbers` because it reads bounds with :mod:`.comparisons`, which reads words
through :mod:`.numbers`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from ...scoring.text import STOPWORDS, has_digit, normalize_number, stem
from .comparisons import COMPARISON_MARKERS, MORE_OR_LESS, comparisons_in
from .numbers import SCALES, YEAR_RE, as_float, same_unit


class StatedNumbers(Protocol):
    """What the contexts say of one of their numbers (a :class:`~.context_index.ContextIndex`)."""

    def counted_with(self, number: str) -> frozenset[str]: ...

    def bounds(self, number: str) -> bool: ...


APPROXIMATION_WORDS = frozenset({"about", "around", "roughly", "approximately", "approx", "some", "circa"})
"""Words before a number that say it is rounded: "about 30" is true of 29.7 and of 33, not of 40."""
_SHORT_OF = frozenset({"nearly", "almost"})
"""Words before a rounded number that also say the exact one is below it ("nearly 30" for 29.7)."""


_ROUNDING_CUES = frozenset(
    {
        *APPROXIMATION_WORDS,
        *_SHORT_OF,
        *SCALES,
        *(word for marker in COMPARISON_MARKERS for word in marker.split("_")),
    }
)
"""Words without which no number of a sentence is read as rounded or as a bound."""


def rounded_numbers_backed(tokens: Sequence[str], known: frozenset[str], index: StatedNumbers) -> set[int]:
    """Positions of numbers given as rounded, or as a bound, that a number of the contexts bears out.

    A number is read as rounded after an approximation word (:data:`APPROXIMATION_WORDS`;
    "nearly" and "almost" put the exact one below it) or when it has decimals before a magnitude
    ("1.3 million"); it is then true of a context number within half of its last written digit
    ("about 30": 25 to 35; "about 12": 11.5 to 12.5; "1.3 million": 1.25 to 1.35 million). A
    number after a comparison word ("over", "more than", "at least", "under", "up to": the bounds
    of :func:`~.comparisons.comparisons_in`, negation included) is a rounded number too: it is true
    of a context number on its side within one of its last written digit ("over 500": 500 to 600;
    "under 10 days": 0 to 10 days) that the contexts state exactly, not as a bound of their own: "up
    to 40 hours" is not borne out by "up to 30 hours", nor by "5 hours of playback". A plain number
    still means itself. The context number must not be a year unless the answer's is one too, and
    when the answer says what its number counts (one of the two words after it), the contexts must
    count the same with theirs: "over 500 employees" is not borne out by "founded in 2019", "512
    stores" or a bare "512", and "below 100 degrees" not by whatever number stands near.
    """
    if not known or not any(has_digit(token) for token in tokens) or _ROUNDING_CUES.isdisjoint(tokens):
        return set()  # most sentences: no number, or none said to be rounded or a bound
    values = [(number, value) for number in known if (value := as_float(number)) is not None]
    bounds = {compared: up for family, up, compared in comparisons_in(tokens) if family == MORE_OR_LESS}
    found: set[int] = set()
    for k, token in enumerate(tokens):
        value = as_float(normalize_number(token)) if has_digit(token) else None
        if value is None:
            continue
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        scale = SCALES.get(after, 1.0)
        target, half = value * scale, _last_digit(normalize_number(token)) * scale / 2
        before = tokens[k - 1] if k else ""
        up = bounds.get(stem(token))
        exact_only = up is not None
        if up is not None:
            low, high = (target, target + 2 * half) if up else (target - 2 * half, target)
        elif before in APPROXIMATION_WORDS or (scale != 1.0 and "." in token):
            low, high = target - half, target + half
        elif before in _SHORT_OF:
            low, high = target - half, target
        else:
            continue
        units = [t for t in tokens[k + 1 + (scale != 1.0) : k + 5] if t not in STOPWORDS][:2]
        if any(
            low - 1e-9 <= exact <= high + 1e-9
            and _counts_alike(number, token, units, index)
            and not (exact_only and index.bounds(number))
            for number, exact in values
        ):
            found.add(k)
    return found


def _last_digit(number: str) -> float:
    """The value of the last digit a number is written to: 1 for "12", 10 for "30", 0.1 for "1.3"."""
    if "." in number:
        return 10.0 ** -len(number.split(".", 1)[1])
    digits = number.lstrip("-")
    return 10.0 ** (len(digits) - len(digits.rstrip("0"))) if digits.strip("0") else 1.0


def _counts_alike(number: str, token: str, units: Sequence[str], index: StatedNumbers) -> bool:
    """Whether the context ``number`` may be the one the answer's ``token`` rounds or bounds: not a
    year for a number that is none, and counting one of the answer's ``units`` (the words after its
    number) when it has any."""
    if YEAR_RE.fullmatch(number) and not YEAR_RE.fullmatch(normalize_number(token)):
        return False
    if not units:
        return True
    counted = index.counted_with(number)
    return any(stem(unit) == other or same_unit(stem(unit), other) for unit in units for other in counted)


def rounding_words(tokens: Sequence[str], rounded: Collection[int]) -> frozenset[str]:
    """The words that make the numbers at ``rounded`` rounded ("about", "nearly", the "million" of
    "1.3 million"): said of a number the contexts bear out, they add no claim of their own. Only
    those: "2.4 million" where the contexts say "2.4 billion" keeps its "million" to be caught."""
    found: set[str] = set()
    for k in rounded:
        if k and tokens[k - 1] in APPROXIMATION_WORDS | _SHORT_OF:
            found.add(tokens[k - 1])
        if k + 1 < len(tokens) and tokens[k + 1] in SCALES:
            found.add(tokens[k + 1])
    return frozenset(found)
