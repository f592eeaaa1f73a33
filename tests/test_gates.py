"""Suite gates on interval bounds and the paired comparison with a baseline results file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_rag.regression.gates import Conclusion, check_fail_under, compare_baseline
from pytest_rag.report.results_file import ResultsFileError, build_report
from pytest_rag.results import CheckRecord, JudgeScore
from pytest_rag.stats import bootstrap_mean_ci, paired_bootstrap_difference
from regression_support import faithful_tests, judge_env, marker_server, run_args


def _records(scores: Sequence[float], judge: str = "openai:m") -> list[CheckRecord]:
    return [
        CheckRecord(
            test_id=f"t.py::test_{i}",
            metric="faithfulness",
            judge=judge,
            score=s,
            scale_low=1,
            scale_high=5,
            threshold=3,
            passed=s >= 3,
            judges=[JudgeScore(judge=judge, score=s, repeats=[s])],
        )
        for i, s in enumerate(scores)
    ]


def test_fail_under_gates_on_the_lower_bound_not_the_mean() -> None:
    scores = [5, 5, 5, 4, 3, 5, 5, 4]
    interval = bootstrap_mean_ci(scores)
    assert interval is not None
    mean = sum(scores) / len(scores)
    bar = (interval.low + mean) / 2  # the mean clears it, the lower bound does not
    out = Conclusion()
    check_fail_under(_records(scores), {"faithfulness": bar}, out)
    (failure,) = out.failures
    assert f"lower bound {interval.low:.2f} < {bar:g}" in failure
    assert "faithfulness [openai:m] n=8 mean 4.50" in failure
    out = Conclusion()
    check_fail_under(_records(scores), {"faithfulness": interval.low - 0.01}, out)
    assert not out.failed


def _errors(n: int, kind: str = "JudgeError", judge: str = "openai:m") -> list[CheckRecord]:
    return [
        CheckRecord(
            test_id=f"e.py::test_{i}",
            metric="faithfulness",
            judge=judge,
            scale_low=1,
            scale_high=5,
            threshold=3,
            error="the judge replied nonsense",
            error_kind=kind,
        )
        for i in range(n)
    ]


def test_a_gate_whose_metric_did_not_run_fails_the_session() -> None:
    out = Conclusion()
    check_fail_under(_records([5]), {"context_recall": 4}, out)
    (failure,) = out.failures
    assert failure.startswith("context_recall >= 4 FAILED: not evaluated: no check of context_recall ran")
    assert "run its checks or remove the gate" in failure


def test_a_gate_whose_checks_all_ended_in_judge_errors_fails_the_session() -> None:
    out = Conclusion()
    check_fail_under(_errors(3), {"faithfulness": 3}, out)
    (failure,) = out.failures
    assert failure.startswith(
        "faithfulness >= 3 FAILED: not evaluated: all 3 check(s) of faithfulness [openai:m] ended "
        "without a verdict (3 JudgeError)"
    )
    # one judge's row scored, another's ended in errors only: the scored row does not speak for it
    out = Conclusion()
    check_fail_under([*_records([5, 5]), *_errors(2, judge="openai:other")], {"faithfulness": 3}, out)
    (failure,) = out.failures
    assert "all 2 check(s) of faithfulness [openai:other]" in failure
    assert any(line.startswith("  faithfulness >= 3 passed") for line in out.lines)


def test_a_gate_whose_checks_were_only_counted_or_queued_is_not_evaluated_without_failing() -> None:
    for kind in ("NotJudgedError", "WaitingForBatchError"):
        out = Conclusion()
        check_fail_under(_errors(2, kind=kind), {"faithfulness": 3}, out, pending=frozenset({kind}))
        assert not out.failed
        assert out.lines[1] == (
            f"  faithfulness >= 3: not evaluated: 2 of its 2 check(s) were not judged in this run ({kind})"
        )
    # some checks scored, others still queued: the gate would pass on part of its checks
    out = Conclusion()
    waiting = frozenset({"WaitingForBatchError"})
    check_fail_under(
        [*_records([5, 5]), *_errors(1, kind="WaitingForBatchError")], {"faithfulness": 3}, out, waiting
    )
    assert not out.failed
    assert out.lines[1:] == [
        "  faithfulness >= 3: not evaluated: 1 of its 3 check(s) were not judged in this run (WaitingForBatchError)"
    ]
    out = Conclusion()  # ... but the part judged may fail it
    check_fail_under(
        [*_records([2, 2]), *_errors(1, kind="WaitingForBatchError")], {"faithfulness": 3}, out, waiting
    )
    (failure,) = out.failures
    assert failure.startswith("faithfulness >= 3 FAILED: lower bound 2.00 < 3")
    # the same kind outside a dry run or a batch run is a check without a verdict
    out = Conclusion()
    check_fail_under(_errors(2, kind="WaitingForBatchError"), {"faithfulness": 3}, out)
    assert out.failed


def test_a_metric_gate_leaves_out_its_modes_on_another_scale() -> None:
    records = _records([5, 5, 5, 5])
    modes = [("claims", 0.2, 0, 1), ("strict", 4.0, 1, 5), ("strict", 4.0, 1, 5)]
    for i, (mode, score, bottom, top) in enumerate(modes):
        record = CheckRecord(
            test_id=f"m.py::t{i}",
            metric="faithfulness",
            mode=mode,
            judge="openai:m",
            score=score,
            scale_low=bottom,
            scale_high=top,
        )
        records.append(record)
    out = Conclusion()
    check_fail_under(records, {"faithfulness": 4.5}, out)
    assert out.lines[1] == (
        "  faithfulness[claims] not gated by faithfulness >= 4.5: it scores 0-1, not 1-5 "
        "(gate it as faithfulness[claims]=VALUE)"
    )
    # the mode on the metric's own scale is gated (and fails), the metric itself passes
    assert [f.split(" in ")[1].split(" ")[0] for f in out.failures] == ["faithfulness[strict]"]
    out = Conclusion()
    check_fail_under(records, {"faithfulness[claims]": 0.5}, out)  # the mode named: gated on its scale
    assert len(out.failures) == 1 and "in faithfulness[claims]" in out.failures[0]
    out = Conclusion()
    check_fail_under(records[4:5], {"faithfulness": 4.5}, out)  # no default-mode row: the catalog's scale
    assert out.lines[1].startswith("  faithfulness[claims] not gated")
    (failure,) = out.failures  # so the gate judged nothing, which is no pass
    assert failure.startswith("faithfulness >= 4.5 FAILED: not evaluated: no check of faithfulness ran")


def test_baseline_flags_only_changes_whose_interval_excludes_zero(tmp_path: Path) -> None:
    before = [5, 4, 5, 4, 5, 4, 5, 4, 5, 4]
    dropped = [3, 3, 4, 2, 3, 3, 4, 2, 3, 3]
    noisy = [5, 5, 4, 4, 5, 4, 4, 4, 5, 5]
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps(build_report(_records(before))))

    out = Conclusion()
    compare_baseline(_records(dropped), baseline, out)
    expected = paired_bootstrap_difference(
        {f"t.py::test_{i}": s for i, s in enumerate(before)},
        {f"t.py::test_{i}": s for i, s in enumerate(dropped)},
    )
    assert expected.interval is not None and expected.significant
    line = out.lines[1]
    assert (
        f"change {expected.delta:+.2f} [{expected.interval.low:+.2f}, {expected.interval.high:+.2f}]" in line
    )
    assert line.endswith("over 10 shared checks * drop")

    out = Conclusion()
    compare_baseline(_records(noisy), baseline, out)
    assert "change +0.00" in out.lines[1] and "*" not in out.lines[1]
    assert not out.failed


def test_bad_baseline_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text('{"checks": []}')
    with pytest.raises(ResultsFileError, match=r"baseline file .* is not a pytest-rag results file"):
        compare_baseline([], bad, Conclusion())


def test_fail_under_fails_the_session_and_baseline_reports(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pytester.makepyfile(test_bot=faithful_tests(["5", "3", "4", "3"]))
    cache = pytester.path / "cache"
    report = pytester.path / "base.json"
    with marker_server() as server:
        args = run_args(server.openai_base_url, cache)
        gated = pytester.runpytest(*args, "--rag-fail-under=faithfulness=4.0", f"--rag-report={report}")
    gated.assert_outcomes(passed=4)
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    gated.stdout.fnmatch_lines(
        [
            "*faithfulness >= 4 FAILED: lower bound 3.00 < 4 in faithfulness ?openai:gpt-4o-mini? n=4 mean 3.75*",
            "*session failed by 1 gate(s)*",
        ]
    )
    hidden = pytester.runpytest(
        *args, "--rag-cache=replay", "--rag-fail-under=faithfulness=4.0", "--rag-no-summary"
    )
    assert hidden.ret == pytest.ExitCode.TESTS_FAILED
    assert "pytest-rag summary" not in hidden.stdout.str()
    hidden.stdout.fnmatch_lines(  # with the summary hidden, the reason for the failing exit status still shows
        [
            "*pytest-rag gates*",
            "*faithfulness >= 4 FAILED: lower bound 3.00 < 4*",
            "*session failed by 1 gate(s)*",
        ]
    )
    pytester.makeini("[pytest]\nrag_fail_under =\n    faithfulness = 3.0\n")
    passing = pytester.runpytest(*args, "--rag-cache=replay", f"--rag-baseline={report}")
    assert passing.ret == pytest.ExitCode.OK
    passing.stdout.fnmatch_lines(
        [
            "*faithfulness >= 3 passed*",
            "*change from baseline base.json*",
            "*faithfulness ?openai:gpt-4o-mini?: 3.75 -> 3.75, change +0.00 ?+0.00, +0.00? over 4 shared checks",
        ]
    )


def test_malformed_fail_under_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--rag-fail-under=faithfulness")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--rag-fail-under (command line) 'faithfulness' is malformed; write METRIC=VALUE*"]
    )


def test_a_gate_on_a_deselected_metric_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pytester.makepyfile(
        test_bot="""
