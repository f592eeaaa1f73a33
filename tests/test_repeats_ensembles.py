"""Repeated judgments (median, spread, threshold straddles) and judge ensembles (per-judge rows, alpha)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FAITHFUL_TEST, rag_args
from fake_llm import FakeLLMServer, Reply
from pytest_rag.report.repeats import judge_agreement, repeat_rows, straddles
from pytest_rag.results import CheckRecord, JudgeScore
from pytest_rag.stats import krippendorff_alpha
from regression_support import faithful_tests, judge_env, marker_server, run_args


@pytest.mark.parametrize(
    ("repeats", "threshold", "expected"),
    [([2, 4, 5], 3, True), ([3, 4, 5], 3, False), ([1, 2, 2], 3, False), ([2, 4], None, False)],
)
def test_straddle_means_repeats_on_both_sides_of_the_threshold(
    repeats: list[float], threshold: float | None, expected: bool
) -> None:
    assert straddles(repeats, threshold) is expected


def _ensemble_record(i: int, a: float, b: float) -> CheckRecord:
    return CheckRecord(
        test_id=f"t.py::test_{i}",
        metric="faithfulness",
        judge="ensemble(openai:a,openai:b)",
        score=(a + b) / 2,
        threshold=3,
        judges=[
            JudgeScore(judge="openai:a", score=a, repeats=[a]),
            JudgeScore(judge="openai:b", score=b, repeats=[b]),
        ],
    )


def test_judge_agreement_is_alpha_across_the_ensemble_members() -> None:
    a = [1, 2, 3, 4, 5, 2]
    b = [1, 3, 3, 5, 4, 2]
    records = [_ensemble_record(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True))]
    (row,) = judge_agreement(records)
    assert row.judges == ("openai:a", "openai:b")
    assert row.estimate.alpha == pytest.approx(krippendorff_alpha([a, b], "ordinal"))
    assert row.estimate.n_units == 6


def test_repeat_rows_report_spread_and_flips() -> None:
    records = [
        CheckRecord(
            test_id=f"t.py::test_{i}",
            metric="faithfulness",
            judge="openai:m",
            score=sorted(r)[1],
            threshold=3,
            judges=[JudgeScore(judge="openai:m", score=sorted(r)[1], repeats=r)],
        )
        for i, r in enumerate([[2.0, 4.0, 5.0], [4.0, 4.0, 5.0], [1.0, 1.0, 1.0]])
    ]
    (row,) = repeat_rows(records)
    assert (row.checks, row.repeats, row.max_spread, row.straddles, row.with_threshold) == (3, 3, 3, 1, 3)
    assert row.mean_spread == pytest.approx(4 / 3)
    assert row.straddling_tests == ("t.py::test_0",)


def test_repeats_are_distinct_judgments_scored_by_their_median(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pytester.makepyfile(
        test_bot=faithful_tests(["2,4,5", "4,4,5"]) + "\n\ndef test_median(rag_judge):\n"
        "    result = rag_judge.faithfulness('Median of {{1,5,3}}.', ['Ctx.'])\n"
        "    assert result.score == 3 and sorted(result.judges[0].repeats) == [1, 3, 5]\n"
    )
    with marker_server() as server:
        result = pytester.runpytest(
            *run_args(server.openai_base_url, pytester.path / "cache", "--rag-judge-repeat=3")
        )
        assert server.request_count == 9  # three distinct cache entries per check
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*repeated judgments*",
            "*faithfulness ?openai:gpt-4o-mini?: 3 checks x 3 repeats, spread mean 2.67, max 4; "
            "straddled the threshold in 2/3 checks (67%): test_bot.py::test_case_0, test_bot.py::test_median",
        ]
    )


def test_ensemble_summary_shows_each_judge_and_their_agreement(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pairs = ["judge-a:5|judge-b:4", "judge-a:2|judge-b:2", "judge-a:4|judge-b:5", "judge-a:1|judge-b:2"]
    pytester.makepyfile(test_bot=faithful_tests(pairs))
    with marker_server() as server:
        result = pytester.runpytest(
            *run_args(server.openai_base_url, pytester.path / "cache", judge="openai:judge-a,openai:judge-b")
        )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(
        [
            "faithfulness  ensemble(openai:judge-a,openai:judge-b)  1-5    4  3.12*",
            "faithfulness  openai:judge-a  * 4  3.00*50% (2/4)*",
            "faithfulness  openai:judge-b  * 4  3.25*50% (2/4)*",
            "*judge agreement (Krippendorff's alpha, ordinal*",
            "*faithfulness ?openai:judge-a, openai:judge-b?: alpha * over 4 checks",
        ]
    )


@pytest.mark.parametrize(
    ("judge", "extra"),
    [("openai:fake-gpt,anthropic:fake-claude", ()), ("openai:fake-gpt", ("--rag-judge-repeat=2",))],
    ids=["ensemble", "repeats"],
)
def test_every_failed_judgment_of_a_check_is_counted(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, judge: str, extra: tuple[str, ...]
) -> None:
    # both judgments of the one check fail; the check raises only the first error, but both were sent
    fake_llm.script(Reply.status(500), Reply.status(500))
    pytester.makepyfile(FAITHFUL_TEST)
    report = tmp_path / "r.json"
    args = rag_args(
        fake_llm, tmp_path / "c", "--rag-max-attempts=1", f"--rag-report={report}", *extra, judge=judge
    )
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=1)
    assert fake_llm.request_count == 2
    result.stdout.fnmatch_lines(["judge calls: 0 live, *; requests: 2 sent, 2 failed (2 server error), *"])
    (check,) = json.loads(report.read_text())["checks"]
    assert (check["attempts"], check["failures"]) == (2, {"server error": 2})
