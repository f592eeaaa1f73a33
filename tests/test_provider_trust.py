"""What a run says when a provider judge gives no verdict: never green, never silent, never vague.

Each test plays one failure of a provider judge to a small suite through ``pytest`` (the fake server
speaks the OpenAI and Anthropic wire formats) and reads what the user reads: the failure report, the
summary and the results file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, Reply

TWO_CHECKS = """
def test_first(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds are processed within five days."])

def test_second(rag_judge):
    rag_judge.assert_faithful("Shipping is free.", ["Shipping costs nothing."])
"""


def checks(report: Path) -> list[dict[str, Any]]:
    return list(json.loads(report.read_text())["checks"])


@pytest.mark.parametrize("judge", ["openai:no-such-model", "anthropic:no-such-model"])
def test_an_unknown_model_makes_the_judge_unavailable_naming_the_model_and_the_fix(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, judge: str
) -> None:
    """A 404 to a judgment request is the same answer for every request of the run: the first check
    says which model was not found and how to name one, the others point at it, and no request is
    sent after the first."""
    fake_llm.responder = lambda request: Reply.status(404, body={"error": {"message": "Not found"}})
    pytester.makepyfile(TWO_CHECKS)
    report = tmp_path / "results.json"
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "cache", f"--rag-report={report}", judge=judge)
    )
    result.assert_outcomes(errors=2)
    output = result.stdout.str()
    assert "JudgeUnavailableError" in output
    assert "the model 'no-such-model' was not found" in output
    assert f"as {judge.partition(':')[0]}:MODEL in --rag-judge" in output
    assert "see the first failing check of it, test_" in output
    assert fake_llm.request_count == 1
    first, second = checks(report)
    assert first["failures"] == {"unavailable": 1} and first["passed"] is None
    assert second["passed"] is None and second["error"]
