"""Numbers an answer sentence states, and whether the contexts state them counting the same thing.

"Take one tablet every 4 hours" against a context that says "every 6 hours ... more than 4 tablets"
holds a 4 the contexts have, but they count tablets with it, not hours. Each number is paired with
the content words after it (what it counts), for the answer and for the index of the contexts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from ...scoring.text import NUMBER_WORDS, STOPWORDS, has_digit, normalize_number, numbers_in, stem
from .embedder import StaticEmbedder

_MAGNITUDES = frozenset({"hundred", "thousand", "million", "billion", "trillion", "percent"})
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
"""Words that multiply the number before them ("2.4 million"), by how much."""
_UNIT_LOOKAHEAD = 2  # content words after a number that may name what it counts

# Cardinals an answer spells out ("four Ethernet ports" for "4"), checked like digits. "one" is as
# often a pronoun ("the one that"), and a word next to another number word or a magnitude is part
# of a larger number ("twenty five", "two hundred"), so those are left alone.
_SPELLED_TEXT = """
    zero:0 two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 eleven:11 twelve:12
    thirteen:13 fourteen:14 fifteen:15 sixteen:16 seventeen:17 eighteen:18 nineteen:19 twenty:20
    thirty:30 forty:40 fifty:50 sixty:60 seventy:70 eighty:80 ninety:90 twice:2 thrice:3
"""
SPELLED: dict[str, str] = dict(pair.split(":") for pair in _SPELLED_TEXT.split())
# Units written short or in full, and in either spelling, count the same thing: "1.3 kg" is backed by
# "1.3 kilograms", never miscounted. Stems of a unit's forms, each to the group's first form.
_UNIT_FORMS_TEXT = """
    kilogram,kg,kilo gram,g milligram,mg pound,lb,lbs ounce,oz
    kilometre,kilometer,km metre,meter,m centimetre,centimeter,cm millimetre,millimeter,mm
    mile,mi foot,feet,ft litre,liter,l millilitre,milliliter,ml
    gigabyte,gb megabyte,mb terabyte,tb kilobyte,kb
    hour,h,hr,hrs minute,min,mins second,s,sec,secs millisecond,ms
    dollar,usd euro,eur watt,w kilowatt,kw volt,v gigahertz,ghz megahertz,mhz