def test_grounded(rag_judge):
    rag_judge.faithfulness("Refunds take {{4}} days.", ["Refunds take 4 days."])

def test_relevant(rag_judge):
    rag_judge.answer_relevancy("Refunds take {{4}} days.", "How long do refunds take?")
"""
    )
    with marker_server() as server:
        args = run_args(server.openai_base_url, pytester.path / "cache", "--rag-fail-under=faithfulness=3")
        deselected = pytester.runpytest(*args, "-k", "relevant")
        dry = pytester.runpytest(*args, "--rag-dry-run")  # nothing is judged in a dry run, by design
    deselected.assert_outcomes(passed=1, deselected=1)
    assert deselected.ret == pytest.ExitCode.TESTS_FAILED
    deselected.stdout.fnmatch_lines(
        [
            "*faithfulness >= 3 FAILED: not evaluated: no check of faithfulness ran in this run*",
            "*session failed by 1 gate(s)*",
        ]
    )
    assert dry.ret == pytest.ExitCode.OK
    dry.stdout.fnmatch_lines(
        [
            "*faithfulness >= 3: not evaluated: 1 of its 1 check(s) were not judged in this run (NotJudgedError)"
        ]
    )


@pytest.mark.parametrize("option", ["--collect-only", "--setup-plan", "--setup-only", "--fixtures"])
def test_a_run_of_no_test_is_no_run_for_the_gates(pytester: pytest.Pytester, option: str) -> None:
    """``--collect-only`` (an IDE listing the tests, pytest-split storing durations) and the fixture
    listings run no test by design: gates from the ini must not fail them, nor even be shown as if
    they had been weighed."""
    pytester.makepyfile(test_bot="def test_grounded(rag_judge):\n    pass\n")
    pytester.makeini("[pytest]\nrag_fail_under =\n    faithfulness = 3\n")
    result = pytester.runpytest("-p", "no:cacheprovider", option, "-q")
    assert result.ret == pytest.ExitCode.OK
    assert "faithfulness >= 3" not in result.stdout.str()
