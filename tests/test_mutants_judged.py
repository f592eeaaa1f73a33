"""``--rag-mutants`` with an LLM judge on the fake server: a mutant's judge error is counted apart and
fails no test, ``--rag-dry-run`` counts the mutants' requests and price, and ``--rag-batch`` queues
them and judges them from the batch a later run collects.

The fake judge gives the suite's own answer a 5 and any other answer a 1, so every mutant it judges
is caught; in the first test, the mutant with a claim joined on gets a reply that is no verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from batch_support import judge_calls, run
from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply, schema_responder
from fake_llm.replies import JsonReply
from fake_llm.wire import collect_text

pytest_plugins = ["pytester"]

ANSWER = "Refunds take five business days."
SUITE = f"""
def test_refunds(rag_judge):
    rag_judge.assert_faithful("{ANSWER}", ["Refunds take five business days from arrival."], threshold=4)
"""


def the_answer_only(request: RecordedRequest) -> Reply:
    """5 for the suite's answer, 1 for any other."""
    body = request.json_body
    text = collect_text(body.get("system")) + collect_text(body.get("messages"))
    reply = schema_responder(request)
    if isinstance(reply, JsonReply) and isinstance(reply.value, dict) and "score" in reply.value:
        return Reply.json({**reply.value, "score": 5 if ANSWER in text else 1})
    return reply


def no_verdict_for_a_claim(request: RecordedRequest) -> Reply:
    """:func:`the_answer_only`, but no verdict for the answer with a claim joined on ("Refunds take
    five business days, and ...")."""
    body = request.json_body
    if ANSWER.rstrip(".") + ", and " in collect_text(body.get("messages")):
        return Reply.text("no verdict")
    return the_answer_only(request)


@pytest.fixture
def server(pytester: pytest.Pytester, fake_llm: FakeLLMServer) -> FakeLLMServer:
    """The fake server judging as :func:`the_answer_only`, and the suite written."""
    fake_llm.responder = the_answer_only
    pytester.makepyfile(SUITE)
    return fake_llm


def mutants(report: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["mutants"]
    return rows


def test_a_mutant_without_a_verdict_is_counted_apart_and_fails_no_test(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.responder = no_verdict_for_a_claim
    report = tmp_path / "r.json"
    result = pytester.runpytest(
        *rag_args(server, tmp_path / "cache", "--rag-mutants", f"--rag-report={report}")
    )
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    rows = {row["mutation"]: row for row in mutants(report) if row["outcome"] != "no mutant"}
    assert (
        rows["added_claim"]["outcome"] == "no verdict" and rows["added_claim"]["error_kind"] == "JudgeError"
    )
    assert {rows[name]["outcome"] for name in rows if name != "added_claim"} == {"caught"}
    out = result.stdout.str()
    assert "1 mutant(s) without a verdict (1 JudgeError): not counted as caught" in out
    result.stdout.re_match_lines([r"^  added_claim\s+1\s+0\s+0\s+-\s+-\s+1\s+0$"])
    # the suite's own figures know nothing of the mutants: one check, no judge error
    result.stdout.re_match_lines([r"^faithfulness\s+openai:fake-gpt\s+1-5\s+1\s+5\.00\s+.*\s+0$"])
    assert "judge errors" not in out


def test_a_dry_run_counts_the_mutants_requests_and_price(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000, 0\n")  # $1000 per million prompt tokens
    cache = tmp_path / "cache"
    report = tmp_path / "dry.json"
    # cold: the check itself is only counted, and its mutants are counted as if it passed
    cold = pytester.runpytest(
        *rag_args(server, cache, "--rag-mutants", "--rag-dry-run", f"--rag-report={report}")
    )
    cold.assert_outcomes(skipped=1)
    assert server.request_count == 0
    made = [row for row in mutants(report) if row["outcome"] != "no mutant"]
    assert made and all(row["error_kind"] == "NotJudgedError" for row in made)
    line = next(x for x in cold.stdout.lines if x.startswith("  dry run:"))
    assert line.startswith(
        f"  dry run: {len(made)} mutant(s) counted, not judged; they would make {len(made)} call(s)"
    )
    # the would-be calls of a test's metric are claimed by its first record, as check records claim them
    assert sum(row["estimate"].get("would_call", 0) for row in made) == len(made)
    tokens = sum(row["estimate"].get("est_tokens_in", 0) for row in made)
    assert f"~{tokens:,} prompt tokens" in line and f"est. ${tokens / 1000:.4f}" in line
    # a gate on mutants that were only counted is not evaluated, as the run's other gates are
    gated = pytester.runpytest(
        *rag_args(server, cache, "--rag-mutants", "--rag-dry-run", "--rag-min-catch=0.5")
    )
    assert gated.ret == 0
    gated.stdout.fnmatch_lines(
        [f"  all >= 0.5: not evaluated: {len(made)} of its {len(made)} mutant(s) were not judged*"]
    )
    # warm: the judged check passes from the cache, and only its mutants are counted
    pytester.runpytest(*rag_args(server, cache)).assert_outcomes(passed=1)
    sent = server.request_count
    warm = pytester.runpytest(*rag_args(server, cache, "--rag-mutants", "--rag-dry-run"))
    warm.assert_outcomes(passed=1)
    assert server.request_count == sent
    assert f"  dry run: {len(made)} mutant(s) counted, not judged" in warm.stdout.str()


def test_under_rag_batch_the_mutants_wait_for_a_batch_and_a_later_run_judges_them(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    run(pytester, server, cache, "--rag-batch", "--rag-mutants").assert_outcomes(
        skipped=1
    )  # the check queued
    second = run(pytester, server, cache, "--rag-batch", "--rag-mutants", "--rag-min-catch=0.1")
    second.assert_outcomes(passed=1)  # judged from the first batch; now its mutants wait for theirs
    assert second.ret == 0  # the gate waits with them: not evaluated, not failed
    assert len(server.batches.created) == 2
    out = second.stdout.str()
    assert "mutant(s) queued for the providers' batch APIs" in out
    assert "  all >= 0.1: not evaluated:" in out
    report = tmp_path / "third.json"
    third = run(pytester, server, cache, "--rag-batch", "--rag-mutants", "--rag-min-catch=0.1", report=report)
    third.assert_outcomes(passed=1)
    assert third.ret == 0 and judge_calls(server) == []  # every judgment came from a batch
    made = [row for row in mutants(report) if row["outcome"] != "no mutant"]
    assert made and {row["outcome"] for row in made} == {"caught"}
    assert all(row["calls"]["batched"] + row["calls"]["cached"] >= 1 for row in made)
    assert "  all >= 0.1 passed:" in third.stdout.str()