"""
_UNIT_FORMS: dict[str, str] = {
    stem(form): group.split(",")[0] for group in _UNIT_FORMS_TEXT.split() for form in group.split(",")
}


def is_unit(word: str) -> bool:
    """Whether ``word`` is a unit of measure in one of its forms ("kg", "kilograms", "hrs")."""
    return stem(word) in _UNIT_FORMS


def unit_form(stemmed: str) -> str:
    """The one form of the unit a stemmed word names ("min", "minut" and "mins" are "minute"); any
    other stem as it is."""
    return _UNIT_FORMS.get(stemmed, stemmed)


def same_unit(stem_a: str, stem_b: str) -> bool:
    """Whether two stemmed words are forms of one unit ("kilogram" and "kg")."""
    unit = _UNIT_FORMS.get(stem_a)
    return unit is not None and unit == _UNIT_FORMS.get(stem_b)


_CLOCK_RE = re.compile(r"(\d{1,2}):(\d{2})")
YEAR_RE = re.compile(r"1[89]\d\d|20\d\d")
_YEAR_OPENERS = frozenset({"in", "since", "until", "till", "by", "from", "before", "after", "of", "during"})


def is_number(token: str) -> bool:
    """A number in digits, or a spelled-out cardinal."""
    return has_digit(token) or token in SPELLED


# Every word normalize_number turns into digits, and the spelled cardinals: a word is looked up
# here rather than run through normalize_number's patterns (a corpus has tens of thousands).
_WORD_VALUES = {**NUMBER_WORDS, **SPELLED}


def as_float(number: str) -> float | None:
    """A normalised number (:func:`number_value`) as a finite float; None for anything else."""
    try:
        value = float(number)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def number_value(token: str) -> str:
    """The digits of a number token, spelled or not ("thirteen" -> "13", "1,000" -> "1000"); any
    other word as it is."""
    return _WORD_VALUES.get(token, token) if token.isalpha() else normalize_number(token)


def spelled_numbers(tokens: Sequence[str]) -> dict[int, str]:
    """Positions of spelled-out cardinals that stand alone as a number, with their digits."""
    found: dict[int, str] = {}
    for k, token in enumerate(tokens):
        if token not in SPELLED:
            continue
        neighbours = (tokens[k - 1] if k else "", tokens[k + 1] if k + 1 < len(tokens) else "")
        if not any(n in SPELLED or n in _MAGNITUDES or n == "one" for n in neighbours):
            found[k] = SPELLED[token]
    return found


def clock_times(tokens: Sequence[str]) -> dict[int, str]:
    """Positions of clock times with their 24-hour form: "8 am" and "08:00" are "8:00", "6 pm"
    and "18:00" are "18:00" (the tokenizer splits "8am" into "8", "am" and "a.m." into "a", "m")."""
    found: dict[int, str] = {}
    for k, token in enumerate(tokens):
        if not token[:1].isdecimal():
            continue
        match = _CLOCK_RE.fullmatch(token)
        if match is None and not (token.isdecimal() and len(token) <= 2):
            continue
        hour, minute = (int(match[1]), match[2]) if match else (int(token), "00")
        after = tokens[k + 1 : k + 3]
        meridiem = after[0] if after and after[0] in ("am", "pm") else ""
        if not meridiem and len(after) == 2 and after[0] in ("a", "p") and after[1] == "m":
            meridiem = after[0] + "m"
        if meridiem:
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if meridiem == "pm" else 0)
        elif match is None:
            continue  # a bare "8" is no time
        if hour <= 24 and int(minute) <= 59:
            found[k] = f"{hour}:{int(minute):02d}"
    return found


def unbacked_numbers(
    tokens: Sequence[str],
    known: frozenset[str],
    times: Callable[[], frozenset[str]],
    words: frozenset[str] = frozenset(),
    borne_out: Collection[int] = (),
) -> tuple[list[str], list[str]]:
    """The numbers of a sentence that the contexts (their numbers in every form: ``known``; their
    clock times, read on demand: ``times``; their words: ``words``) lack: (written in digits, spelled
    out); ``borne_out`` holds the positions of numbers another reading found true of the contexts. A clock time is backed by the same time in
    another form, and so is a date written in digits (:func:`written_dates`: its day and year among
    the numbers, its month among the words), a pair such as "24/7" whose numbers the contexts both
    state."""
    clocks = clock_times(tokens)
    dated = {k for k, readings in written_dates(tokens).items() if _date_backed(readings, known, words)}
    digits = [
        normalize_number(t)
        for k, t in enumerate(tokens)
        if has_digit(t)
        and normalize_number(t) not in known
        and not (k in clocks and clocks[k] in times())
        and k not in dated
        and k not in borne_out
        and not _parts_backed(t, known)
    ]
    spelled = [n for k, n in spelled_numbers(tokens).items() if n not in known and k not in borne_out]
    return digits, spelled


_MONTHS_TEXT = """
    january,jan february,feb march,mar april,apr may june,jun july,jul august,aug
    september,sep,sept october,oct november,nov december,dec
"""
MONTH_NAMES: dict[int, tuple[str, ...]] = {
    number: tuple(group.split(",")) for number, group in enumerate(_MONTHS_TEXT.split(), start=1)
}
"""Each month's number and the names it is written with, in full and short."""
_ISO_PART_RE = re.compile(r"\d\d")
_YEAR_DIGITS_RE = re.compile(r"[12]\d{3}")

Date = tuple[int, int, int]
"""(year, month, day); a two-digit year is read in the 2000s."""


def written_dates(tokens: Sequence[str]) -> dict[int, tuple[Date, ...]]:
    """Positions of the tokens of dates written in digits, each with the dates it may read as:
    "2025-03-14" (three tokens, month and day in two digits each) and "14/03/2025", "3/14/25" or
    "2025/03/14" (one token; day and month first are both read where both can be)."""
    found: dict[int, tuple[Date, ...]] = {}
    for k, token in enumerate(tokens):
        if _YEAR_DIGITS_RE.fullmatch(token) and k + 2 < len(tokens):
            month, day = tokens[k + 1], tokens[k + 2]
            if _ISO_PART_RE.fullmatch(month) and _ISO_PART_RE.fullmatch(day):
                readings = _valid(((int(token), int(month), int(day)),))
                if readings:
                    found.update({k: readings, k + 1: readings, k + 2: readings})
        parts = token.split("/")
        if len(parts) == 3 and all(part.isdigit() for part in parts):
            a, b, c = (int(part) for part in parts)
            if len(parts[0]) == 4:
                candidates: tuple[Date, ...] = ((a, b, c),)
            else:
                year = c + 2000 if len(parts[2]) == 2 else c
                candidates = ((year, b, a), (year, a, b))
            readings = _valid(candidates)
            if readings:
                found[k] = readings
    return found


def _valid(dates: Sequence[Date]) -> tuple[Date, ...]:
    return tuple(dict.fromkeys(d for d in dates if 1 <= d[1] <= 12 and 1 <= d[2] <= 31))


def _date_backed(readings: Sequence[Date], known: frozenset[str], words: frozenset[str]) -> bool:
    """Whether the contexts state one of the readings: its day and year as numbers (an ordinal
    day, "14th", is read as its number) and its month by name."""
    return any(
        str(year) in known and str(day) in known and not words.isdisjoint(MONTH_NAMES[month])
        for year, month, day in readings
    )


