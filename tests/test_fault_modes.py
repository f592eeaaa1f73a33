"""Every way a judge server can fail, on both providers' wire formats, through the real SDKs.

Each fault is played by the fake server to a small judged suite, then the suite runs again with the
fault gone. Whatever the fault, the bar is the same: no assertion passes on it (unless the fault
passes and a retry recovers), no score is NaN, the failure is counted in the summary and in the
results file, nothing bad is cached (the rerun asks the judge again), and no API key shows up in
the output, the results file, the HTML report or the cache.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import ANTHROPIC_KEY, OPENAI_KEY, rag_args, verdict
from fake_llm import FakeLLMServer, RecordedRequest, Reply

JUDGES = {"openai": "openai:fake-gpt", "anthropic": "anthropic:fake-claude"}

SUITE = """
def test_grounded(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds are processed within five days."])
"""

BIG = "x" * 4_000_000
KEYS = (OPENAI_KEY, ANTHROPIC_KEY)


def valid(score: int, **fields: Any) -> dict[str, Any]:
    return {"reasoning": "r", "unsupported_statements": [], "score": score, **fields}


@dataclass(frozen=True)
class Fault:
    """What the server does: ``first`` replies in order, then ``always`` for every later request."""

    first: tuple[Reply, ...] = ()
    always: Callable[[], Reply] | None = None
    kind: str | None = None  # the failure kind the summary must count; None: the run recovers
    timeout_s: float = 0.5  # --rag-timeout: short, so that a hang is told in a test's time

    @property
    def recovers(self) -> bool:
        return self.kind is None


def echo_key(status: int) -> Callable[[], Reply]:
    """An error body that repeats the request's credentials back, as some proxies do."""
    message = f"bad request with key {OPENAI_KEY} / {ANTHROPIC_KEY}"
    return lambda: Reply.status(status, body={"error": {"message": message, "type": "x"}})


FAULTS: dict[str, Fault] = {
    "429 with Retry-After, then success": Fault(first=(Reply.status(429, retry_after=0.05), verdict(5))),
    "429 forever": Fault(always=lambda: Reply.status(429, retry_after=0.05), kind="rate limit"),
    "500 forever": Fault(always=lambda: Reply.status(500), kind="server error"),
    "503, then success": Fault(first=(Reply.status(503), verdict(5))),
    "hang past the timeout": Fault(always=lambda: Reply.delay(3, verdict(5)), kind="timeout"),
    "reset mid-body": Fault(
        always=lambda: Reply.cut('{"id": "x", "choices": [{"message": {"content": "{\\"score\\": 5'),
        kind="connection",
    ),
    "close without a reply": Fault(always=Reply.reset, kind="connection"),
    "non-JSON 200": Fault(
        always=lambda: Reply.raw("<html><body><h1>502 Bad Gateway</h1></body></html>"), kind="unreadable"
    ),
    "truncated JSON body": Fault(
        always=lambda: Reply.raw('{"id": "msg_1", "choices": [{"mess', content_type="application/json"),
        kind="unreadable",
    ),
    "empty content": Fault(always=lambda: Reply.text(""), kind="invalid"),
    "refusal in the text": Fault(always=lambda: Reply.text("I can't help with that."), kind="refused"),
    "refusal field": Fault(always=lambda: Reply.refusal("I must decline this request."), kind="refused"),
    "wrong schema": Fault(always=lambda: Reply.json({"verdict": "yes", "confidence": 0.9}), kind="invalid"),
    "score out of range": Fault(always=lambda: Reply.json(valid(9)), kind="invalid"),
    "NaN score": Fault(
        always=lambda: Reply.text('{"reasoning": "r", "unsupported_statements": [], "score": NaN}'),
        kind="invalid",
    ),
    "valid JSON with trailing text": Fault(
        always=lambda: Reply.text(json.dumps(valid(1)) + ' Hope this helps! {"score": 5}'), kind="invalid"
    ),
    "4 MB strings": Fault(
        always=lambda: Reply.json(valid(5, reasoning=BIG, unsupported_statements=[BIG])),
        kind="too large",
        timeout_s=10.0,  # reading 4 MB is not a hang: on a loaded machine it took over 0.5 s
    ),
    "finish_reason=length": Fault(
        always=lambda: Reply.truncated('{"reasoning": "The answer'), kind="cut off"
    ),
    "401 echoing the key": Fault(always=echo_key(401), kind="unavailable"),
    "500 echoing the key": Fault(always=echo_key(500), kind="server error"),
}


class Script:
    """The fault's replies in order, then its standing reply (or, with the fault off, a pass)."""

    def __init__(self, fault: Fault) -> None:
        self.pending = list(fault.first)
        self.always = fault.always
        self.off = False

    def __call__(self, request: RecordedRequest) -> Reply:
        if self.off:
            return verdict(5)
        if self.pending:
            return self.pending.pop(0)
        if self.always is not None:
            return self.always()
        return verdict(5)


def no_nan(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in the results file")

    return json.loads(text, parse_constant=refuse)


def leaked(paths: list[Path], *texts: str) -> list[str]:
    """Where a key appears: in any of the texts, or in the bytes of any file under the paths."""
    found = [f"output {i}" for i, text in enumerate(texts) for key in KEYS if key in text]
    for root in paths:
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
        for file in files:
            data = file.read_bytes()
            found += [str(file) for key in KEYS if key.encode() in data]
    return found


@pytest.mark.parametrize("provider", sorted(JUDGES))
@pytest.mark.parametrize("name", list(FAULTS))
def test_a_judge_fault_never_passes_is_counted_and_leaves_nothing_behind(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    judge_env: None,
    tmp_path: Path,
    name: str,
    provider: str,
) -> None:
    fault = FAULTS[name]
    script = Script(fault)
    fake_llm.responder = script
    pytester.makepyfile(SUITE)
    cache, report, html = tmp_path / "cache", tmp_path / "results.json", tmp_path / "report.html"
    args = rag_args(
        fake_llm,
        cache,
        f"--rag-report={report}",
        f"--rag-html={html}",
        f"--rag-timeout={fault.timeout_s}",
        "--rag-max-attempts=2",
        judge=JUDGES[provider],
    )
    result = pytester.runpytest(*args)
    output = result.stdout.str() + result.stderr.str()
    data = no_nan(report.read_text())
    (check,) = data["checks"]
    (aggregate,) = data["aggregates"]
    assert not math.isnan(check["score"] if check["score"] is not None else 0.0)

    if fault.recovers:
        result.assert_outcomes(passed=1)
        assert check["passed"] is True and check["retries"] == 1
        assert "requests: 2 sent, 1 failed" in output and "1 retried" in output
    else:
        result.assert_outcomes(errors=1)
        assert check["passed"] is not True and check["error"] and check["score"] is None
        assert aggregate["errors"] == 1 and aggregate["n"] == 0
        assert check["failures"].get(fault.kind, 0) >= 1, check["failures"]
        assert (
            f"({check['failures'][fault.kind]} {fault.kind}" in output
            or f", {check['failures'][fault.kind]} {fault.kind}" in output
        )
        assert (
            "judge errors: 1 (1 JudgeError" in output or "judge errors: 1 (1 JudgeUnavailableError" in output
        )
        # a reply that cannot be kept is not kept: the failure carries at most a capped excerpt
        assert len(check["error"]) < 10_000
        if fault.kind == "unavailable":
            assert fake_llm.request_count == 1  # hopeless: not retried
    assert html.exists() and len(html.read_bytes()) < 2_000_000
    assert report.stat().st_size < 100_000
    assert leaked([cache, report, html], output) == []

    # the fault is gone: a bad reply that had been cached would be replayed now instead of asking
    asked_before = fake_llm.request_count
    script.off = True
    again = pytester.runpytest(*args)
    again.assert_outcomes(passed=1)
    if fault.recovers:
        assert fake_llm.request_count == asked_before  # the good verdict was cached
    else:
        assert fake_llm.request_count == asked_before + 1
    assert leaked([cache], again.stdout.str()) == []


def test_a_reply_under_the_size_limit_is_kept_but_cut_in_every_record(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, judge_env: None, tmp_path: Path
) -> None:
    """A valid verdict with long strings (180,000 characters in all, under the reply limit) is
    judged, and the results file, the HTML report and the failure message each keep a marked excerpt."""
    long = "unsupported claim " * 5_000
    statement = "a statement of a thousand characters " * 27
    fake_llm.script(Reply.json(valid(2, reasoning=long, unsupported_statements=[statement] * 80)))
    pytester.makepyfile(SUITE)
    report, html = tmp_path / "results.json", tmp_path / "report.html"
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "c", f"--rag-report={report}", f"--rag-html={html}")
    )
    result.assert_outcomes(failed=1)
    (check,) = json.loads(report.read_text())["checks"]
    assert check["score"] == 2
    assert check["reasons"].endswith(f"...[cut: {len(long) - 2000:,} more characters of {len(long):,}]")
    statements = check["evidence"]["unsupported_statements"]
    assert len(statements) == 51 and statements[-1] == "...[cut: 30 more items]"
    assert all(len(s) < 600 for s in statements)
    assert report.stat().st_size < 100_000 and html.stat().st_size < 2_000_000
    assert len(result.stdout.str()) < 60_000
    result.stdout.fnmatch_lines(["E*reasons: unsupported claim*...[[]cut: * more characters of *[]]"])
