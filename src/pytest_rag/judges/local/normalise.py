"""Name and date forms that say the same thing: "German-born" and "born in Germany", "Jan" and "January".

The name check marks a capitalised word the contexts lack as unbacked, and the number check a
number they lack. A faithful answer rewords names and dates freely, though: the demonym or
adjective of a place ("Dutch" for "the Netherlands", "Neapolitan" for "Naples"), a month or weekday
abbreviation ("Mar 31", "Thu"), an ordinal in words or digits ("3rd" for "third"), a possessive
("Helena's"), a hyphenated compound ("Hungarian-born"), an initial ("A. Okafor"). Each word is
read as the set of its forms (:func:`forms`), and a name is backed when its forms meet the forms of
the contexts' words (:func:`name_is_backed`).

The table ships as ``name_forms.json`` (built by ``scripts/build_name_forms.py``: countries and
demonyms from the ``countryinfo`` package, MIT; regions, cities, abbreviations and ordinals written
for pytest-rag).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ...scoring.text import tokenize
from .lexical import cached_stem

_SUFFIXES = ("'s", "’s", "s'", "'")


@dataclass(frozen=True)
class NameForms:
    """The shipped table, read once."""

    abbreviations: dict[str, str]  # "jan" -> "january"
    numbers: dict[str, str]  # "third" -> "3"
    place_of: dict[str, frozenset[str]]  # "dutch" -> {"netherlands"}; a place maps to itself
    phrases: dict[str, tuple[str, ...]]  # first word of a multi-word place -> the places it starts


class NameFormsError(RuntimeError):
    """name_forms.json is missing or malformed."""


@lru_cache(maxsize=1)
def name_forms() -> NameForms:
    """The packaged table (a broken install gets an error naming the fix)."""
    try:
        text = (
            resources.files("pytest_rag.judges.local").joinpath("name_forms.json").read_text(encoding="utf-8")
        )
        data = json.loads(text)
        abbreviations = {str(k): str(v) for k, v in data["abbreviations"].items()}
        numbers = {str(k): str(v) for k, v in data["numbers"].items()}
        places = {str(k): [str(f) for f in v] for k, v in data["places"].items()}
    except (FileNotFoundError, json.JSONDecodeError, KeyError, AttributeError, TypeError) as exc:
        raise NameFormsError(
            f"pytest_rag/judges/local/name_forms.json is missing or malformed ({exc}); reinstall pytest-rag "
            "or rebuild it with `python scripts/build_name_forms.py`"
        ) from exc
    place_of: dict[str, set[str]] = {}
    phrases: dict[str, list[str]] = {}
    for named, adjectives in places.items():
        # "the Bahamas": the article is a stopword no name run keeps, so the place is its last words
        place = named.removeprefix("the ")
        for form in (place, *adjectives):
            place_of.setdefault(form, set()).add(place)
            if " " in form:
                phrases.setdefault(form.split()[0], []).append(form)
    return NameForms(
        abbreviations,
        numbers,
        {k: frozenset(v) for k, v in place_of.items()},
        {k: tuple(v) for k, v in phrases.items()},
    )


def _bare(word: str) -> str:
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=1 << 15)
def forms(word: str) -> frozenset[str]:
    """Every form a single word stands for: its stem, the word an abbreviation shortens, the digits
    of an ordinal or number word, and the places a demonym or place name names."""
    table = name_forms()
    bare = _bare(word)
    found = {cached_stem(bare), bare}
    if bare in table.abbreviations:
        found.add(table.abbreviations[bare])
    if bare in table.numbers:
        found.add(table.numbers[bare])
    found.update(f"place:{p}" for p in table.place_of.get(bare, ()))
    return frozenset(found)


def place_phrases(tokens: Sequence[str]) -> list[tuple[int, int, str]]:
    """Multi-word places and demonyms in a token list, as (start, stop, form): "united kingdom",
    "new zealand"."""
    table = name_forms()
    found: list[tuple[int, int, str]] = []
    for k, token in enumerate(tokens):
        for phrase in table.phrases.get(token, ()):
            words = phrase.split()
            if list(tokens[k : k + len(words)]) == words:
                found.append((k, k + len(words), phrase))
    return found


def context_forms(tokens: Iterable[str], sentences: Iterable[Sequence[str]]) -> frozenset[str]:
    """The forms of every context word, and of the multi-word places the given sentences hold."""
    table = name_forms()
    found: set[str] = set()
    for token in tokens:
        found |= forms(token)
    for sentence in sentences:
        for _, _, phrase in place_phrases(sentence):
            found.update(f"place:{p}" for p in table.place_of.get(phrase, ()))
    return frozenset(found)


def name_is_backed(
    name: str, sentence_tokens: Sequence[str], known: Collection[str], initials: Collection[str]
) -> bool:
    """Whether a capitalised word of a sentence is backed by contexts whose word forms are
    ``known``: every part of it (a hyphenated compound is several) has a form the contexts have, or
    the multi-word place it belongs to does; a single capital ("A." of "A. Okafor") is an initial
    when some context word starts with it (``initials``)."""
    parts = tokenize(name)
    if not parts:
        return True
    if len(parts) == 1 and len(parts[0]) == 1:
        return parts[0] in initials
    table = name_forms()
    in_places = {
        k
        for start, stop, phrase in place_phrases(sentence_tokens)
        if any(f"place:{p}" in known for p in table.place_of.get(phrase, ()))
        for k in range(start, stop)
    }
    placed = {sentence_tokens[k] for k in in_places}
    return all(part in placed or not forms(part).isdisjoint(known) for part in parts)
