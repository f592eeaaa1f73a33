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


ONE_CHECK = """
def test_grounded(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds are processed within five days."])
"""


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("reply", ["refusal", "empty text"])
def test_a_failure_report_never_shows_an_empty_raw_reply_block(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, provider: str, reply: str
) -> None:
    """OpenAI sends a refusal in its own field with no content, Anthropic as a ``refusal`` stop: the
    report shows what the judge said, and a reply with nothing in it gets no block at all."""
    refusal = "I must decline to grade this answer."
    fake_llm.responder = lambda request: Reply.refusal(refusal) if reply == "refusal" else Reply.text("")
    pytester.makepyfile(ONE_CHECK)
    report = tmp_path / "results.json"
    args = rag_args(fake_llm, tmp_path / "cache", f"--rag-report={report}", judge=f"{provider}:m")
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    lines = [line.removeprefix("E").strip() for line in result.stdout.lines]
    for at, line in enumerate(lines):
        if line == "--- raw judge reply ---":
            assert lines[at + 1] not in ("", "--- end of reply ---"), output
    (check,) = checks(report)
    if reply == "refusal":
        assert f"the judge refused: {refusal}" in output
        assert check["evidence"].get("raw_reply", refusal) == refusal
    else:
        assert "--- raw judge reply ---" not in output
