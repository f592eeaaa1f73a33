"""Async tests next to sync ones, and batch evaluation that really runs judgments concurrently."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import rag_args, verdict
from fake_llm import FakeLLMServer, RecordedRequest, Reply

MIXED = """
import asyncio
import pytest

CONTEXT = ["Refunds are processed within five business days."]

@pytest.mark.asyncio
async def test_async_first(rag_judge):
    result = await rag_judge.afaithfulness("Refunds take five business days.", CONTEXT)
    assert result.score == 3

def test_sync_between(rag_judge):
    assert rag_judge.faithfulness("Refunds are instant.", CONTEXT).score == 3

@pytest.mark.asyncio
async def test_async_concurrent_on_the_test_loop(rag_judge):
    loop = asyncio.get_running_loop()
    first, second = await asyncio.gather(
        rag_judge.afaithfulness("Five days.", CONTEXT),
        rag_judge.aanswer_relevancy("Five days.", "How long do refunds take?"),
    )
    assert asyncio.get_running_loop() is loop
    assert (first.metric, second.metric) == ("faithfulness", "answer_relevancy")

@pytest.mark.asyncio
async def test_async_cached_result(rag_judge):
    result = await rag_judge.afaithfulness("Refunds take five business days.", CONTEXT)
    assert result.cached and result.score == 3

@pytest.mark.asyncio
async def test_sync_helper_inside_a_running_loop(rag_judge):
    result = rag_judge.context_recall("Five days.", "Refunds take five business days.")
    assert result.score == 3

@pytest.mark.asyncio
async def test_async_assert_fails_readably(rag_judge):
    await rag_judge.aassert_faithful("Refunds take a year.", CONTEXT, threshold=5)
"""


def test_async_and_sync_tests_share_one_session_without_loop_clashes(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.latency = 0.5  # long enough that the gathered pair overlaps even on a loaded machine
    pytester.makepyfile(MIXED)
    result = pytester.runpytest("-p", "asyncio", *rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(
        ["E*RagAssertionError: faithfulness: score 3 on the 1-5 scale is below the threshold 5"]
    )
    text = result.stdout.str()
    assert "Event loop is closed" not in text and "attached to a different loop" not in text
    assert "never awaited" not in text
    assert fake_llm.request_count == 6  # 7 judgments, the repeated one from the cache
    assert fake_llm.max_in_flight == 2  # the two gathered judgments overlapped


def by_answer(request: RecordedRequest) -> Reply:
    """Score = the digit in the answer; an answer containing BROKEN gets unusable text."""
    user = request.json_body["messages"][-1]["content"]
    if "BROKEN" in user:
        return Reply.text("cannot grade")
    digit = next(int(ch) for ch in user.split("<answer>")[-1] if ch.isdigit())
    return Reply.json({"reasoning": "by digit", "unsupported_statements": [], "score": digit})


EVALUATE = """
def test_batch(rag_judge):
    samples = [
        {"id": f"s{i}", "question": "q?", "answer": f"answer {score}", "contexts": ["ctx"]}
        for i, score in enumerate([5, 4, 4, 2, 5, 3])
    ]
    samples.append({"id": "bad", "answer": "BROKEN answer 1", "contexts": ["ctx"]})
    table = rag_judge.evaluate(samples, metrics=["faithfulness"])
    (agg,) = table.aggregates()
    print("AGG", agg.metric, agg.n, agg.errors, round(agg.mean, 4), agg.passed, agg.with_threshold)
    print("ERRORS", [(row.sample_id, type(row.error).__name__) for row in table.errors])
    print("FAILURES", sorted(row.sample_id for row in table.failures()))
    assert agg.ci_low <= agg.mean <= agg.ci_high
"""


def test_evaluate_judges_concurrently_and_aggregates(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.responder = by_answer
    fake_llm.latency = 0.1
    pytester.makepyfile(EVALUATE)
    result = pytester.runpytest("-s", *rag_args(fake_llm, tmp_path / "c"))
    # a judge error is a row of the table, not an exception; its test is an error all the same
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*AGG faithfulness 6 1 3.8333 4 6",
            "ERRORS [[]('bad', 'JudgeError')]",
            "FAILURES [[]'s3', 's5']",
        ]
    )
    assert fake_llm.max_in_flight > 1
    # 4 distinct answers ("answer 5" and "answer 4" are asked twice at once: one call each) + the broken
    # one and its repair
    assert fake_llm.request_count == 6
    result.stdout.fnmatch_lines(["faithfulness*openai:fake-gpt*1-5*6*3.83*67% (4/6)*1"])


def test_assert_rag_reports_every_metric_below_its_bar(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(verdict(2), Reply.json({"reasoning": "off", "off_topic_or_missing": ["all"], "score": 1}))
    pytester.makepyfile(
        """
        def test_all(rag_judge):
            rag_judge.assert_rag(
                {"question": "q?", "answer": "a", "contexts": ["c"]}, faithfulness=4, answer_relevancy=3
            )
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-concurrency=1"))
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "is below the threshold 4" in text and "is below the threshold 3" in text


