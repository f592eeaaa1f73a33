"""Names a sentence states, and a near copy that puts another name in the slot of a context name.

Capitalised words past the first of a sentence stand in for named entities. "Flight to Geneva
departs" against "flight to Zurich departs" keeps every other word and the slot (the words around
the name); an abbreviation ("UK" for "United Kingdom") or an inflection of the same name is not a swap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..scoring.text import NEGATION_WORDS, STOPWORDS, content_words, stem, tokenize
from .spans import NEAR_COPY, Span

_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*[A-Za-z0-9]|\b[A-Z]\b")


def names_in(sentence: str) -> list[str]:
    """Capitalised words that are not the first word of the sentence: rough named entities."""
    names: list[str] = []
    for match in _CAPITALISED_RE.finditer(sentence):
        if match.start() == 0 or sentence[: match.start()].strip() in {"", '"', "'", "("}:
            continue
        word = match.group(0).lower().replace("’", "'")
        if word in STOPWORDS or word == "i" or word in NEGATION_WORDS:
            continue
        names.append(match.group(0))
    return names


def _is_abbreviation(short: str, long: str) -> bool:
    """Whether ``short`` may abbreviate ``long``: all capitals, at most four letters, same first
    letter ("LA" for "Los Angeles", "TN" for "Tennessee", "UK" for "United Kingdom")."""
    letters = short.replace(".", "")
    return letters.isupper() and len(letters) <= 4 and letters[:1].lower() == long[:1].lower()


_SLOT_WINDOW = 40  # characters read on each side of a name for its neighbouring words
NAME_RUN_RE = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


def _name_slots(text: str) -> list[tuple[str, str, str]]:
    """Each run of capitalised words ("Los Angeles") with the words just before and after it,
    lower-cased, as (run, word before, word after)."""
    slots: list[tuple[str, str, str]] = []
    for match in NAME_RUN_RE.finditer(text):
        # A short window each side is enough for one word, and keeps long contexts linear.
        before = tokenize(text[max(0, match.start() - _SLOT_WINDOW) : match.start()])
        after = tokenize(text[match.end() : match.end() + _SLOT_WINDOW])
        slots.append((match.group(0), before[-1] if before else "", after[0] if after else ""))
    return slots


def is_name_swap(
    tokens: Sequence[str], sentence: str, unsupported_names: Sequence[str], candidates: Sequence[Span]
) -> bool:
    """Whether the sentence restates a context span (at least ``NEAR_COPY`` of its other content
    words are in it) with a name the contexts lack standing where the span has a different
    name in the same slot: the same words on both sides (a sentence edge counts as one), or the
    same content word on one side
    ("flight to Geneva departs" for "flight to Zurich departs", "the LDAC codec" for "the AAC
    codec"; a shared "the" or "in" alone is no slot). An abbreviation of the span's name ("UK"
    for "United Kingdom", "LA" for "Los Angeles") or the same word inflected is not a swap."""
    if not unsupported_names:
        return False
    missing = {n.lower() for n in unsupported_names}
    core = {stem(w) for w in content_words(tokens)} - {stem(n) for n in missing}
    if not core:
        return False
    slots = [
        (run, before, after)
        for run, before, after in _name_slots(sentence)
        if any(w.lower() in missing for w in run.split())
    ]
    for span in candidates:
        if not slots or len(core & span.core) / len(core) < NEAR_COPY:
            continue
        for other, other_before, other_after in _name_slots(span.text):
            for run, before, after in slots:
                if _is_abbreviation(run, other) or stem(other.lower()).startswith(stem(run.lower())):
                    continue
                same_before, same_after = before == other_before, after == other_after
                if (same_before and same_after and (before or after)) or any(
                    same and word not in STOPWORDS
                    for same, word in ((same_before, before), (same_after, after))
                    if word
                ):
                    return True
    return False
