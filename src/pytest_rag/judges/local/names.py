"""Names a sentence states, and a near copy that puts another name in the slot of a context name.

Capitalised words past the first of a sentence stand in for named entities. "Flight to Geneva
departs" against "flight to Zurich departs" keeps every other word and the slot (the words around
the name); an abbreviation ("UK" for "United Kingdom") or an inflection of the same name is not a swap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...scoring.text import NEGATION_WORDS, STOPWORDS, content_words, stem, tokenize
from .normalise import forms
from .spans import NEAR_COPY, Span

if TYPE_CHECKING:
    from .lexical import SentenceTable

# The last character is any letter or digit, not only an ASCII one: "Café" is a name, not "Caf".
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*[^\W_]|\b[A-Z]\b")


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
                if _same_slot((before, after), (other_before, other_after)):
                    return True
    return False


def _same_slot(ours: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether two names stand in the same slot: the same words on both sides (a sentence edge
    counts as one), or the same content word on one side; a shared "the" or "in" alone is no slot."""
    (before, after), (other_before, other_after) = ours, theirs
    same_before, same_after = before == other_before, after == other_after
    return (same_before and same_after and bool(before or after)) or any(
        same and word not in STOPWORDS for same, word in ((same_before, before), (same_after, after)) if word
    )


_ARTICLES = frozenset({"the", "a", "an"})


def _role_slots(text: str) -> list[tuple[str, str, str]]:
    """The names of a sentence with their slots, for the role check: an opening capital that is a
    function word is no part of a name ("The Munich office" names "Munich"), and an article
    before a name is no slot word ("built by the Lumen Bakery" puts it after "by"). A name that
    still opens the sentence is left out: there any word is capitalised."""
    found: list[tuple[str, str, str]] = []
    opening = len(text) - len(text.lstrip(" \"'(“‘"))
    for match in NAME_RUN_RE.finditer(text):
        words = match.group(0).split()
        while words and words[0].lower() in STOPWORDS:
            words = words[1:]
        if not words or (match.start() == opening and len(words) == len(match.group(0).split())):
            continue
        run = " ".join(words)
        start = match.end() - len(run)
        before = [w for w in tokenize(text[max(0, start - _SLOT_WINDOW) : start]) if w not in _ARTICLES]
        after = tokenize(text[match.end() : match.end() + _SLOT_WINDOW])
        found.append((run, before[-1] if before else "", after[0] if after else ""))
    return found


def _restates(core: set[str], span_core: frozenset[str]) -> bool:
    return bool(core) and len(core & span_core) / len(core) >= NEAR_COPY


def is_role_swap(
    sentence: str, unsupported_names: Sequence[str], spans: Sequence[Span], table: SentenceTable
) -> bool:
    """Whether the sentence restates one context sentence (of ``spans``, one sentence each) with a
    name the contexts do give, but elsewhere, moved into the slot of that sentence's own name:
    "directed by Daniel Price" for "directed by Teresa Molina" where Daniel Price only stars.
    Every name is backed, so the name check cannot see it; the edit is the role. Guards that keep
    rewording out: the name replaced is gone from the sentence (a list reordered keeps it), the
    two names share no word or form ("Molina" for "Teresa Molina", "Sept" for "September") and
    neither abbreviates the other ("European Union" for "EU"), the
    moved name is not in that context sentence at all (a clause of it may be restated: "roaming
    in Switzerland is not included" of "Roaming in the EU is included, but roaming in Switzerland
    costs extra"), and no context sentence that the sentence restates as a whole puts the moved
    name in that slot itself ("The Munich office opens at 08:00" restates its own sentence; at
    the Berlin office's 09:00 it restates none)."""
    missing = {n.lower() for n in unsupported_names}
    tokens = tokenize(sentence)
    present = set(tokens)
    words = [w for w in content_words(tokens) if w not in NEGATION_WORDS]
    for run, before, after in _role_slots(sentence):
        run_words = set(tokenize(run))
        if run_words & missing:
            continue
        run_forms = _forms_of(run_words)
        core = {stem(w) for w in words if w not in run_words}
        for span in spans:
            if run in span.text or not _restates(core, span.core):
                continue
            for other, other_before, other_after in _role_slots(span.text):
                other_words = set(tokenize(other))
                if (
                    not run_forms.isdisjoint(_forms_of(other_words))
                    or _is_abbreviation(run, other)
                    or _is_abbreviation(other, run)
                    or other_words & present
                    or not _same_slot((before, after), (other_before, other_after))
                ):
                    continue
                if not _holds_in_slot(table, run, (before, after), core | {stem(w) for w in run_words}):
                    return True
    return False


def _forms_of(words: set[str]) -> set[str]:
    return {f for w in words if w not in STOPWORDS for f in forms(w)}


def _holds_in_slot(table: SentenceTable, run: str, slot: tuple[str, str], core: set[str]) -> bool:
    """Whether a context sentence that the sentence (content stems ``core``) restates puts ``run``
    in ``slot`` itself."""
    word = next((w for w in tokenize(run) if w not in STOPWORDS), None)
    if word is None:  # "It’s": a capital the tokenizer reads as a stopword is no name to look up
        return False
    for i in table.with_stem(stem(word)):
        if not _restates(core, frozenset(table.stems[i])):
            continue
        for found, before, after in _role_slots(table.texts[i]):
            if found == run and _same_slot(slot, (before, after)):
                return True
    return False
