"""The edits ``--rag-mutants`` adds to the sentence edits (a unit changed, a condition dropped, an
unbacked claim joined on), the words an edit changed, and the mutants built from an answer: one per
class, the same for the same answer, never one that the sources say word for word."""

from __future__ import annotations

import random

import pytest

from pytest_rag.mutants import edits
from pytest_rag.mutants.build import mutants_of
from pytest_rag.mutants.classes import MUTATION_CLASSES


def rng() -> random.Random:
    return random.Random(7)


@pytest.mark.parametrize(
    ("sentence", "choices"),
    [
        (
            "Refunds take five business days.",
            {"Refunds take five business hours.", "Refunds take five business weeks."},
        ),
        ("The trail is 12 km long.", {"The trail is 12 cm long."}),
        ("A refund takes one day.", {"A refund takes one hour.", "A refund takes one week."}),
        ("It costs $40 a month.", {"It costs €40 a month.", "It costs £40 a month."}),
    ],
)
def test_a_unit_becomes_its_neighbour_in_the_same_number(sentence: str, choices: set[str]) -> None:
    assert edits.unit_swap(sentence, rng()) in choices


def test_a_unit_the_premise_states_is_not_swapped_in_and_a_sentence_without_one_is_left() -> None:
    assert edits.unit_swap("The trail is 12 km long.", rng(), premise="It is 12 cm wide.") is None
    assert edits.unit_swap("The trail is long and steep.", rng()) is None
    assert edits.unit_swap("Open every day of the week.", rng()) is None  # no number before the unit


@pytest.mark.parametrize(
    ("sentence", "dropped"),
    [
        ("Refunds are given within 30 days if the item is unused.", "Refunds are given within 30 days."),
        ("If you have a receipt, refunds are given within 30 days.", "Refunds are given within 30 days."),
        ("Only members can borrow books.", "Members can borrow books."),
        ("The pool is open on weekdays, except on public holidays.", "The pool is open on weekdays."),
        ("Shipping is free as long as the order exceeds 50 euros.", "Shipping is free."),
    ],
)
def test_a_condition_is_dropped(sentence: str, dropped: str) -> None:
    assert edits.condition_dropped(sentence, rng()) == dropped


def test_a_sentence_without_a_condition_keeps_it() -> None:
    assert edits.condition_dropped("Refunds take five business days.", rng()) is None


def test_an_unbacked_claim_holds_nothing_the_premise_says() -> None:
    premise = "Refunds take five business days. This was confirmed by an independent audit in 2004."
    for seed in range(20):
        claimed = edits.unbacked_claim("Refunds take five business days.", random.Random(seed), premise)
        assert claimed is not None and claimed.startswith("Refunds take five business days, and ")
        assert "audit" not in claimed  # the premise speaks of an audit: that claim is never chosen


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        ("Refunds take five business days.", "Refunds take six business days.", ("five", "six")),
        ("Ada hired Ben in May.", "Ben hired Ada in May.", ("Ada … Ben", "Ben … Ada")),
        ("It costs $40.", "It costs €40.", ("$", "€")),
        ("It is 1,000 km.", "It is 2,000 km.", ("1,000", "2,000")),
        ("Shipping is free.", "Shipping is not free.", ("", "not")),
        ("Free if unused.", "Free.", ("if unused", "")),
        ("It lasts.", "It lasts, and a 10-year warranty backs it.", ("", "and a 10-year warranty backs it")),
    ],
)
def test_the_changed_words_are_what_the_edit_took_out_and_put_in(
    before: str, after: str, changed: tuple[str, str]
) -> None:
    assert edits.changed_words(before, after) == changed


ANSWER = (
    "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie. "
    "The prize is shared only if the committee agrees."
)
SOURCES = [
    "Marie Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel.",
    "The prize is shared only if the committee agrees. She won the 1911 Nobel Prize in Chemistry alone.",
]


def test_each_class_gives_one_mutant_that_edits_one_sentence_and_keeps_the_rest() -> None:
    found = mutants_of(ANSWER, SOURCES)
    assert list(found) == list(MUTATION_CLASSES)
    made = {name: mutant for name, mutant in found.items() if mutant is not None}
    assert {"number", "name", "negation", "added_claim", "dropped_condition"} <= set(made)
    sentences = [
        "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie.",
        SOURCES[1].split(". ")[0] + ".",
    ]
    for name, mutant in made.items():
        assert mutant.mutation == name and mutant.sentence not in sentences
        assert any(ANSWER.replace(s, mutant.sentence) == mutant.answer for s in sentences)
        assert mutant.removed or mutant.added
    assert made["dropped_condition"].removed == "only if the committee agrees"


def test_the_same_answer_gives_the_same_mutants_and_another_answer_others() -> None:
    first = mutants_of(ANSWER, SOURCES)
    mutants_of.__globals__["_material"].cache_clear()  # built afresh, not read from the memo
    assert mutants_of(ANSWER, SOURCES) == first
    other = mutants_of(ANSWER.replace("1903", "1904"), SOURCES)
    assert other["number"] != first["number"]


def test_a_mutant_that_the_sources_say_word_for_word_is_not_made() -> None:
    assert mutants_of("In May Ada hired Ben.", ["In May Ada hired Ben."])["name"] is not None  # Ben hired Ada
    # the only swap there is gives a sentence the sources hold: it would not be wrong
    assert (
        mutants_of("In May Ada hired Ben.", ["In May Ada hired Ben. In May Ben hired Ada."])["name"] is None
    )


def test_an_answer_no_edit_of_a_class_applies_to_has_no_mutant_of_it() -> None:
    found = mutants_of("Refunds take a while to arrive.", ["Refunds take a while to arrive."])
    assert found["number"] is None and found["dropped_condition"] is None
    assert found["added_claim"] is not None  # a claim can be joined to any sentence of four words


def test_an_unbacked_claim_is_made_against_a_page_of_everyday_words() -> None:
    """The common words of the claims ("this", "since", "first") are on any long page: only their
    specific words (an audit, a warranty) keep a claim out."""
    page = "This shop first opened since the other one closed. It has been the same since then."
    claimed = edits.unbacked_claim("Refunds take five business days.", rng(), page)
    assert claimed is not None and claimed.startswith("Refunds take five business days, and ")
