"""The offline judge's round-3 checks on edits, on sentences written for these tests (not the probe files):
added content and swapped nouns, a word turned into its opposite, a negation reversed, a name moved into
another name's role, the grade's cut, and awkward text that must never break the judge."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest

from pytest_rag.judges.local.normalise import NameFormsError, name_forms
from pytest_rag.judges.local.scorer import EDIT_CAP, GroundingReport, LocalScorer, SentenceSupport
from pytest_rag.judges.local.tasks import HANDLERS, grade_fraction

# -- added content and swapped nouns -----------------------------------------------------------

BAKERY = [
    "Rosa's Bakery sells sourdough loaves baked every morning. Orders for birthday cakes must be "
    "placed by phone at least two days ahead. The bakery's head baker, Ines Vidal, trained in Lyon."
]


def test_an_added_property_lowers_support_below_the_near_copy(scorer: LocalScorer) -> None:
    copy = scorer.support("Rosa's Bakery sells sourdough loaves baked every morning.", BAKERY).sentences[0]
    added = scorer.support(
        "Rosa's Bakery sells organic sourdough loaves baked every morning.", BAKERY
    ).sentences[0]
    assert copy.probability > 0.5 and not copy.added_words
    assert added.added_words == ("organic",)
    assert added.probability < 0.5
    assert "organic" in added.explain()


def test_more_added_content_lowers_support_further(scorer: LocalScorer) -> None:
    one = scorer.support("Rosa's Bakery sells organic sourdough loaves baked every morning.", BAKERY)
    three = scorer.support(
        "Rosa's Bakery sells organic gluten-free sourdough loaves baked every morning.", BAKERY
    )
    assert three.sentences[0].probability < one.sentences[0].probability


@pytest.mark.parametrize(
    ("answer", "new"),
    [
        ("Orders for birthday cakes must be placed by fax at least two days ahead.", "fax"),
        ("The bakery's head cashier, Ines Vidal, trained in Lyon.", "cashier"),
        ("All orders must be placed by phone at least two days ahead.", "all"),
    ],
)
def test_a_different_noun_in_a_slot_is_an_edit(scorer: LocalScorer, answer: str, new: str) -> None:
    sentence = scorer.support(answer, BAKERY).sentences[0]
    assert sentence.swapped_words and sentence.swapped_words[0] == new
    assert sentence.probability <= EDIT_CAP


@pytest.mark.parametrize(
    "answer",
    [
        "Orders for birthday cakes must be placed by telephone at least two days ahead.",  # synonym
        "Rosa's Bakery offers sourdough loaves baked every morning.",  # verb reworded
        "The head baker of the bakery, Ines Vidal, trained in Lyon.",  # reordered
    ],
)
def test_faithful_rewording_is_neither_swap_nor_addition(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, BAKERY).sentences[0]
    assert not sentence.swapped_words and not sentence.added_words


CLINIC_HOURS = [
    "Walk-in patients are seen between 08:00 and 11:00. Follow-up appointments are booked at the "
    "reception desk, and add-on tests cost 15 euros."
]


@pytest.mark.parametrize(
    "answer",
    [
        "Walk-ins are seen between 08:00 and 11:00.",
        "Follow-ups are booked at the reception desk.",
        "Add-ons cost 15 euros.",
    ],
)
def test_a_phrasal_nouns_plural_is_the_compound_not_an_added_word(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, CLINIC_HOURS).sentences[0]
    assert not sentence.swapped_words and not sentence.added_words
    assert sentence.probability > 0.5


def test_a_phrasal_nouns_plural_still_sees_a_swap_beside_it(scorer: LocalScorer) -> None:
    sentence = scorer.support("Follow-ups are booked at the pharmacy desk.", CLINIC_HOURS).sentences[0]
    assert sentence.swapped_words == ("pharmacy", "reception")


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Dr. Lena Fischer leads the lab, which she set up in 2001.", "The lab is led by Dr. Fischer."),
        (
            "Orla Byrne holds the school's swimming record.",
            "The school's swimming record is held by Orla Byrne.",
        ),
        (
            "The cooperative sells its honey at the Saturday market.",
            "The honey is sold at the Saturday market.",
        ),
    ],
)
def test_a_passive_rewording_with_an_irregular_participle_passes(
    scorer: LocalScorer, context: str, answer: str
) -> None:
    report = scorer.support(answer, [context])
    assert report.probability >= report.cut


# -- a word turned into its opposite ------------------------------------------------------------

GATEWAY = [
    "Two-factor login is disabled by default. Invoices are billed yearly to the account owner. "
    "Refund requests are checked by a senior agent, and security patches are installed automatically."
]


@pytest.mark.parametrize(
    ("answer", "new", "old"),
    [
        ("Two-factor login is enabled by default.", "enabled", "disabled"),
        ("Invoices are billed monthly to the account owner.", "monthly", "yearly"),
        ("Refund requests are checked by a junior agent.", "junior", "senior"),
        ("Security patches are installed manually.", "manually", "automatically"),
    ],
)
def test_a_word_turned_into_its_opposite_is_an_edit(
    scorer: LocalScorer, answer: str, new: str, old: str
) -> None:
    sentence = scorer.support(answer, GATEWAY).sentences[0]
    assert sentence.swapped_words == (new, old) and sentence.probability <= EDIT_CAP
    assert f"{new!r} in place of {old!r}" in sentence.explain()


@pytest.mark.parametrize(
    "answer",
    [
        "Two-factor login is not enabled by default.",  # the opposite, negated: the same claim
        "Invoices are billed annually to the account owner.",  # the same period in other words
        "Security patches install automatically.",
    ],
)
def test_an_opposite_negated_or_a_same_meaning_word_is_no_edit(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, GATEWAY).sentences[0]
    assert not sentence.swapped_words


def test_a_capital_the_tokenizer_reads_as_a_stopword_is_no_name_to_move(scorer: LocalScorer) -> None:
    # "It’s" (curly apostrophe) is capitalised, and a stopword once tokenised: no crash, no swap
    context = ["The venue is run by Harbor Arts. It’s managed by Lena Ek."]
    found = scorer.support("The venue is run by It’s.", context).sentences[0]
    assert found.probability <= EDIT_CAP  # judged (a name in the slot of Harbor Arts), not a crash


def test_opposites_come_from_the_table_frequencies_and_negating_prefixes() -> None:
    from pytest_rag.judges.local.lexical import cached_stem
    from pytest_rag.judges.local.opposites import are_opposites

    def opposite(a: str, b: str) -> bool:
        return are_opposites(cached_stem(a), cached_stem(b))

    assert opposite("unavailable", "available") and opposite("nonrefundable", "refundable")
    assert opposite("weekly", "daily") and not opposite("annually", "yearly")
    assert opposite("closed", "open") and opposite("incorrect", "correct")
    # a prefix that opens other words too is no negation: only written-out pairs count
    assert not opposite("discover", "cover") and not opposite("install", "stall")


# -- a negation reversed in a shortened or reordered restatement --------------------------------

COVER = [
    "The policy does not cover damage caused by racing. Roadside assistance is free, and towing is "
    "included. The vaccine does not cause autism, but it can cause a mild fever. Refunds are not "
    "available for sale items bought in store."
]


@pytest.mark.parametrize(
    "answer",
    [
        "Racing damage is covered.",  # shortened and reordered, keeping the negated word "cover"
        "The vaccine causes autism.",
        "Refunds are available for sale items.",
        "Towing is not included.",  # a negation added to one clause of the sentence
    ],
)
def test_a_negation_reversed_in_a_shortened_restatement_is_an_edit(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, COVER).sentences[0]
    assert sentence.negation_flip and sentence.probability <= EDIT_CAP


@pytest.mark.parametrize(
    "answer",
    [
        "The vaccine can cause a mild fever.",  # the positive clause of a negated sentence
        "Damage caused by racing is not covered.",
        "Sale items bought in store cannot be refunded.",
        "Roadside assistance is free.",
    ],
)
def test_a_clause_that_keeps_its_own_negation_is_no_reversal(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, COVER).sentences[0]
    assert not sentence.negation_flip and sentence.probability > 0.5


# -- a context name moved into another name's role ---------------------------------------------

STUDIO = [
    "The album was produced by Rick Hall. Aretha Franklin recorded it in Muscle Shoals. "
    "Our Berlin office opens at 09:00. The Munich office opens at 08:00. "
    "Meals are prepared by Chef Ana Costa. Desserts come from the Lumen Bakery. "
    "The European Union is expected to answer with tariffs. Speakers include Ana Lee, Omar Said and Jo Park."
]


@pytest.mark.parametrize(
    "answer",
    [
        "The album was produced by Aretha Franklin.",  # the singer in the producer's slot
        "The Munich office opens at 09:00.",  # the Berlin office's hours
        "Meals are prepared by the Lumen Bakery.",  # the dessert supplier as the cook
    ],
)
def test_a_context_name_moved_into_another_names_slot_is_an_edit(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, STUDIO).sentences[0]
    assert sentence.unsupported_names == ()  # every name is in the contexts: the role is the edit
    assert sentence.swapped_name and sentence.probability <= EDIT_CAP
    assert "names replaced" in sentence.explain()


@pytest.mark.parametrize(
    "answer",
    [
        "The album was recorded by Aretha Franklin in Muscle Shoals.",  # its own sentence, reworded
        "The Munich office opens at 08:00.",
        "The office in Berlin opens at 09:00.",
        "Meals are prepared by Ana Costa.",  # a shorter form of the same name
        "The EU is expected to answer with tariffs.",  # an abbreviation
        "Speakers include Omar Said, Jo Park and Ana Lee.",  # a list reordered
    ],
)
def test_a_name_kept_in_its_own_role_is_no_swap(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, STUDIO).sentences[0]
    assert not sentence.swapped_name and sentence.probability > 0.5


# -- the grade's cut and the shipped table -----------------------------------------------------


def _report(probability: float, supported: list[float], cut: float) -> GroundingReport:
    sentences = tuple(SentenceSupport(f"s{i}", p, 0, "span", (), (), False) for i, p in enumerate(supported))
    return GroundingReport(sentences, probability, cut)


def test_the_pass_mark_sits_at_the_calibrated_cut() -> None:
    assert grade_fraction(_report(0.41, [0.9, 0.9], cut=0.4)) == 5
    assert grade_fraction(_report(0.41, [0.9, 0.3], cut=0.4)) == 4
    # The same sentences below the cut fail, however many of them are supported.
    assert grade_fraction(_report(0.39, [0.9, 0.9], cut=0.4)) == 3
    assert grade_fraction(_report(0.39, [0.9, 0.1, 0.1], cut=0.4)) == 2
    assert grade_fraction(_report(0.10, [0.1], cut=0.4)) == 1


CLINIC = [
    "The clinic opens at 8:30 on Saturdays. Walk-in patients are not seen after noon. "
    "Appointments are booked by phone with the front desk."
]


@pytest.mark.parametrize(
    "answer",
    [
        "The clinic opens at 8:30 on Saturdays. Walk-in patients are seen after noon.",  # negation
        "The clinic opens at 9:30 on Saturdays. Walk-in patients are not seen after noon.",  # number
        "The clinic opens at 8:30 on Saturdays. Appointments are booked by email with the front desk.",
    ],
)
def test_an_answer_with_a_sentence_that_changes_a_fact_never_reaches_the_pass_mark(
    scorer: LocalScorer, answer: str
) -> None:
    """One faithful sentence and one edited one: the whole-text probability may still reach the
    cut, but the grade stays below the default threshold of 4."""
    report = scorer.support(answer, CLINIC)
    assert any(s.probability <= EDIT_CAP for s in report.sentences)
    assert grade_fraction(report) < 4
    faithful = scorer.support(
        "The clinic opens at 8:30 on Saturdays. Walk-in patients are not seen after noon.", CLINIC
    )
    assert grade_fraction(faithful) >= 4


def test_a_fact_changing_edit_blocks_the_pass_mark_above_the_cut() -> None:
    plain = _report(0.9, [0.9, 0.9], cut=0.4)
    assert grade_fraction(plain) == 5
    flipped = (plain.sentences[0], dataclasses.replace(plain.sentences[1], negation_flip=True))
    assert grade_fraction(GroundingReport(flipped, 0.9, 0.4)) == 3


def test_the_shipped_cut_is_the_answer_models_threshold(scorer: LocalScorer) -> None:
    report = scorer.support("Rosa's Bakery sells sourdough loaves.", BAKERY)
    assert report.cut == scorer.calibration.models["answer"].threshold
    assert 0.0 < report.cut < 1.0


def test_a_broken_name_forms_file_is_an_error_naming_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def joinpath(self, name: str) -> Broken:
            return self

        def read_text(self, encoding: str) -> str:
            return '{"abbreviations": {}}'

    monkeypatch.setattr(resources, "files", lambda package: Broken())  # what normalise reads through
    name_forms.cache_clear()
    try:
        with pytest.raises(NameFormsError, match=r"build_name_forms\.py"):
            name_forms()
    finally:
        monkeypatch.undo()
        name_forms.cache_clear()
    assert name_forms().abbreviations["jan"] == "january"


def test_a_yes_no_is_decided_by_the_clause_that_answers_it(scorer: LocalScorer) -> None:
    # Two statements in one sentence: the negation of one does not answer a question on the other,
    # and the colon of a time is no clause break.
    context = [
        "The gym opens at 06:30 on weekdays and is closed on public holidays, but the pool is not heated."
    ]
    opens = scorer.support("Yes.", context, question="Does the gym open at 06:30 on weekdays?")
    holidays = scorer.support("No.", context, question="Is the gym open on public holidays?")
    heated = scorer.support("Yes.", context, question="Is the pool heated?")
    assert opens.probability >= opens.cut and not opens.sentences[0].negation_flip
    assert holidays.probability >= holidays.cut
    assert heated.sentences[0].negation_flip


# -- awkward text never breaks the judge -------------------------------------------------------

AWKWARD_PIECES = [
    "The",
    "It’s",
    "²",
    "5²",
    "8",
    "am",
    "pm",
    "a.m.",
    "08:00",
    "25:99",
    "twice",
    "two",
    "hundred",
    "twenty",
    "five",
    "not",
    "closed",
    "open",
    "enabled",
    "disabled",
    "monthly",
    "yearly",
    "Walk-ins",
    "Bahamas",
    "Bahamian",
    "by",
    "Daniel",
    "Price",
    "Teresa",
    "Molina",
    "directed",
    "in",
    "2018",
    "seats",
    "“Q”",
    "‘x’",
    "(",
    "EU",
    "European",
    "Union",
    "Dr.",
    "O’Neil’s",
    "non",
    "un",
    "available",
    "unavailable",
    "!",
    "?",
    ";",
    ",",
    ".",
    "—",
    "İstanbul",
    "ﬁ",
    "١٢:٣٠",
    "½",
    "Ⅻ",
]


def test_awkward_text_gets_a_probability_and_never_an_exception(scorer: LocalScorer) -> None:
    import math
    import random

    rng = random.Random(7)

    def text(n: int) -> str:
        return " ".join(rng.choice(AWKWARD_PIECES) for _ in range(n))

    for _ in range(300):
        contexts = [
            f"{text(rng.randint(1, 30))}. {text(rng.randint(1, 20))}." for _ in range(rng.randint(1, 3))
        ]
        answer = text(rng.randint(1, 15))
        question = rng.choice([None, text(5) + "?", "Who directed the film?", "Is it open on Mondays?"])
        report = scorer.support(answer, contexts, question=question)
        assert math.isfinite(report.probability) and 0.0 <= report.probability <= 1.0
        claims = HANDLERS["faithfulness.claims.extract"](
            scorer, {"text": answer, "question": question or "", "contexts": contexts}
        )["claims"]
        verdicts = HANDLERS["faithfulness.claims.verify"](
            scorer, {"claims": claims, "contexts": contexts, "question": question, "answer": answer}
        )["verdicts"]
        assert len(verdicts) == len(claims)
