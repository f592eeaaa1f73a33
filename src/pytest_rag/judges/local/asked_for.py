"""What a question asks for, and whether a terse answer is that kind of thing.

"Monday to Friday, 9 to 5." shares no word with "When are you open?", so the relevance features
(word overlap, static-vector closeness) read it as off topic, though it is exactly what the question
asks for. A terse answer (a few words and no clause of its own) can only be read by its kind: a time
for "when", an amount for "how many", an amount of time for "how long". This module reads the kind a question asks for
and whether a terse answer gives one, and nothing else: whether the answer is *true* is the business
of the grounding and correctness metrics, not of relevance.

Only the kinds a word list tells for sure are read: times and amounts, which digits and a closed set
of words spell. "Who" and "where" ask for a name, and a capitalised word is a person, a place, a film
or a sentence's first word alike; "what" and "which" ask for anything. Those are left to the
features, as is every answer of more than a few words, and one that brings in a topic of its own
("The museum, at 5 pm." to a question about the pharmacy): besides the question's words, the
kind's own and the words that qualify them ("every", "nearly"), a terse answer may hold only the
thing an amount counts ("775 rooms", "12 years").
"""

from __future__ import annotations

import re
from enum import Enum

from ...scoring.text import STOPWORDS, tokenize
from .lexical import cached_stem
from .numbers import MONTH_NAMES, is_unit


class AskedFor(Enum):
    """What a question can be seen to ask for."""

    TIME = "time"
    AMOUNT = "amount"
    DURATION = "duration"
    """How long, how often, how old: an amount of time ("3 days", "twice a week", "since 1990")."""


_TERSE_WORDS = 8
"""Most words of an answer read by its kind; a longer one says enough for the features to read."""

_CLAUSE_TEXT = """
    is are was were be been being do does did has have had can could will would should shall
    might must
"""
_CLAUSE_WORDS = frozenset(_CLAUSE_TEXT.split())
"""Verbs that make an answer a clause of its own, which the features read as they read any text
("am" and "may" are left out: "9 am", "May 2019")."""

_MONTHS = frozenset(name for names in MONTH_NAMES.values() for name in names[:1]) - {"may"}
"""Month names that are no other word ("may" is left out: such a date still has its digits)."""

_TIME_TEXT = """
    monday tuesday wednesday thursday friday saturday sunday weekday weekend
    mon tue tues wed thu thur thurs fri sat sun
    daily weekly monthly yearly annually nightly
    morning afternoon evening night noon midnight today tonight tomorrow yesterday now soon later
    spring summer autumn fall winter
    century decade year month week day hour minute ago since until till
    am pm bc bce ad ce early late mid
"""
_TIME_STEMS = frozenset(
    cached_stem(word) for word in (*(n for names in MONTH_NAMES.values() for n in names), *_TIME_TEXT.split())
)
"""Stems of the words that say when (dates, days, times of day, seasons, eras, durations), so that
"Saturdays" and "mornings" count as "Saturday" and "morning" do."""

_AMOUNT_TEXT = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
    hundred hundreds thousand thousands million millions billion billions trillion dozen dozens
    half quarter once twice thrice several none percent per
"""
_AMOUNT_WORDS = frozenset(_AMOUNT_TEXT.split())
"""Words that say how many or how much, matched whole ("ones" in "the red ones" counts nothing)."""

_QUALIFIERS_TEXT = "every around nearly almost roughly approximately exactly only just over under"
_QUALIFIERS = frozenset(_QUALIFIERS_TEXT.split())
"""Words that qualify a time or an amount ("every Tuesday", "nearly 3 hours"): no topic of their own."""

_ASKS_TIME_TEXT = "year years time date day days month months century decade season hour"
_ASKS_TIME = frozenset(_ASKS_TIME_TEXT.split())
"""Nouns after "what" or "which" that make the question ask when ("What year did ...?")."""

_HOW_AMOUNT_TEXT = "many much far tall big high deep large fast heavy wide"
_ASKS_AMOUNT_AFTER_HOW = frozenset(_HOW_AMOUNT_TEXT.split())
"""Words after "how" that make the question ask for an amount ("How many seats ...?")."""

_HOW_DURATION_TEXT = "long often old early late soon"
_ASKS_DURATION_AFTER_HOW = frozenset(_HOW_DURATION_TEXT.split())
"""Words after "how" that make the question ask for an amount of time ("How long do refunds take?")."""

_WHAT_AMOUNT_TEXT = "percentage percent number age size amount price cost"
_ASKS_AMOUNT_AFTER_WHAT = frozenset(_WHAT_AMOUNT_TEXT.split())
"""Nouns after "what" that make the question ask for an amount ("What percentage ...?")."""

_DIGIT_RE = re.compile(r"\d")


def asked_for(question: str) -> AskedFor | None:
    """What ``question`` asks for, when its opening words say it; None otherwise."""
    words = tokenize(question)
    if not words:
        return None
    opener, following = words[0], words[1] if len(words) > 1 else ""
    if opener == "when" or (opener in ("what", "which") and following in _ASKS_TIME):
        return AskedFor.TIME
    if (opener == "how" and following in _ASKS_AMOUNT_AFTER_HOW) or (
        opener == "what" and following in _ASKS_AMOUNT_AFTER_WHAT
    ):
        return AskedFor.AMOUNT
    if opener == "how" and following in _ASKS_DURATION_AFTER_HOW:
        return AskedFor.DURATION
    return None


def terse_answer_gives(question: str, answer: str) -> AskedFor | None:
    """What ``question`` asks for, when ``answer`` is a terse answer that gives it: at most
    :data:`_TERSE_WORDS` words, no clause of its own, something of the kind in it, and no content
    word besides the question's, the kind's own and its qualifiers, but for the thing an amount
    counts ("775 rooms"). None otherwise."""
    kind = asked_for(question)
    tokens = tokenize(answer)
    if kind is None or not tokens or len(tokens) > _TERSE_WORDS or _CLAUSE_WORDS & set(tokens):
        return None
    own = _kind_words(kind, tokens)
    if not own:
        return None
    asked = {cached_stem(t) for t in tokenize(question)}
    foreign = [
        t
        for t in tokens
        if t not in STOPWORDS and t not in _QUALIFIERS and t not in own and cached_stem(t) not in asked
    ]
    return kind if len(foreign) <= (0 if kind is AskedFor.TIME else 1) else None


def _kind_words(kind: AskedFor, tokens: list[str]) -> set[str]:
    """The tokens that are of ``kind`` (empty when none is): digits, and the words of time for a
    time, of amounts and units ("kg", "litres") for an amount, of both for an amount of time. A
    month makes a number a date ("August 2, 1776" says when, not how many)."""
    if kind is AskedFor.AMOUNT and _MONTHS & set(tokens):
        return set()
    amounts = kind is not AskedFor.TIME
    times = kind is not AskedFor.AMOUNT
    return {
        t
        for t in tokens
        if _DIGIT_RE.search(t)
        or (amounts and (t in _AMOUNT_WORDS or is_unit(t)))
        or (times and cached_stem(t) in _TIME_STEMS)
    }
