"""The offline judge's round-3 checks, on sentences written for these tests (not the probe files):
name and date forms, framing sentences, short answers read with their question, added content and
swapped nouns."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from pytest_rag.inputs import Sample, normalize_contexts
from pytest_rag.judges.local import normalise
from pytest_rag.judges.local.framing import is_framing, strip_framing
from pytest_rag.judges.local.normalise import NameFormsError, forms, name_forms
from pytest_rag.judges.local.question import question_claim
from pytest_rag.judges.local.scorer import EDIT_CAP, GroundingReport, LocalScorer, SentenceSupport
from pytest_rag.judges.local.tasks import HANDLERS, grade_fraction
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.grounding import Faithfulness, FaithfulnessVerdict


@pytest.fixture(scope="module")
def scorer() -> LocalScorer:
    return LocalScorer.load()


# -- name and date forms -----------------------------------------------------------------------

ORCHARD = [
    "The Kessler orchard was planted on February 3, 1952 by the Austrian botanist Greta Lindqvist. "
    "Its cider press, built in Belgium, is used on the second Saturday of every month."
]


@pytest.mark.parametrize(
    "answer",
    [
        "The orchard was planted by a botanist from Austria.",  # demonym -> country
        "The orchard was planted on Feb 3, 1952.",  # month abbreviation
        "The cider press is used on the 2nd Sat of every month.",  # ordinal digits, weekday abbreviation
        "G. Lindqvist planted the Kessler orchard.",  # an initial
        "Lindqvist's orchard was planted in 1952.",  # possessive
        "The orchard's cider press is Belgian-built.",  # hyphenated demonym compound
    ],
)
def test_faithful_name_and_date_forms_are_not_unbacked(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, ORCHARD).sentences[0]
    assert sentence.unsupported_names == ()
    assert sentence.unsupported_numbers == ()


def test_a_different_place_or_month_is_still_unbacked(scorer: LocalScorer) -> None:
    assert (
        scorer.support("The orchard was planted by a Swedish botanist.", ORCHARD)
        .sentences[0]
        .unsupported_names
    )
    assert scorer.support("The orchard was planted on Apr 3, 1952.", ORCHARD).sentences[0].unsupported_names
    assert scorer.support("The press is used on the 4th Saturday.", ORCHARD).sentences[0].unsupported_numbers


def test_name_forms_table_reads_both_directions() -> None:
    table = name_forms()
    assert "place:peru" in forms("Peruvian") and "place:peru" in forms("peru")
    assert table.abbreviations["oct"] == "october"
    assert "7" in forms("seventh")


ISLAND = ["The dive resort is on an island in the Bahamas. Its pearl farm was bought from the Gambia."]


def test_a_place_named_with_the_article_backs_its_demonym_and_bare_name(scorer: LocalScorer) -> None:
    for answer in ("The Bahamian dive resort is on an island.", "The pearl farm was bought from Gambia."):
        assert scorer.support(answer, ISLAND).sentences[0].unsupported_names == ()
    assert "place:bahamas" in forms("Bahamas") and "place:bahamas" in forms("Bahamian")
    other = scorer.support("The Cuban dive resort is on an island.", ISLAND).sentences[0]
    assert other.unsupported_names == ("Cuban",)


ROUTER = [
    "The Atlas 3 router supports Wi-Fi 6 and has four Ethernet ports. To reset it, hold the reset "
    "button for 10 seconds. Support is open from 08:00 to 18:00, and updates run at 3 a.m."
]


@pytest.mark.parametrize(
    "answer",
    [
        "The Atlas 3 has 4 Ethernet ports.",  # digits for a spelled number
        "Hold the reset button for ten seconds.",  # a spelled number for digits
        "Support is open from 8am to 6pm.",  # a clock time in another form
        "Updates run at 03:00.",
    ],
)
def test_a_number_or_time_in_another_form_is_backed(scorer: LocalScorer, answer: str) -> None:
    sentence = scorer.support(answer, ROUTER).sentences[0]
    assert sentence.unsupported_numbers == () and not sentence.swapped_words and not sentence.added_words
    assert sentence.probability > 0.5


@pytest.mark.parametrize(
    ("answer", "number"),
    [
        ("The Atlas 3 has two Ethernet ports.", "2"),  # spelled out, and wrong
        ("Hold the reset button for twelve seconds.", "12"),
        ("Support is open from 7am to 6pm.", "7"),
    ],
)
def test_a_different_number_spelled_out_or_as_a_time_is_unbacked(
    scorer: LocalScorer, answer: str, number: str
) -> None:
    sentence = scorer.support(answer, ROUTER).sentences[0]
    assert number in sentence.unsupported_numbers and sentence.probability <= EDIT_CAP


LIBRARY = [
    "Members can renew a loan twice. The reading room was renovated in 2018 and seats 80 people. "
    "Online booking opens 14 days before a workshop and closes one day before."
]


@pytest.mark.parametrize(
    "answer",
    [
        "Members can renew a loan two times.",  # "twice" is 2
        "The reading room has 80 seats.",  # the year before "seats" counts nothing
        "Online booking closes a day before the workshop.",  # the span states both opens and closes
    ],
)
def test_multiplicatives_years_and_a_span_stating_both_opposites_raise_no_alarm(
    scorer: LocalScorer, answer: str
) -> None:
    sentence = scorer.support(answer, LIBRARY).sentences[0]
    assert sentence.unsupported_numbers == () and not sentence.swapped_words
    assert sentence.probability > 0.5


def test_digits_that_are_no_decimal_number_are_no_time(scorer: LocalScorer) -> None:
    # "²" is a digit to str.isdigit() but no number to int(): read it as a time and the judge fails
    report = scorer.support("The grid has 3² cells and opens at 9 am.", ["The 3² cell grid opens at 09:00."])
    assert report.sentences[0].unsupported_numbers == ()


def test_clock_times_and_spelled_numbers_are_read_with_their_neighbours() -> None:
    from pytest_rag.judges.local.numbers import clock_times, spelled_numbers
    from pytest_rag.scoring.text import tokenize

    assert list(clock_times(tokenize("from 8am to 6 p.m., or 08:30 and 18:00 (not 8 alone)")).values()) == [
        "8:00",
        "18:00",
        "8:30",
        "18:00",
    ]
    assert clock_times(tokenize("at 13 pm or 25:00")) == {}
    # part of a larger number, or a pronoun: not read as a number on its own
    assert spelled_numbers(tokenize("twenty five of them, two hundred, the one that")) == {}
    assert spelled_numbers(tokenize("it has four ports")) == {2: "4"}


# -- framing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "Here is a brief overview of the report.",
        "Below is the answer based on the documents.",
        "The article describes three separate shipwrecks.",
        "According to the provided context, here is what I found.",
        "Certainly!",
    ],
)
def test_framing_sentences_are_recognised(sentence: str) -> None:
    assert is_framing(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The article describes how the ship sank in 1907 off the coast.",
        "Here the river turns north towards the old mill.",
        "The report was published by the harbour authority.",
    ],
)
def test_statements_are_not_framing(sentence: str) -> None:
    assert not is_framing(sentence)


def test_a_framing_lead_in_is_cut_and_the_claim_kept(scorer: LocalScorer) -> None:
    assert strip_framing("Here is the short answer: the press is Belgian.") == "the press is Belgian."
    framed = scorer.support(
        "Here is a concise summary of the text. The cider press was built in Belgium.", ORCHARD
    )
    assert [s.sentence for s in framed.sentences] == ["The cider press was built in Belgium."]
    assert framed.probability > 0.5


# -- short answers with their question ---------------------------------------------------------

LOCKERS = [
    "Lockers at Pine Street Pool can be rented for 2 pounds per day. The sauna is closed on Sundays. "
    "Mara Quist manages the pool, and her deputy, Tomas Brandt, runs the swimming lessons."
]


def test_yes_and_no_become_the_claim_they_make() -> None:
    made = question_claim("No.", "Is the sauna open on Sundays?", LOCKERS)
    assert made is not None and made.negated
    assert made.claim == "the sauna is not open on Sundays."
    assert question_claim("Yes, you can.", "Can lockers be rented?", LOCKERS) is not None
    assert question_claim("The sauna is closed on Sundays.", "Is the sauna open on Sundays?", LOCKERS) is None
    assert question_claim("No.", "Who runs the swimming lessons?", LOCKERS) is None  # not an entity


def test_yes_no_answers_are_judged_against_the_sentence_that_answers_them(scorer: LocalScorer) -> None:
    right_no = scorer.support("No.", LOCKERS, question="Is the sauna open on Sundays?")
    wrong_no = scorer.support("No.", LOCKERS, question="Can lockers be rented at Pine Street Pool?")
    right_yes = scorer.support("Yes.", LOCKERS, question="Can lockers be rented at Pine Street Pool?")
    without_question = scorer.support("Yes.", LOCKERS)
    assert right_no.probability > 0.5 and right_yes.probability > 0.5
    assert wrong_no.sentences[0].probability <= EDIT_CAP and wrong_no.sentences[0].negation_flip
    assert wrong_no.probability < wrong_no.cut
    assert without_question.probability < 0.5  # a bare "yes" matches nothing on its own


CAMPSITE = [
    "The Tarn Valley campsite is not closed in winter. Fires are permitted only in the stone pits. "
    "The shop is open on weekdays and closed on Sundays."
]


@pytest.mark.parametrize(
    ("question", "right", "wrong"),
    [
        ("Is the campsite open in winter?", "Yes.", "No."),  # "not closed" states "open"
        ("Are fires banned in the stone pits?", "No.", "Yes."),  # "permitted" states "not banned"
    ],
)
def test_a_word_stated_as_its_opposite_decides_a_yes_or_no(
    scorer: LocalScorer, question: str, right: str, wrong: str
) -> None:
    backed = scorer.support(right, CAMPSITE, question=question)
    contradicted = scorer.support(wrong, CAMPSITE, question=question)
    assert backed.probability >= backed.cut and not backed.sentences[0].negation_flip
    assert contradicted.sentences[0].negation_flip and contradicted.probability < contradicted.cut
    assert "negation reversed" in contradicted.sentences[0].explain()


def test_a_clause_stating_a_word_and_its_opposite_decides_nothing(scorer: LocalScorer) -> None:
    for answer in ("Yes.", "No."):  # "open on weekdays and closed on Sundays": no flag either way
        found = scorer.support(answer, CAMPSITE, question="Is the shop open on Sundays?")
        assert not found.sentences[0].negation_flip


def test_a_lone_entity_must_fill_the_questions_slot(scorer: LocalScorer) -> None:
    question = "Who runs the swimming lessons?"
    right = scorer.support("Tomas Brandt.", LOCKERS, question=question)
    wrong = scorer.support("Mara Quist.", LOCKERS, question=question)
    assert right.probability > 0.5
    assert wrong.sentences[0].wrong_slot and wrong.sentences[0].probability <= EDIT_CAP
    assert wrong.probability < wrong.cut
    assert "something else" in wrong.sentences[0].explain()


def test_faithfulness_carries_the_question_to_the_offline_judge_only() -> None:
    captured: list[JudgeRequest] = []

    class Ask:
        judge_label = "capture"

        async def __call__(self, request: JudgeRequest, model: type[Any]) -> Any:
            captured.append(request)
            return FaithfulnessVerdict(reasoning="ok", unsupported_statements=[], score=5)

    metric = Faithfulness()
    contexts = normalize_contexts(LOCKERS)
    base = Sample(question="", answer="No.", contexts=contexts)
    asked = Sample(question="Is the sauna open on Sundays?", answer="No.", contexts=contexts)
    for sample in (base, asked):
        asyncio.run(metric.score(Ask(), sample, {}))  # type: ignore[arg-type]
    plain, with_question = captured
    assert "question" not in plain.task.inputs
    assert with_question.task.inputs["question"] == "Is the sauna open on Sundays?"
    assert plain.messages == with_question.messages  # LLM prompts (and so cache keys) unchanged
    verdict = HANDLERS["faithfulness.single"](LocalScorer.load(), with_question.task.inputs)
    assert verdict["score"] >= 4


def test_claims_extraction_reads_a_bare_answer_with_its_question(scorer: LocalScorer) -> None:
    inputs = {"text": "No.", "question": "Is the sauna open on Sundays?"}
    assert HANDLERS["faithfulness.claims.extract"](scorer, inputs) == {
        "claims": ["the sauna is not open on Sundays."]
    }
    assert HANDLERS["faithfulness.claims.extract"](scorer, {"text": "Sure! Lockers cost 2 pounds."}) == {
        "claims": ["Lockers cost 2 pounds."]
    }


def test_question_must_be_text(scorer: LocalScorer) -> None:
    with pytest.raises(TypeError, match="question must be a str"):
        scorer.support("Yes.", LOCKERS, question=3)  # type: ignore[arg-type]


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

    monkeypatch.setattr(normalise.resources, "files", lambda package: Broken())
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
