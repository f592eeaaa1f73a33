"""``pytest-rag merge`` takes only shards of one suite, and only numbers a run could have written.

Each results file names its suite: a fingerprint of every test its run collected, taken before
``-k``, ``-m`` or pytest-split deselected any. The suite runs here are real pytest runs (pytester,
the offline judge, pytest-split and pytest-xdist as CI runs them); the rules every row obeys are
checked on files written by a run and then edited, as a hand or a script would edit them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_rag import cli
from pytest_rag.report.results_file import write_report
from pytest_rag.results import CheckRecord, JudgeScore
from pytest_rag.run_record import RunRecord, Suite, suite_of

SUITE = """
import pytest

@pytest.mark.parametrize("i", range(4))
def test_answer(rag_judge, i):
    rag_judge.faithfulness(f"Refunds take {i + 2} days.", [f"Refunds take {i + 2} days."], threshold=3)

def test_plain():
    assert True
"""

OTHER_SUITE = """
import pytest

@pytest.mark.parametrize("i", range(3))
def test_other(rag_judge, i):
    rag_judge.faithfulness(f"Parcels ship in {i + 1} days.", [f"Parcels ship in {i + 1} days."], threshold=3)
"""


def _run(pytester: pytest.Pytester, report: Path, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p",
        "no:cacheprovider",
        f"--rag-cache-dir={pytester.path / 'cache'}",
        f"--rag-report={report}",
        *extra,
    )


def _suite(report: Path) -> dict[str, Any]:
    suite = json.loads(report.read_text())["run"]["suite"]
    assert isinstance(suite, dict)
    return suite


def _merge(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, list[str], list[str]]:
    capsys.readouterr()
    status = cli.main(["merge", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


# -- the suite a results file names ------------------------------------------------------------------


def test_every_shard_of_a_split_names_the_whole_collection_and_k_and_m_change_nothing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_bot=SUITE)
    whole = pytester.path / "whole.json"
    _run(pytester, whole).assert_outcomes(passed=5)
    expected = _suite(whole)
    ids = [f"test_bot.py::test_answer[{i}]" for i in range(4)] + ["test_bot.py::test_plain"]
    assert expected == suite_of(ids).to_json() and expected["tests"] == 5
    for n, extra in enumerate((("--splits=2", "--group=1"), ("--splits=2", "--group=2"), ("-k", "plain"))):
        part = pytester.path / f"part-{n}.json"
        _run(pytester, part, *extra)
        run = json.loads(part.read_text())["run"]
        assert run["tests_collected"] < 5  # the part ran ...
        assert run["suite"] == expected  # ... and still names the whole suite


def test_under_xdist_the_workers_hand_the_controller_their_suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bot=SUITE)
    serial, spread = pytester.path / "serial.json", pytester.path / "xdist.json"
    _run(pytester, serial).assert_outcomes(passed=5)
    result = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "-p", "no:syrupy", "-p", "no:anyio",
        f"--rag-cache-dir={pytester.path / 'cache'}", f"--rag-report={spread}", "--splits=2", "--group=1",
    )  # fmt: skip
    assert result.ret == 0
    assert json.loads(spread.read_text())["run"]["tests_collected"] < 5
    assert _suite(spread) == _suite(serial)


def test_the_fingerprint_changes_with_the_tests_and_the_plugin_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one = suite_of(["t.py::a", "t.py::b"])
    assert suite_of(["t.py::b", "t.py::a"]) == one  # order: none
    assert suite_of(["t.py::a", "t.py::c"]).fingerprint != one.fingerprint
    monkeypatch.setattr("pytest_rag.run_record.__version__", "99.0")
    assert suite_of(["t.py::a", "t.py::b"]).fingerprint != one.fingerprint


def test_a_shard_of_another_suite_is_refused_naming_both_files_even_with_allow_partial(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_bot=SUITE)
    one, two = pytester.path / "shard-1.json", pytester.path / "shard-2.json"
    _run(pytester, one, "--splits=2", "--group=1")
    _run(pytester, two, "--splits=2", "--group=2")
    status, out, err = _merge(capsys, one, two)
    assert (status, err) == (0, [])  # the two halves of one suite merge

    (pytester.path / "test_bot.py").unlink()
    pytester.makepyfile(test_other=OTHER_SUITE)
    other = pytester.path / "other-2.json"
    _run(pytester, other, "--splits=2", "--group=2")
    for extra in ((), ("--allow-partial",)):
        status, out, err = _merge(capsys, one, other, *extra)
        assert status == 1 and out == []
        assert err[0].startswith("pytest-rag: error: the shard files are of different suites")
        assert "--allow-partial does not change that" in err[0]
        assert err[1:] == [
            f"  {other} is of a suite of 3 test(s), fingerprint {_suite(other)['fingerprint']}, but {one} "
            f"is of a suite of 5 test(s), fingerprint {_suite(one)['fingerprint']}"
        ]


def test_a_file_that_records_no_suite_needs_allow_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written by a pytest-rag before suites were recorded: refused like any shard whose run cannot
    be told whole, and merged, listed as such, with --allow-partial."""
    record = CheckRecord(
        test_id="t.py::a", metric="faithfulness", judge="local", score=4, scale_low=1, scale_high=5
    )
    run = RunRecord(run_id="r", plugin_version="0.0.9", tests_collected=1, tests_run=1, exit_status=0)
    path = tmp_path / "old.json"
    write_report(path, [record], run)
    assert json.loads(path.read_text())["run"]["suite"] is None
    status, out, err = _merge(capsys, path)
    problem = (
        f"  {path}: written by pytest-rag 0.0.9, which records no suite fingerprint, so whether this "
        "shard is of the same suite cannot be told (write it again with this pytest-rag)"
    )
    assert status == 1 and err[1:] == [problem]
    status, out, err = _merge(capsys, path, "--allow-partial")
    assert status == 0 and problem in out


