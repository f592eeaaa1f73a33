"""``--rag-dry-run`` and ``--rag-budget`` through whole pytest runs against the fake server.

A dry run makes no request, reports the tests that needed a judgment as skipped (never passed), and
prints what the judgments would cost; cached judgments are still served. A budget stops live calls
once it is spent and the summary says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag.engine.spending import Estimate

pytest_plugins = ["pytester"]

#: The fake server's verdicts score 3, so this check passes whenever it is judged.
FAITHFUL_TEST = """
def test_grounded(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds take five business days."], threshold=3)
"""

TWO_CHECKS = """
def test_grounded_and_relevant(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds take five business days."])
    rag_judge.assert_relevant("Refunds take five days.", "How long do refunds take?")


def test_several_metrics_at_once(rag_judge):
    rag_judge.assert_rag(
        {"question": "How long?", "answer": "Five days.", "contexts": ["Five business days."],
         "reference": "Five business days."},
        faithfulness=3, answer_relevancy=3, context_recall=3,
    )


def test_batch_form_does_not_pass_silently(rag_judge):
    table = rag_judge.evaluate(
        [{"question": "How long?", "answer": "Five days.", "contexts": ["Five business days."]}],
        metrics=["faithfulness"],
    )
    assert len(table) == 1
"""


def test_a_dry_run_makes_no_request_and_skips_what_it_could_not_judge(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(TWO_CHECKS)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache", "--rag-dry-run", "-rs"))
    assert fake_llm.request_count == 0
    result.assert_outcomes(skipped=3)
    output = result.stdout.str()
    assert "--rag-dry-run: 1 check(s) not judged" in output
    assert "--rag-dry-run: 3 check(s) not judged" in output  # the assert_rag test counted every metric
    # the first test stopped at its first not-judged check; the others counted all theirs, and the
    # table's faithfulness check asks what assert_rag's asked already: one call for both
    assert "dry run: 5 check(s) not judged; they would make 4 call(s)" in output
    for metric in ("faithfulness", "answer_relevancy", "context_recall"):
        assert f"  {metric} [openai:fake-gpt]:" in output
    # counted, not judged: nothing went wrong, so the table says so instead of "judge errors"
    result.stdout.fnmatch_lines(["faithfulness*openai:fake-gpt*1-5*0*-*-*-*3 not judged"])
    assert "judge errors" not in output


def test_the_dry_run_estimate_prices_the_prompt_tokens_it_would_send(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000, 0\n")  # $1000 per million prompt tokens
    dry = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache", "--rag-dry-run"))
    line = next(x for x in dry.stdout.lines if x.startswith("dry run:"))
    tokens = int(line.split("~")[1].split(" prompt")[0].replace(",", ""))
    dollars = float(line.split("est. $")[1].split(" ")[0])
    assert dollars == pytest.approx(tokens / 1000, rel=1e-3)
    # the estimate is close to what the real call then reports (the fake server counts chars / 4)
    live = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"))
    live.assert_outcomes(passed=1)
    sent = int(
        next(x for x in live.stdout.lines if x.startswith("judge calls:"))
        .split("tokens: ")[1]
        .split(" in")[0]
    )
    assert 0.5 * sent <= tokens <= 2 * sent


def test_a_dry_run_still_serves_cached_judgments(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache")).assert_outcomes(passed=1)
    fake_llm.clear()
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache", "--rag-dry-run"))
    result.assert_outcomes(passed=1)
    assert fake_llm.request_count == 0
    assert "dry run: 0 check(s) not judged" in result.stdout.str()


REPEATS = """
SAMPLE = {"question": "How long?", "answer": "Five days.", "contexts": ["Five business days."]}


def test_a_table_with_a_row_twice(rag_judge):
    table = rag_judge.evaluate([SAMPLE, SAMPLE, dict(SAMPLE, answer="Six days.")], metrics=["faithfulness"])
    assert len(table) == 3


def test_one(rag_judge):
    rag_judge.assert_faithful("Five days.", ["Five business days."], threshold=1, question="How long?")


def test_the_same_again(rag_judge):
    rag_judge.assert_faithful("Five days.", ["Five business days."], threshold=1, question="How long?")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2", "-p", "no:randomly"]], ids=["serial", "xdist"])
def test_a_dry_run_counts_each_request_once_as_the_real_run_pays_for_it(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, workers: list[str]
) -> None:
    """A request asked again, in another test or twice in one table, is counted once: the real run
    judges it once and takes every repeat from the cache (across pytest-xdist workers too)."""
    pytester.makepyfile(REPEATS)
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000, 0\n")
    report = tmp_path / "dry.json"
    dry = pytester.runpytest_subprocess(
        *workers, *rag_args(fake_llm, tmp_path / "cache", "--rag-dry-run", f"--rag-report={report}")
    )
    dry.assert_outcomes(skipped=3)
    line = next(x for x in dry.stdout.lines if x.startswith("dry run:"))
    # two distinct requests: "Five days." (twice in the table, once in each test) and "Six days."
    assert line.startswith("dry run: 5 check(s) not judged; they would make 2 call(s)")
    assert fake_llm.request_count == 0
    if not workers:  # one process: the repeats' own errors say why they were not counted
        errors = [row["error"] for row in json.loads(report.read_text(encoding="utf-8"))["checks"]]
        repeats = [e for e in errors if "not counted again: another check of this run asks the very" in e]
        assert len(errors) == 5 and len(repeats) == 3

    real = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"))
    real.assert_outcomes(passed=3)
    assert fake_llm.request_count == 2  # what the dry run said
    assert len({json.dumps(r.json_body, sort_keys=True) for r in fake_llm.requests}) == 2
    assert next(x for x in real.stdout.lines if x.startswith("judge calls:")).startswith(
        "judge calls: 2 live, 3 cached"
    )
    tokens = int(line.split("~")[1].split(" prompt")[0].replace(",", ""))
    assert float(line.split("est. $")[1].split(" ")[0]) == pytest.approx(tokens / 1000, rel=1e-3)


def test_a_budget_stops_live_calls_once_spent_and_says_so(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        "\n".join(
            f"def test_{i}(rag_judge):\n"
            f"    rag_judge.assert_faithful('Answer {i}.', ['Context {i}.'], threshold=1)\n"
            for i in range(4)
        )
    )
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000, 1000\n")  # every call costs > $0.01
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "cache", "--rag-budget=0.01", "-p", "no:randomly")
    )
    assert fake_llm.request_count == 1  # the first call spends the whole budget
    result.assert_outcomes(passed=1, errors=3)
    output = result.stdout.str()
    assert "BudgetExceededError" in output and "--rag-budget=$0.0100 is spent" in output
    assert "budget: $" in output and "of $0.0100 spent, live calls stopped; 3 check(s) not judged" in output


