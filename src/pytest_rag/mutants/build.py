"""One mutant per class from an answer and the texts it was judged against, without a model.

A mutant edits one sentence of the answer with the edits of :mod:`.edits` and keeps the rest as it
was. Which sentence, and which edit of a class, is drawn by a ``random.Random`` seeded with the
class and the answer, so the same answer always gives the same mutants, in any run, process or
order. An edit whose result the sources hold word for word is no mutant (it would not be wrong), and
a class none of whose edits applies to any sentence of the answer gives none: the catch table counts
such checks apart instead of counting them caught.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..scoring.text import split_sentences
from . import edits
from .classes import MUTATION_CLASSES

#: Sentences of the sources tried as the second fact of a recombination (the first ones, in order):
#: enough for a fact to recombine with.
SOURCE_SENTENCES = 200
#: Characters of each source read for names and second facts: a 1 MB page costs what a long
#: passage costs (what a mutant must not repeat is still looked for in the whole of every source).
SOURCE_CHARS = 20_000


@dataclass(frozen=True)
class Mutant:
    """A wrong answer: the class of its edit, the whole mutated answer, the sentence as edited and
    the words the edit took out and put in (:func:`~.edits.changed_words`)."""

    mutation: str
    answer: str
    sentence: str
    removed: str
    added: str


@dataclass(frozen=True)
class _Material:
    """What the edits read besides the sentence: the sources as one lower-cased text (what a mutant
    must not repeat), the names they give, and their first sentences."""

    answer_sentences: tuple[str, ...]
    source_text: str
    names: tuple[str, ...]
    source_sentences: tuple[str, ...]


Edit = Callable[[str, random.Random, _Material], str | None]


def _numbers(sentence: str, rng: random.Random, material: _Material) -> str | None:
    for edit in rng.sample((edits.number_swap, edits.date_swap, edits.unit_swap), 3):
        found = edit(sentence, rng, material.source_text + " " + sentence)
        if found is not None:
            return found
    return None


def _names(sentence: str, rng: random.Random, material: _Material) -> str | None:
    swapped = edits.name_swap(sentence, rng, material.names, sentence) if material.names else None
    return swapped if swapped is not None else edits.role_swap(sentence, rng)


def _negation(sentence: str, rng: random.Random, material: _Material) -> str | None:
    flipped = edits.negation_flip(sentence, rng)
    return flipped if flipped is not None else edits.comparison_flip(sentence, rng)


def _added_claim(sentence: str, rng: random.Random, material: _Material) -> str | None:
    return edits.unbacked_claim(
        sentence, rng, material.source_text + " " + " ".join(material.answer_sentences)
    )


def _recombined(sentence: str, rng: random.Random, material: _Material) -> str | None:
    others = [s for s in material.answer_sentences if s != sentence]
    rng.shuffle(others)
    sources = list(material.source_sentences)
    rng.shuffle(sources)
    for other in [*others, *sources]:
        found = edits.recombined(sentence, other)
        if found is not None:
            return found
    return None


def _dropped_condition(sentence: str, rng: random.Random, material: _Material) -> str | None:
    return edits.condition_dropped(sentence, rng)


EDITS: dict[str, Edit] = {
    "number": _numbers,
    "name": _names,
    "negation": _negation,
    "added_claim": _added_claim,
    "recombined": _recombined,
    "dropped_condition": _dropped_condition,
}
assert list(EDITS) == list(MUTATION_CLASSES), "every class has its edit, in the table's order"


@functools.lru_cache(maxsize=64)
def _material(answer: str, sources: tuple[str, ...]) -> _Material:
    """Read once per answer and sources: several checks of one answer (faithfulness and recall, say)
    mutate it alike."""
    sentences = tuple(s for s in split_sentences(answer) if s in answer and len(s.split()) >= 3)
    names: dict[str, None] = {}
    first: list[str] = []
    for source in sources:
        for sentence in split_sentences(source[:SOURCE_CHARS]):
            for start, end in edits.name_spans(sentence):
                names.setdefault(sentence[start:end])
            if len(first) < SOURCE_SENTENCES:
                first.append(sentence)
    return _Material(sentences, " ".join(sources).lower(), tuple(names), tuple(first))


def mutants_of(answer: str, sources: Sequence[str]) -> dict[str, Mutant | None]:
    """The mutant of each class of ``answer`` (None where no edit of the class applies), given the
    ``sources`` it was judged against (its contexts and reference): a mutant never says what they
    say word for word, and names and second facts are taken from them."""
    material = _material(answer, tuple(sources))
    return {mutation: _mutant(mutation, answer, material) for mutation in MUTATION_CLASSES}


def _mutant(mutation: str, answer: str, material: _Material) -> Mutant | None:
    rng = random.Random(f"pytest-rag mutant\n{mutation}\n{answer}")
    order = list(material.answer_sentences)
    rng.shuffle(order)
    for sentence in order:
        edited = EDITS[mutation](sentence, rng, material)
        if edited is None or edited.strip() == sentence.strip():
            continue
        if edited.strip().lower() in material.source_text:
            continue  # the sources say it: not a wrong answer
        removed, added = edits.changed_words(sentence, edited)
        return Mutant(mutation, answer.replace(sentence, edited, 1), edited, removed, added)
    return None
