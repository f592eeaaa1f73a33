"""Uncertain checks in what a person reads: the summary counts them, the HTML report marks them, the
failure message says how likely the check was to pass, the results file keeps the numbers, and
``--rag-pass-on=expected`` holds the bar to the expected score.

The fake server scripts the odds of each grade, so every number below is worked by hand.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from fake_llm.wire import collect_text
from pytest_rag.failures import describe
from pytest_rag.report.html.page import render_html
from pytest_rag.report.html.payload import build_payload
from pytest_rag.report.results_file import read_results, write_report
from pytest_rag.report.summary import render
from pytest_rag.results import CheckRecord, JudgeScore, MetricResult
from report_records import check

pytest_plugins = ["pytester"]

# Grade 4 every time, with these odds of the grade's token (threshold 4, faithfulness' default):
#   sure:     P(4) = 0.6, P(5) = 0.3, P(3) = 0.1 -> expected 4.2, P(>= 4) = 0.9
#   torn:     P(4) = 0.5, P(3) = 0.3, P(2) = 0.2 -> expected 3.3, P(>= 4) = 0.5 (uncertain)
#   no odds:  a plain grade
ODDS = {"sure": {4: 0.6, 5: 0.3, 3: 0.1}, "torn": {4: 0.5, 3: 0.3, 2: 0.2}}

SUITE = """
import pytest

@pytest.mark.parametrize("answer", ["sure", "torn", "plain"])
def test_grounded(rag_judge, answer):
    rag_judge.assert_faithful(answer, ["Refunds take five business days."])