def _parts_backed(token: str, known: frozenset[str]) -> bool:
    """Whether a pair of numbers joined by a slash ("24/7") has both its numbers in the contexts
    ("24 hours a day, 7 days a week")."""
    parts = token.split("/")
    return len(parts) == 2 and all(part.isdigit() and str(int(part)) in known for part in parts)


def numbers_with_units(tokens: Sequence[str], lookahead: int = _UNIT_LOOKAHEAD) -> list[tuple[str, str]]:
    """(number, stemmed content word after it) pairs of one sentence: what each number counts.

    "every 6 hours" gives ("6", "hour"); "5 business days" gives ("5", "business") and ("5",
    "day"). Stopwords are skipped, and the look-ahead stops at the next number.
    """
    pairs: list[tuple[str, str]] = []
    for k, token in enumerate(tokens):
        if not is_number(token) or (k and tokens[k - 1] in _YEAR_OPENERS and YEAR_RE.fullmatch(token)):
            continue  # "renovated in 2018 and seats 80 people": a year counts no seats
        found = 0
        for following in tokens[k + 1 : k + 6]:
            if is_number(following) or found == lookahead:
                break
            if following in STOPWORDS:
                continue
            pairs.append((number_value(token), stem(following)))
            found += 1
    return pairs


class CountedContexts(Protocol):
    """What the miscount check reads of the contexts: a :class:`~.context_index.ContextIndex`, named
    by what it offers because the index reads numbers with this module."""

    @property
    def numbers(self) -> frozenset[str]: ...

    @property
    def content(self) -> frozenset[str]: ...

    def counted_with(self, number: str) -> frozenset[str]: ...

    def counts_anything_as(self, unit: str) -> bool: ...


def miscounted_numbers(embedder: StaticEmbedder, tokens: Sequence[str], index: CountedContexts) -> list[str]:
    """Numbers that occur in the contexts but count something else there.

    "take one tablet every 4 hours" against "every 6 hours ... more than 4 tablets": 4 is in the
    contexts, but only with "tablets", while "hours" follows other numbers. A number is reported
    when the first content word after it is a word the contexts count with numbers and never
    with this one, or a word the contexts never use while they count this number with another
    ("8 pounds" against "8 kg"); a following word that is in the contexts but never counted there
    ("at 14:35, flight ...") proves nothing and is ignored. Only a word right after the number counts as its unit here ("in
    1987 a year later" has none), and magnitudes ("4 billion") are not units; a number the
    contexts state at another scale ("2.4 million" for "2.4 billion") is reported as well.
    """
    found: list[str] = []
    for k, token in enumerate(tokens[:-1]):
        unit = tokens[k + 1]
        if unit in SCALES and has_digit(token) and _rescaled(normalize_number(token), unit, index):
            found.append(normalize_number(token))
            continue
        if not has_digit(token) or has_digit(unit) or unit in STOPWORDS or unit in _MAGNITUDES:
            continue
        number, unit = normalize_number(token), stem(unit)
        if number not in index.numbers:
            continue
        counted = index.counted_with(number)
        if unit in counted or any(same_unit(unit, other) for other in counted):
            continue  # counted as here, or in another form of the unit ("1.3 kilograms", "1.3 kg")
        # A word the contexts count with other numbers, or a word they never use that reads like
        # the unit they count this number in ("8 pounds" where the contexts say "8 kg").
        if index.counts_anything_as(unit) or (
            unit not in index.content and _like_unit(embedder, tokens[k + 1], number, index)
        ):
            found.append(number)
    return found


def _rescaled(number: str, scale: str, index: CountedContexts) -> bool:
    """Whether the contexts state ``number`` only at another scale: "2.4 million" where they say
    "2.4 billion" (or "2.4" alone) keeps every digit and changes the fact a thousandfold."""
    return number in index.numbers and stem(scale) not in index.counted_with(number)


_UNIT_LIKENESS = 0.4  # word-vector cosine: pounds~kg 0.40, MB~GB 0.45, minutes~hours 0.58


def _like_unit(embedder: StaticEmbedder, word: str, number: str, index: CountedContexts) -> bool:
    """Whether ``word`` is close in meaning to a word the contexts count ``number`` with."""
    counted = sorted(index.counted_with(number))
    if not counted:
        return False
    sims = embedder.word_vectors(counted) @ embedder.word_vectors([word])[0]
    return bool(sims.max() >= _UNIT_LIKENESS)


def number_set(tokens: Sequence[str]) -> set[str]:
    found = set(numbers_in(tokens))
    found.update(number_value(t) for t in tokens if t.isalpha())
    return found
