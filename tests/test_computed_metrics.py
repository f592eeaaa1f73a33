"""A metric computed from its inputs (passage recall, lexical consistency) asks no judge, and no
summary row, failure message or report says that one gave it a verdict.

``passage_recall`` used to read "judge: local (live verdict)" in its failure, and its summary row
and report named the run's judge; under an ensemble with repeats it was computed once per member
and repeat, and listed under each member.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag.report.html.payload import SOURCE_COMPUTED, build_payload
from pytest_rag.results import COMPUTED, CallTally, CheckRecord

SUITE = """
def test_retrieval(rag_judge):
    rag_judge.assert_passages_retrieved(
        ["Refunds take five days."],
        expected=[{"text": "Shipping is free for orders over fifty euros in Portugal."}],
        threshold=0.5,
    )

def test_same_words(rag_judge):
    rag_judge.consistency(["Refunds take five days.", "Refunds take five days."], mode="lexical")
"""


@pytest.mark.parametrize("judge", ["local", "openai:fake-a,openai:fake-b"])
def test_computed_checks_name_no_judge_anywhere(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, judge: str
) -> None:
    pytester.makepyfile(test_computed=SUITE)
    report = pytester.path / "results.json"
    result = pytester.runpytest(
        *rag_args(
            fake_llm, pytester.path / "cache", "--rag-judge-repeat=2", f"--rag-report={report}", judge=judge
        )
    )
    result.assert_outcomes(failed=1, passed=1)
    output = result.stdout.str()
    assert fake_llm.request_count == 0
    assert "E         computed from the inputs: no judge was asked" in output
    assert "live verdict" not in output and "judge: local" not in output
    summary = output.split("pytest-rag summary")[1]
    assert re.search(r"^passage_recall\s+computed\s+0-1\s+1\s", summary, re.M), summary
    assert re.search(r"^consistency\[lexical\]\s+computed\s", summary, re.M), summary
    assert "fake-a" not in summary and "local" not in summary  # no member rows, no judge named
    rows = json.loads(report.read_text())["checks"]
    assert {row["judge"] for row in rows} == {COMPUTED}
    assert all(
        list(row["judge_scores"]) == [COMPUTED] and len(row["judge_scores"][COMPUTED]) == 1 for row in rows
    )


def test_the_report_calls_a_check_without_calls_computed() -> None:
    scored = CheckRecord(
        test_id="t.py::a", metric="passage_recall", judge=COMPUTED, score=0.0, scale_low=0, scale_high=1
    )
    failed = CheckRecord(
        test_id="t.py::b", metric="faithfulness", judge="local", error="x", calls=CallTally()
    )
    columns = build_payload([scored, failed], detail_budget=100_000)["checks"]
    assert columns["source"][0] == SOURCE_COMPUTED
    assert columns["source"][1] != SOURCE_COMPUTED  # an error made no call, and computed nothing
