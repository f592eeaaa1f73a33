"""An amount of time given in another unit: "two weeks" for "14 days", "24 months" for "2 years".

The number check pairs each number with what it counts (:mod:`.numbers`), so "The course lasts two
weeks." against "The course lasts 14 days." held a number, 2, that the contexts lack, and scored 1.
Amounts of time convert exactly within two families, clock time (seconds to weeks) and calendar
time (months to decades); a month is no fixed number of days, so "30 days" is not "a month" here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...scoring.text import stem
from .numbers import as_float, is_number, number_value, unit_form

_CLOCK_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}
_CLOCK_SECONDS |= {"fortnight": 14 * 86400}
_CALENDAR_MONTHS = {"month": 1, "year": 12, "decad": 120}
_FAMILIES = (_CLOCK_SECONDS, _CALENDAR_MONTHS)


def _in_base_unit(value: float, word: str) -> tuple[int, float] | None:
    """``value`` of the unit ``word`` in its family's base unit, with the family's index; None for a
    word that is no unit of time. A unit written short ("min", "hrs") is read as the number checks
    read it (:func:`.numbers.unit_form`)."""
    stemmed = unit_form(stem(word))
    for family, factors in enumerate(_FAMILIES):
        factor = factors.get(stemmed)
        if factor is not None:
            return family, value * factor
    return None


def _times_of(
    tokens: Sequence[str],
) -> list[tuple[int, str, tuple[int, float]]]:
    """(position, number, its amount of time in its family's base unit) of each number of time."""
    found = []
    for k, token in enumerate(tokens[:-1]):
        if not is_number(token):
            continue  # most words: no conversion to try
        number = number_value(token)
        value = as_float(number)
        converted = _in_base_unit(value, tokens[k + 1]) if value is not None else None
        if converted is not None:
            found.append((k, number, converted))
    return found


def _stated(
    known: frozenset[str], counted: Callable[[str], frozenset[str]]
) -> dict[str, set[tuple[int, float]]]:
    """The amounts of time the contexts state, by the number that states them."""
    stated: dict[str, set[tuple[int, float]]] = {}
    for number in known:
        value = as_float(number)
        for unit in counted(number) if value is not None else ():
            converted = _in_base_unit(value, unit) if value is not None else None
            if converted is not None:
                stated.setdefault(number, set()).add(converted)
    return stated


@dataclass(frozen=True)
class TimeReading:
    """What the contexts make of a sentence's amounts of time."""

    backed: frozenset[int]
    """Positions of numbers of time (a number, spelled or in digits, before a unit of time) that
    equal, converted, an amount of time the contexts state in another unit: "two weeks" where
    they count days with 14."""
    changed: tuple[str, ...]
    """Numbers of time the contexts state with a unit of the same family while the amount differs
    from every amount of time they state: "90 minutes" where they say "90 seconds", "14 weeks" for
    "14 days" (every digit kept, and the word close enough to pass for a synonym)."""


NO_TIMES = TimeReading(frozenset(), ())


def read_durations(
    tokens: Sequence[str], known: frozenset[str], counted: Callable[[str], frozenset[str]]
) -> TimeReading:
    """The sentence's amounts of time against those of the contexts: the numbers ``known`` near
    it, and what they count with each (``counted``)."""
    times = _times_of(tokens)
    if not times:
        return NO_TIMES
    stated = _stated(known, counted)
    every = {amount for amounts in stated.values() for amount in amounts}
    return TimeReading(
        frozenset(k for k, _, amount in times if amount in every),
        tuple(
            number
            for _, number, amount in times
            if amount not in every and any(family == amount[0] for family, _ in stated.get(number, ()))
        ),
    )
