"""The getting-started example, run as a user would run it: default (offline) judge, default
thresholds, in a fresh pytest session."""

from __future__ import annotations

from pathlib import Path

import pytest

GETTING_STARTED = """
def test_refund_answer(rag_judge):
    contexts = ["Refunds are processed within 5 business days of approval."]
    answer = "You get your refund within 5 business days once it is approved."
    rag_judge.assert_faithful(answer, contexts)              # default threshold 4
    rag_judge.assert_relevant(answer, "How long do refunds take?")
    rag_judge.assert_context_recall(answer, "Refunds take 5 business days.")


def test_changed_number_is_caught(rag_judge):
    contexts = ["Refunds are processed within 5 business days of approval."]
    rag_judge.assert_faithful("You get your refund within 30 business days once it is approved.", contexts)
"""


def test_getting_started_example_passes_with_the_default_judge(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_example=GETTING_STARTED)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'cache'}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_changed_number_is_caught*", "*numbers not in the contexts: 30*"])