# -- the rules every row obeys -----------------------------------------------------------------------


def _shard(tmp_path: Path, *records: CheckRecord, name: str = "shard.json") -> Path:
    run = RunRecord(
        run_id=name,
        plugin_version="0.1.0",
        tests_collected=len(records),
        tests_run=len(records),
        exit_status=0,
        suite=Suite("0123456789abcdef", 3),
    )
    path = tmp_path / name
    write_report(path, list(records), run)
    return path


def _scored(test: str, score: float, threshold: float | None = 3, **fields: Any) -> CheckRecord:
    return CheckRecord(
        test_id=test,
        metric="faithfulness",
        judge="openai:m",
        score=score,
        normalized=(score - 1) / 4,
        scale_low=1,
        scale_high=5,
        threshold=threshold,
        passed=None if threshold is None else score >= threshold,
        judges=[JudgeScore(judge="openai:m", score=score, repeats=[score])],
        **fields,
    )


def _edit(path: Path, row: int, text: str | None = None, **fields: Any) -> None:
    data = json.loads(path.read_text())
    data["checks"][row].update(fields)
    written = json.dumps(data)
    if text is not None:  # a bare token JSON readers accept: NaN, 1e999
        written = written.replace('"score": "@"', f'"score": {text}')
    path.write_text(written, encoding="utf-8")


def test_the_files_of_an_honest_run_pass_every_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _shard(
        tmp_path, _scored("t.py::a", 5), _scored("t.py::b", 2), _scored("t.py::c", 3, threshold=None)
    )
    status, out, err = _merge(capsys, path)
    assert (status, err) == (0, [])
    assert any(line.startswith("faithfulness ") for line in out)


@pytest.mark.parametrize(
    ("fields", "text", "problem"),
    [
        ({"score": 7, "normalized": 1.5}, None, "'score' is 7, outside faithfulness's 1-5 scale"),
        ({"passed": True}, None, "'passed' is True, but score 2 is below the bar 3"),
        ({"passed": None}, None, "'passed' is None, but score 2 is below the bar 3"),
        ({"normalized": 0.9}, None, "'normalized' is 0.9, but score 2 on 1-5 normalises to 0.25"),
        ({"score": "@"}, "NaN", "'score' is nan, not a finite number"),
        ({"score": "@"}, "1e999", "'score' is inf, not a finite number"),
        ({"score": "@"}, "-Infinity", "'score' is -inf, not a finite number"),
        ({"judge_scores": {"openai:m": [2, 9]}}, None, "'judge_scores[openai:m][1]' is 9, outside"),
        ({"scale_high": 10}, None, "'scale_low'/'scale_high' say 1-10, but faithfulness is scored on 1-5"),
        ({"threshold": 6}, None, "'threshold' is 6, outside faithfulness's 1-5 scale"),
    ],
)
def test_a_value_no_run_writes_is_one_error_naming_file_row_and_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fields: dict[str, Any],
    text: str | None,
    problem: str,
) -> None:
    path = _shard(tmp_path, _scored("t.py::a", 4), _scored("t.py::b", 2), _scored("t.py::c", 5))
    _edit(path, 1, text, **fields)
    status, out, err = _merge(capsys, path, "--allow-partial")
    assert status == 1 and out == []
    assert err[0].startswith("pytest-rag: error: 1 value(s) in the shard files are not what a run writes")
    (line,) = err[1:]
    assert line.startswith(f"  shard file {path}, check 2 (t.py::b): {problem}"), line


def test_every_score_raised_off_the_scale_is_listed_and_the_gate_never_computed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report of the issue: every score set to 7 on 1-5 read as a mean of 5.33 and passed a gate."""
    one = _shard(tmp_path, _scored("t.py::a", 4), _scored("t.py::b", 2), name="one.json")
    two = _shard(tmp_path, _scored("t.py::c", 1), name="two.json")
    for path, rows in ((one, 2), (two, 1)):
        for row in range(rows):
            _edit(path, row, score=7, normalized=1, judge_scores={"openai:m": [7]}, passed=True)
    status, out, err = _merge(capsys, one, two, "--fail-under", "faithfulness=4")
    assert status == 1 and out == []
    assert err[0].startswith("pytest-rag: error: 6 value(s) in the shard files are not what a run writes")
    assert [re.sub(r": .*", "", line) for line in err[1:]] == [
        f"  shard file {one}, check 1 (t.py::a)",
        f"  shard file {one}, check 1 (t.py::a)",
        f"  shard file {one}, check 2 (t.py::b)",
        f"  shard file {one}, check 2 (t.py::b)",
        f"  shard file {two}, check 1 (t.py::c)",
        f"  shard file {two}, check 1 (t.py::c)",
    ]
    assert not any("Traceback" in line for line in err)


def test_a_check_without_a_score_cannot_have_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _shard(tmp_path, _scored("t.py::a", 4))
    _edit(path, 0, score=None, normalized=None, judge_scores={}, error="boom", error_kind="JudgeError")
    assert _merge(capsys, path)[0] == 1  # an error: fails the merge as its test failed the run
    _edit(path, 0, passed=True)
    status, _, err = _merge(capsys, path)
    assert status == 1
    assert err[1] == f"  shard file {path}, check 1 (t.py::a): 'passed' is True, but the check has no score"