def test_a_budget_that_is_not_reached_changes_nothing(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache", "--rag-budget=5"))
    result.assert_outcomes(passed=1)
    assert fake_llm.request_count == 1
    assert "of $5.0000 not exhausted" in result.stdout.str()


def test_a_negative_budget_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache", "--rag-budget=-1"))
    assert result.ret != 0
    assert "--rag-budget (command line) must be at least 0" in result.stderr.str()


def test_an_estimate_less_the_calls_another_record_counted_drops_every_count_of_them() -> None:
    """How the summary counts a request once across pytest-xdist workers: ``unique`` takes away each
    count of a call whose cache key was seen (the unknown-price ones too), and leaves the total alone."""
    counted = Estimate(1, 100, 20, 0.5, 1, keyed={"seen": Estimate(1, 100, 20, 0.5, 1)})
    new = Estimate(1, 10, 2, 0.05, 0, keyed={"new": Estimate(1, 10, 2, 0.05, 0)})
    total = Estimate()
    total.add(counted)
    total.add(new)
    seen = {"seen"}
    left = total.unique(seen)
    assert (left.calls, left.tokens_in, left.tokens_out, left.price_unknown) == (1, 10, 2, 0)
    assert left.cost_usd == pytest.approx(0.05)
    assert set(left.keyed) == {"new"} and seen == {"seen", "new"}
    assert (total.calls, total.tokens_in, total.tokens_out, total.price_unknown) == (2, 110, 22, 1)
    assert total.cost_usd == pytest.approx(0.55) and set(total.keyed) == {"seen", "new"}
