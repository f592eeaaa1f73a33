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
