"""The offline judge's round-3 checks, on sentences written for these tests (not the probe files):
name and date forms, framing sentences, and short answers read with their question (the checks on
edits are in test_offline_round3_edits.py)."""

from __future__ import annotations

import asyncio

import pytest

from pytest_rag.inputs import Sample, normalize_contexts
from pytest_rag.judges.local.framing import is_framing, strip_framing
from pytest_rag.judges.local.normalise import forms, name_forms
from pytest_rag.judges.local.question import question_claim
from pytest_rag.judges.local.scorer import EDIT_CAP, LocalScorer
from pytest_rag.judges.local.tasks import HANDLERS
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.grounding import Faithfulness
from stand_in_asker import StandInAsker, V

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


def test_a_short_answer_that_restates_the_question_is_not_a_lone_entity(scorer: LocalScorer) -> None:
    # "Lockers cost 2 pounds" holds "locker" and "cost" of the question: it states its own claim,
    # and must not be glued after the question's words ("lockers cost Lockers cost 2 pounds")
    question = "How much do lockers cost?"
    assert question_claim("Lockers cost 2 pounds.", question, LOCKERS) is None
    made = question_claim("2 pounds.", question, LOCKERS)
    assert made is not None and made.entity == "2 pounds"
    report = scorer.support("Lockers cost 2 pounds.", LOCKERS, question=question)
    assert report.sentences[0].sentence == "Lockers cost 2 pounds."


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


def test_faithfulness_carries_the_question_to_the_offline_judge_and_the_prompt() -> None:
    class Ask(StandInAsker):
        def answer(self, request: JudgeRequest, model: type[V]) -> V:
            return model.model_validate({"reasoning": "ok", "unsupported_statements": [], "score": 5})

    ask = Ask()
    metric = Faithfulness()
    contexts = normalize_contexts(LOCKERS)
    base = Sample(question="", answer="No.", contexts=contexts)
    asked = Sample(question="Is the sauna open on Sundays?", answer="No.", contexts=contexts)
    for sample in (base, asked):
        asyncio.run(metric.score(ask, sample, {}))
    plain, with_question = ask.requests
    assert "question" not in plain.task.inputs
    assert with_question.task.inputs["question"] == "Is the sauna open on Sundays?"
    # LLM judges see it too, as a block before the contexts, under instructions that say what for
    assert plain.messages[0] == with_question.messages[0]
    assert with_question.messages[1].content == (
        "<question>\nIs the sauna open on Sundays?\n</question>\n\n" + plain.messages[1].content
    )
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