"""


def by_answer(request: RecordedRequest) -> Reply:
    text = collect_text(request.json_body.get("messages"))
    verdict = {"reasoning": "judged", "unsupported_statements": [], "score": 4}
    for name, odds in ODDS.items():
        if f"\n{name}\n" in text:
            return Reply.json(verdict, odds={"score": odds})
    return Reply.json(verdict)


@pytest.fixture
def server(fake_llm: FakeLLMServer) -> FakeLLMServer:
    fake_llm.responder = by_answer
    return fake_llm


def test_the_summary_counts_uncertain_checks_of_those_with_odds(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(*rag_args(server, tmp_path / "cache"))
    result.assert_outcomes(passed=3)  # every grade is 4: the bar is held to the grade by default
    result.stdout.fnmatch_lines(
        [
            "metric*judge*scale*n*mean*95% CI*pass rate*uncertain*errors",
            "faithfulness*openai:fake-gpt*1-5*3*4.00*100% (3/3)*1/2*0",
        ]
    )
    quiet = pytester.runpytest("-q", *rag_args(server, tmp_path / "cache"))
    assert (
        "faithfulness [openai:fake-gpt]: mean 4.00 [4.00, 4.00] n=3, pass 3/3, 1 uncertain"
        in quiet.stdout.lines
    )


def test_a_run_without_odds_prints_the_summary_as_before(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"))
    (header,) = [line for line in result.stdout.lines if line.startswith("metric ")]
    assert header.split() == ["metric", "judge", "scale", "n", "mean", "95%", "CI", "pass", "rate", "errors"]


def test_passing_on_the_expected_score_fails_the_torn_check_and_says_why(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(*rag_args(server, tmp_path / "cache", "--rag-pass-on=expected"))
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*faithfulness: expected score 3.3 on the 1-5 scale is below the threshold 4 (score 4)",
            "*expected score: 3.3; probability of reaching the threshold: 0.5 (uncertain: a rerun could go either way)",
        ]
    )
    assert "test_grounded[torn]" in "\n".join(ln for ln in result.stdout.lines if ln.startswith("FAILED"))


def test_the_ini_can_hold_the_bar_to_the_expected_score_and_a_typo_stops_the_run(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(SUITE)
    pytester.makeini("[pytest]\nrag_pass_on = expected\n")
    pytester.runpytest(*rag_args(server, tmp_path / "cache")).assert_outcomes(passed=2, failed=1)
    pytester.makeini("[pytest]\nrag_pass_on = expectation\n")
    wrong = pytester.runpytest(*rag_args(server, tmp_path / "cache"))
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "rag_pass_on (ini file tox.ini) must be one of score, expected, got 'expectation'"
        in wrong.stderr.str()
    )
    assert server.request_count == 3  # the bad ini judged nothing


def test_the_results_file_keeps_the_odds_and_reads_them_back(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(SUITE)
    report, table = tmp_path / "r.json", tmp_path / "r.csv"
    pytester.runpytest(
        *rag_args(server, tmp_path / "cache", f"--rag-report={report}", f"--rag-report={table}")
    )
    rows = {
        row["sample_id"] or row["test_id"].split("[")[1][:-1]: row
        for row in json.loads(report.read_text())["checks"]
    }
    sure, torn, plain = rows["sure"], rows["torn"], rows["plain"]
    assert (sure["expected_score"], sure["pass_probability"]) == (pytest.approx(4.2), pytest.approx(0.9))
    assert sure["judge_expected_scores"] == {"openai:fake-gpt": pytest.approx(4.2)}
    assert (torn["expected_score"], torn["pass_probability"]) == (pytest.approx(3.3), pytest.approx(0.5))
    assert "passed_on" not in torn  # held to the grade
    assert not {"expected_score", "pass_probability", "judge_expected_scores"} & set(plain)
    back = {r.test_id: r for r in read_results(report)}
    for record in back.values():
        original = rows[record.test_id.split("[")[1][:-1]]
        assert record.expected_score == original.get("expected_score")
        assert record.pass_probability == original.get("pass_probability")
    assert sum(r.uncertain for r in back.values()) == 1
    with table.open(newline="", encoding="utf-8") as handle:
        columns = next(csv.reader(handle))
    assert columns[-2:] == ["expected_score", "pass_probability"]


# -- the parts on their own ------------------------------------------------------------------------


def odds_record(pass_probability: float | None, **kw: object) -> CheckRecord:
    """A faithfulness check of grade 4 with the given probability of reaching 4."""
    record = check(judge="openai:gpt-4o", **kw)  # type: ignore[arg-type]
    expected = None if pass_probability is None else 3 + pass_probability
    return record.model_copy(update={"expected_score": expected, "pass_probability": pass_probability})


def test_each_member_of_an_ensemble_counts_its_own_uncertain_checks() -> None:
    members = [
        JudgeScore(judge="openai:a", score=4, repeats=[4], expected_score=3.5, pass_probability=0.5),
        JudgeScore(judge="openai:b", score=4, repeats=[4], expected_score=4.9, pass_probability=0.95),
    ]
    record = check(judge="ensemble(openai:a,openai:b)").model_copy(
        update={
            "judges": members,
            "expected_score": 4.2,
            "pass_probability": 0.725,
            "passed_on": "expected_score",
        }
    )
    lines = render([record])
    row = {line.split()[1]: line.split() for line in lines[1:4]}
    assert row["ensemble(openai:a,openai:b)"][-2] == "1/1"
    assert row["openai:a"][-2] == "1/1" and row["openai:a"][-4] == "0%"  # expected 3.5 < 4: fails
    assert row["openai:b"][-2] == "0/1" and row["openai:b"][-4] == "100%"


def test_a_row_with_no_odds_shows_a_dash_beside_rows_with_them() -> None:
    lines = render([odds_record(0.3, metric="faithfulness"), check(metric="answer_relevancy", judge="local")])
    header, relevancy, faithfulness = (line.split() for line in lines[:3])
    assert header[-2:] == ["uncertain", "errors"]
    assert relevancy[-2] == "-" and faithfulness[-2] == "1/1"


def test_the_html_report_marks_uncertain_checks_only_when_some_check_has_odds() -> None:
    records = [odds_record(0.5, i=0), odds_record(0.95, i=1), odds_record(None, i=2)]
    columns = build_payload(records, 0)["checks"]
    assert columns["uncertain"] == [1, 0, 0]
    assert columns["pass_p"] == [0.5, 0.95, None]
    assert columns["expected"] == [3.5, 3.95, None]
    assert "1 of 2" in render_html(records) and "uncertain checks (pass probability 0.2-0.8)" in render_html(
        records
    )
    plain = [check(i=0), check(i=1)]
    assert not {"uncertain", "pass_p", "expected"} & set(build_payload(plain, 0)["checks"])
    assert "uncertain checks" not in render_html(plain)


def test_the_failure_message_shows_the_odds_only_when_known() -> None:
    result = MetricResult(
        metric="faithfulness",
        mode="default",
        judge="openai:gpt-4o",
        score=3,
        scale_low=1,
        scale_high=5,
        normalized=0.5,
        threshold=4,
        passed=False,
        expected_score=3.85,
        pass_probability=0.85,
    )
    text = describe(result)
    assert text.splitlines()[0] == "faithfulness: score 3 on the 1-5 scale is below the threshold 4"
    assert "  expected score: 3.85; probability of reaching the threshold: 0.85" in text.splitlines()
    assert "uncertain" not in text
    assert "expected score" not in describe(
        result.model_copy(update={"expected_score": None, "pass_probability": None})
    )


def test_a_results_file_of_a_run_without_odds_has_no_odds_fields(tmp_path: Path) -> None:
    write_report(tmp_path / "r.json", [check()])
    (row,) = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert not {"expected_score", "pass_probability", "passed_on", "judge_expected_scores"} & set(row)
    write_report(tmp_path / "r.csv", [check()])
    assert "pass_probability" not in (tmp_path / "r.csv").read_text().splitlines()[0]