ASYNC_BATCH = """
import asyncio
import pytest

SAMPLES = [{"id": f"s{i}", "question": "q?", "answer": f"answer {s}", "contexts": ["ctx"]} for i, s in enumerate([5, 4, 2])]

@pytest.mark.asyncio
async def test_async_batch_keeps_the_test_loop_running(rag_judge):
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    table = await rag_judge.aevaluate(SAMPLES, metrics=["faithfulness"])
    ticker.cancel()
    assert [row.score for row in table] == [5, 4, 2]
    assert ticks > 0  # the test's own loop ran while the batch was judged

@pytest.mark.asyncio
async def test_async_assert_rag_fails_with_the_metric_below_its_bar(rag_judge):
    await rag_judge.aassert_rag(SAMPLES[2], faithfulness=4)
"""


def test_async_batch_forms_run_without_blocking_the_tests_loop(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.responder = by_answer
    fake_llm.latency = 0.1
    pytester.makepyfile(ASYNC_BATCH)
    result = pytester.runpytest("-p", "asyncio", *rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["E*RagAssertionError: faithfulness: score 2 on the 1-5 scale is below the threshold 4"]
    )


def test_inner_runs_with_pytest_asyncio_raise_no_deprecation_warning(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """The project's own test runs are free of deprecation noise: every inner run gets the project's
    pytest-asyncio setting (tests/conftest.py), and pytest-rag itself warns about nothing."""
    pytester.makepyfile(MIXED)
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "c"),
        "-W",
        "error::DeprecationWarning",
        "-W",
        "error::PendingDeprecationWarning",
    )
    result.assert_outcomes(passed=5, failed=1)  # the last one fails on purpose
    assert "Deprecation" not in result.stdout.str() + result.stderr.str()


ONE_TYPE = """
import json
import pytest
from pytest_rag import RagAssertionError
from pytest_rag.cases.parametrize import case_params

SAMPLE = {"question": "q?", "answer": "a", "contexts": ["c"]}

def caught(call):
    with pytest.raises(RagAssertionError) as info:
        call()
    return info.value

def test_one_metric(rag_judge):
    error = caught(lambda: rag_judge.assert_faithful("a", ["c"], threshold=4))
    print("ONE", error.result.metric, [r.metric for r in error.results])

def test_assert_rag_one_below(rag_judge):
    error = caught(lambda: rag_judge.assert_rag(SAMPLE, faithfulness=4, answer_relevancy=2))
    print("RAG1", error.result.metric, [r.metric for r in error.results])

def test_assert_rag_two_below(rag_judge):
    error = caught(lambda: rag_judge.assert_rag(SAMPLE, faithfulness=4, answer_relevancy=4))
    print("RAG2", error.result.metric, [r.metric for r in error.results], isinstance(error, AssertionError))
    assert "is below the threshold 4" in str(error) and str(error).count("is below") == 2

@case_params("cases.rag.jsonl")
def test_case(case, rag_judge):
    error = caught(lambda: rag_judge.assert_case(case, answer="a", contexts=["c"]))
    print("CASE", [r.metric for r in error.results])
"""


def test_every_failing_assertion_raises_rag_assertion_error_with_its_results(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """assert_rag raised RagAssertionError for one metric below its bar but a bare AssertionError,
    with no results on it, for two."""
    test_file = pytester.makepyfile(ONE_TYPE)
    pytester.makefile(
        ".rag.jsonl",
        cases='{"id": "c1", "question": "q?", "metrics": ["faithfulness", "answer_relevancy"], '
        '"thresholds": {"faithfulness": 4, "answer_relevancy": 4}}',
    )
    result = pytester.runpytest(test_file, "-s", *rag_args(fake_llm, tmp_path / "c"))  # every verdict: 3
    result.assert_outcomes(passed=4)
    text = result.stdout.str()
    for line in (
        "ONE faithfulness ['faithfulness']",
        "RAG1 faithfulness ['faithfulness']",
        "RAG2 faithfulness ['faithfulness', 'answer_relevancy'] True",
        "CASE ['faithfulness', 'answer_relevancy']",
    ):
        assert line in text
