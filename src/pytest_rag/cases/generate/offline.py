"""Questions written from the passages' own sentences, without a language model.

The offline generator needs no key and gives the same questions every time. It asks what a reader of
the documents would ask of a sentence (:mod:`.questions`), from sentences a reader reads as such
(:func:`.clauses.askable_sentences`: never a heading, a list stub, a link, code or markup), and its
reference is the sentence it asked about, copied: the case says so (:mod:`.metric`), and the checks
that keep it are the ones that could fail.

* ``single_fact``: a wh-question about one sentence's subject ("What does the Session object
  allow you to do?").
* ``numbers``: a question asking for a quantity the sentence states, with its noun ("Within how many
  business days is a refund processed?"), a version of a product, a year or an amount of money.
* ``multi_hop``: one question asking what two sentences of two passages say of the thing they share
  ("What is CacheControl, and what does it add to Requests?"): it needs both passages.
* ``unanswerable``: a question about the documents' own subjects that they do not answer
  (:mod:`.unanswerable`), answered "The documents do not say."

It does not write comparisons: comparing two quantities in words takes a language model.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ...scoring.text import STOPWORDS, split_sentences
from .clauses import askable_sentences, read_clause
from .kinds import Target
from .passages import Passage
from .questions import quantity_question, two_part_question, wh_question
from .unanswerable import unanswerable_question

KINDS = ("single_fact", "multi_hop", "numbers", "unanswerable")
NOT_SAID = "The documents do not say."


def corpus_names(texts: Iterable[str]) -> list[str]:
    """Words the documents write capitalised inside a sentence (names: "Nimbus", "Pro"), sorted."""
    names: set[str] = set()
    for text in texts:
        for sentence in split_sentences(text):
            rest = sentence.split(" ", 1)[1] if " " in sentence else ""
            names.update(w for w in rest.split() if w[:1].isupper() for w in [w.strip(".,;:!?()\"'")])
    return sorted(names)


def single_questions(passage: Passage, names: Collection[str]) -> list[tuple[str, str]]:
    """(question, reference) for each sentence of ``passage`` a wh-question can be made from."""
    return [(q, s) for s in askable_sentences(passage.text) if (q := wh_question(s, names)) is not None]


def quantity_questions(passage: Passage, names: Collection[str]) -> list[tuple[str, str]]:
    """(question, reference) for each sentence of ``passage`` that states a quantity to ask for."""
    return [(q, s) for s in askable_sentences(passage.text) if (q := quantity_question(s, names)) is not None]


def _subject_terms(sentence: str) -> frozenset[str]:
    """The content words of the sentence's subject, as written: two sentences are about one thing
    when these are the same ("HTTPX" and "HTTPX", "the Session object" and "a Session object"; not
    "Requests", the library, and "the request")."""
    clause = read_clause(sentence)
    if clause is None:
        return frozenset()
    return frozenset(w.strip(".,;:'\"") for w in clause.subject.split() if w.lower() not in STOPWORDS)


def linked_questions(
    first: Sequence[tuple[str, str]], second: Sequence[tuple[str, str]], names: Collection[str]
) -> list[tuple[str, str]]:
    """(question, reference) joining a sentence of each of two passages (their
    :func:`single_questions`) whose subjects share a word: one question about the thing both
    passages speak of, which neither answers alone."""
    twos = [s for _, s in second]
    found = []
    for _, one in first:
        terms = _subject_terms(one)
        for two in twos:
            if terms and terms == _subject_terms(two):
                question = two_part_question(one, two, names)
                if question is not None:
                    found.append((question, f"{one} {two}"))
    return found


def write_offline(
    target: Target, facts: Mapping[str, Any], names: Collection[str] = ()
) -> tuple[str, str, list[str]] | None:
    """(question, reference, words whose absence an unanswerable rests on) for ``target``, or None
    when its passages hold nothing to ask about. ``facts``: what :func:`.unanswerable.corpus_facts`
    read of the whole corpus; ``names``: the documents' names (:func:`corpus_names`), kept
    capitalised in questions."""
    first = target.passages[0]
    asked: list[tuple[str, str]] = []
    if target.kind == "numbers":
        asked = quantity_questions(first, names)
    elif target.kind == "single_fact":
        asked = single_questions(first, names)
    elif target.kind == "multi_hop":
        second = target.passages[1]
        asked = linked_questions(single_questions(first, names), single_questions(second, names), names)
    elif target.kind == "unanswerable":
        found = unanswerable_question(first, facts, names, target.pick)
        return None if found is None else (found[0], NOT_SAID, found[1])
    if not asked:
        return None
    question, reference = asked[target.pick % len(asked)]
    return question, reference, []
