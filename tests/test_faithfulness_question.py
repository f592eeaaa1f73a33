"""``faithfulness(..., question=...)`` and an ``assert_rag`` sample's question reach the offline judge."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_a_bare_answer_is_judged_with_its_question(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        CONTEXT = ["The ferry to Inish More leaves at 09:15. Dogs are not allowed on board, but bicycles travel free."]

        def test_no_with_its_question_passes(rag_judge):
            rag_judge.assert_faithful("No.", CONTEXT, question="Are dogs allowed on board?")

        def test_a_wrong_yes_with_its_question_fails(rag_judge):
            rag_judge.assert_faithful("Yes.", CONTEXT, question="Are dogs allowed on board?")

        def test_assert_rag_reads_the_sample_question(rag_judge):
            sample = {"question": "Do bicycles travel free on the ferry?", "answer": "Yes.", "contexts": CONTEXT}
            rag_judge.assert_rag(sample, faithfulness=4)

        def test_without_the_question_a_bare_yes_claims_nothing_checkable(rag_judge):
            result = rag_judge.faithfulness("Yes.", CONTEXT)
            assert result.score < 4
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*test_a_wrong_yes_with_its_question_fails*"])


def test_claims_mode_checks_a_short_answer_against_the_sentence_that_answers_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        CONTEXT = [
            "The Orvel Library lends laptops for up to 7 days. The reading room is closed on Mondays. "
            "Petra Holm directs the library, and her assistant, Jonas Ek, runs the children's story hour."
        ]
        STORY = "Who runs the children's story hour?"
        MONDAYS = "Is the reading room open on Mondays?"

        def test_the_name_the_context_gives_for_the_slot(rag_judge):
            rag_judge.assert_faithful_claims("Jonas Ek.", CONTEXT, question=STORY)

        def test_another_name_of_the_same_sentence(rag_judge):
            rag_judge.assert_faithful_claims("Petra Holm.", CONTEXT, question=STORY)

        def test_a_no_backed_by_the_opposite_word(rag_judge):
            result = rag_judge.faithfulness_claims("No.", CONTEXT, question=MONDAYS)
            (claim,) = result.evidence.claims
            assert claim.claim == "the reading room is not open on Mondays."
            assert claim.supported and "negation differs" not in claim.reason
            assert result.passed

        def test_a_yes_the_opposite_word_contradicts(rag_judge):
            rag_judge.assert_faithful_claims("Yes.", CONTEXT, question=MONDAYS)

        def test_the_single_mode_agrees(rag_judge):
            assert rag_judge.faithfulness("Yes.", CONTEXT, question=MONDAYS).score < 4
            assert rag_judge.faithfulness("Petra Holm.", CONTEXT, question=STORY).score < 4
            assert rag_judge.faithfulness("Jonas Ek.", CONTEXT, question=STORY).score >= 4
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            "FAILED*test_another_name_of_the_same_sentence*",
            "FAILED*test_a_yes_the_opposite_word_contradicts*",
        ]
    )
    result.stdout.fnmatch_lines(["*answers the question with a name the contexts give for something else*"])
    result.stdout.fnmatch_lines(["*restates a context sentence with the negation reversed*"])
