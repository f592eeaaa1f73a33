"""pytest-xdist: two workers share one judgment cache and the controller prints one summary of all checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply

SEVEN_CHECKS = """
import os
import pytest

@pytest.mark.parametrize(("index", "score"), enumerate([1, 2, 3, 4, 5, 5, 0]))
def test_check(rag_judge, index, score):
    rag_judge.assert_faithful(f"The answer scores {score}.", [f"context {index}"])
"""


def first_user_message(request: RecordedRequest) -> str:
    return str(next(m["content"] for m in request.json_body["messages"] if m["role"] == "user"))


def by_answer(request: RecordedRequest) -> Reply:
    """Score = the number in the answer; 0 gets unusable text, for the request and its repair."""
    score = int(re.search(r"scores (\d)", first_user_message(request)).group(1))  # type: ignore[union-attr]
    if score == 0:
        return Reply.text("no verdict")
    return Reply.json({"reasoning": "as asked", "unsupported_statements": [], "score": score})


def summary_block(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    starts = [i for i, ln in enumerate(lines) if "pytest-rag summary" in ln]
    assert len(starts) == 1, "exactly one summary, printed by the controller"
    return lines[starts[0] + 1 : starts[0] + 6]


def test_two_workers_share_one_cache_and_one_summary(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.responder = by_answer
    pytester.makepyfile(SEVEN_CHECKS)
    args = ["-n", "2", "-p", "no:syrupy", "-p", "no:anyio", *rag_args(fake_llm, tmp_path / "shared-cache")]
    first = pytester.runpytest_subprocess(*args)
    first.assert_outcomes(passed=3, failed=3, errors=1)  # scores 1, 2, 3 fail; the judge error is an error
    assert fake_llm.request_count == 8  # six verdicts, one unusable reply and its repair
    block = summary_block(first)
    row = r"faithfulness\s+openai:fake-gpt\s+1-5\s+6\s+3\.33\s+\[\d\.\d\d, \d\.\d\d\]\s+50% \(3/6\)\s+1$"
    assert re.match(row, block[1]), block
    assert block[3].startswith("judge calls: 8 live, 0 cached"), block
    assert block[4].startswith("judge errors: 1 (1 JudgeError)"), block

    second = pytester.runpytest_subprocess(*args)
    second.assert_outcomes(passed=3, failed=3, errors=1)
    assert fake_llm.request_count == 10  # only the judge error is asked again: errors are never stored
    again = summary_block(second)
    assert again[1] == block[1]  # identical n, mean, interval and pass rate
    assert again[3].startswith("judge calls: 2 live, 6 cached"), again
