"""A green merge means every check of the suite was judged: ``pytest-rag merge`` refuses shards that
were not their whole part of one run, and every results file records what its run was.

The sharded runs are real pytest-split shards run with pytester, as the CI recipe of
docs/regression.md runs them, each broken one way: a module that fails to import on one machine,
``-x`` after a failure, a group that holds no judged test. The cross-shard rules (each group of a
split once, one run per file), unreadable rows and results files of format version 1 are checked on
files written directly.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag import cli
from pytest_rag.regression.shards import load_shard, merged_run, shard_problems
from pytest_rag.report.results_file import write_report
from pytest_rag.results import CallTally, CheckRecord
from pytest_rag.run_record import LostRecords, RunRecord, Suite

JUDGED = """
import os
import pytest

@pytest.mark.parametrize("i", range(4))
def test_answer(rag_judge, i):
    rag_judge.faithfulness(f"Refunds take {i + 2} days.", [f"Refunds take {i + 2} days."], threshold=3)
    if i == 0 and os.environ.get("SHARD_TEST_FAILS"):
        raise AssertionError("the application under test broke")
"""

NOT_JUDGED = """
import os

if os.environ.get("SHARD_LACKS_A_DEPENDENCY"):
    raise ImportError("a dependency of this module is not installed on this machine")

def test_plain_one():
    assert True

def test_plain_two():
    assert True
"""


def _shard(
    pytester: pytest.Pytester, server: FakeLLMServer, group: int, splits: int, *extra: str
) -> tuple[Path, pytest.RunResult]:
    path = pytester.path / f"shard-{group}.json"
    result = pytester.runpytest(
        *rag_args(
            server,
            pytester.path / "cache",
            f"--splits={splits}",
            f"--group={group}",
            f"--rag-report={path}",
            *extra,
        )
    )
    return path, result


def _merge(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, list[str], list[str]]:
    capsys.readouterr()
    status = cli.main(["merge", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


def test_a_shard_whose_collection_failed_is_refused_with_one_line_naming_it(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytester.makepyfile(test_a=JUDGED, test_b=NOT_JUDGED)
    one, first = _shard(pytester, fake_llm, 1, 2)
    assert first.ret == pytest.ExitCode.OK
    monkeypatch.setenv("SHARD_LACKS_A_DEPENDENCY", "1")
    two, second = _shard(pytester, fake_llm, 2, 2)
    monkeypatch.delenv("SHARD_LACKS_A_DEPENDENCY")
    assert second.ret == pytest.ExitCode.INTERRUPTED

    run = json.loads(two.read_text())["run"]
    assert (run["collection_errors"], run["exit_status"], run["tests_run"]) == (1, 2, 0)
    assert run["stopped_early"] == "interrupted by collection errors"
    assert (run["group"], run["splits"]) == (2, 2)
    assert json.loads(two.read_text())["checks"] == []

    status, out, err = _merge(capsys, one, two)
    assert status == 1 and out == []
    assert err[0].startswith("pytest-rag: error: the shard files do not make one complete run")
    assert "--allow-partial" in err[0]
    (bad,) = err[1:]  # one line per bad shard, and shard 1 is not one
    assert bad.startswith(f"  {two}: collection failed (1 error(s)); stopped early (interrupted by ")
    assert bad.endswith("; exit status 2 (interrupted); ran no check")

    status, out, err = _merge(capsys, one, two, "--allow-partial")
    assert status == 0 and err == []
    assert out[0] == "pytest-rag summary of 2 shard(s):"
    assert out[3] == "merged anyway (--allow-partial); the summary covers only what these shards judged:"
    assert out[4] == bad


def test_a_shard_stopped_by_x_is_refused(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytester.makepyfile(test_a=JUDGED)
    monkeypatch.setenv("SHARD_TEST_FAILS", "1")
    one, first = _shard(pytester, fake_llm, 1, 2, "-x")
    monkeypatch.delenv("SHARD_TEST_FAILS")
    first.assert_outcomes(failed=1)  # its second test never ran
    two, second = _shard(pytester, fake_llm, 2, 2, "-x")  # -x without a failure stops nothing
    second.assert_outcomes(passed=2)

    run = json.loads(one.read_text())["run"]
    assert (run["tests_collected"], run["tests_run"], run["exit_status"]) == (2, 1, 1)
    assert run["stopped_early"] == "stopping after 1 failures"
    assert json.loads(two.read_text())["run"]["stopped_early"] is None

    status, _, err = _merge(capsys, one, two)
    assert status == 1
    assert err[1:] == [f"  {one}: stopped early (stopping after 1 failures): 1 of 2 tests ran"]


def test_a_shard_that_ran_no_check_is_refused(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_a=JUDGED, test_b=NOT_JUDGED)
    shards = [_shard(pytester, fake_llm, group, 3)[0] for group in (1, 2, 3)]
    assert [len(json.loads(s.read_text())["checks"]) for s in shards] == [2, 2, 0]
    status, out, err = _merge(capsys, *shards)
    assert status == 1 and out == []
    assert err[1:] == [f"  {shards[2]}: ran no check"]
    # merged anyway, the summary lists every shard: file, group, tests, checks, exit status
    status, out, _ = _merge(capsys, *shards, "--allow-partial")
    assert status == 0
    assert out[1:4] == [
        f"  {shards[0]}: group 1 of 3, 2 of 2 tests ran (2 passed, 4 deselected), 2 checks, exit status 0 (ok)",
        f"  {shards[1]}: group 2 of 3, 2 of 2 tests ran (2 passed, 4 deselected), 2 checks, exit status 0 (ok)",
        f"  {shards[2]}: group 3 of 3, 2 of 2 tests ran (2 passed, 4 deselected), 0 checks, exit status 0 (ok)",
    ]


def test_a_failed_gate_is_the_exit_status_the_results_file_records(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer
) -> None:
    """The file is written after pytest-rag's own gates have set the exit status, not before."""
    pytester.makepyfile(test_a=JUDGED)
    result = pytester.runpytest(
        *rag_args(
            fake_llm, pytester.path / "cache", "--rag-report=run.json", "--rag-fail-under=faithfulness=5"
        )
    )
    result.assert_outcomes(passed=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    run = json.loads((pytester.path / "run.json").read_text())["run"]
    assert (run["exit_status"], run["tests_collected"], run["tests_run"]) == (1, 4, 4)
    assert run["outcomes"] == {"passed": 4}
    assert run["group"] is None and run["splits"] is None and run["stopped_early"] is None


XFAILING = """
import pytest

@pytest.mark.parametrize("i", range(3))
def test_grounded(rag_judge, i):
    rag_judge.assert_faithful(f"Refunds take {i + 2} days.", [f"Refunds take {i + 2} days."], threshold=3)

@pytest.mark.xfail(reason="the bot still makes this up")
@pytest.mark.parametrize("i", range(2))
def test_known_gap(rag_judge, i):
    rag_judge.assert_faithful(f"Refunds take {i} weeks.", [f"Refunds take {i} weeks."], threshold=5)
"""


def test_under_xdist_the_controller_records_the_tests_pytest_counted(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer
) -> None:
    pytester.makepyfile(test_bot=XFAILING)
    report, html = pytester.path / "run.json", pytester.path / "run.html"
    args = rag_args(fake_llm, pytester.path / "cache", f"--rag-report={report}", f"--rag-html={html}")
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:syrupy", "-p", "no:anyio", *args)
    result.assert_outcomes(passed=3, xfailed=2)
    run = json.loads(report.read_text())["run"]
    assert (run["tests_collected"], run["tests_run"], run["exit_status"]) == (5, 5, 0)
    assert run["outcomes"] == {"passed": 3, "xfailed": 2}
    # the run card counts checks as checks, and the tests as pytest did
    page = html.read_text(encoding="utf-8")
    cards = dict(
        (label, value)
        for value, label in re.findall(r'<div class="card"><b>([^<]*)</b><span>([^<]*)</span></div>', page)
    )
    assert cards["tests, as pytest counted them (5 of 5 collected ran)"] == "3 passed, 2 xfailed"
    assert (cards["checks"], cards["checks passed"], cards["checks failed"]) == ("5", "3", "2")


# -- files written directly: the rules across shards, unreadable rows, version 1 -------------------


def _record(test: str, score: float | None = 4.0, **fields: object) -> CheckRecord:
    return CheckRecord(
        test_id=test,
        metric="faithfulness",
        judge="openai:m",
        score=score,
        scale_low=1,
        scale_high=5,
        threshold=3,
        passed=None if score is None else score >= 3,
        calls=CallTally(cached=1),
        **fields,  # type: ignore[arg-type]
    )


def _run(group: int | None = None, splits: int | None = None, run_id: str = "", tests: int = 1) -> RunRecord:
    return RunRecord(
        run_id=run_id or f"run-{group}-{splits}",
        plugin_version="0.1.0",
        tests_collected=tests,
        tests_run=tests,
        exit_status=0,
        outcomes={"passed": tests},
        group=group,
        splits=splits,
        suite=SUITE,
    )


#: The suite of the shards written directly: one suite, as a split of one collection records it.
SUITE = Suite("0123456789abcdef", 12)


def _file(path: Path, run: RunRecord | None, *records: CheckRecord) -> Path:
    write_report(path, list(records) or [_record(f"t.py::test_{path.stem}")], run)
    return path


def test_groups_of_a_split_must_each_be_merged_once(tmp_path: Path) -> None:
    one = _file(tmp_path / "one.json", _run(1, 4))
    two = _file(tmp_path / "two.json", _run(2, 4))
    again = _file(tmp_path / "again.json", _run(2, 4, run_id="another run"))
    other = _file(tmp_path / "other.json", _run(1, 3))
    copy = _file(tmp_path / "copy.json", _run(1, 4), _record("t.py::test_copy"))
    problems = shard_problems([load_shard(p) for p in (one, two, again, other, copy)])
    assert problems == [
        f"{again}: group 2 of 4 is also {two}'s",
        f"{other}: group 1 of 3, but {one} is of a split of 4",
        f"{copy}: the same run as {one} (run id run-1-4); group 1 of 4 is also {one}'s",
        "group(s) 3, 4 of the split of 4: no shard file holds them (pass the results file of every group)",
    ]
    assert shard_problems([load_shard(p) for p in (one, two)]) == [
        "group(s) 3, 4 of the split of 4: no shard file holds them (pass the results file of every group)"
    ]
    # shards split by other means (-k, paths) carry no group and are not held to one
    assert shard_problems([load_shard(_file(tmp_path / f"{n}.json", _run(run_id=n))) for n in "ab"]) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"score": "high"}, r"check 2 of shard file \S+ is malformed: 'score' is 'high': Input should be"),
        ({"kind": "aggregate"}, r"check 2 of shard file \S+ is malformed: its kind is 'aggregate'"),
        ({"test_id": None}, r"check 2 of shard file \S+ is malformed: 'test_id' is None, not a test id"),
        ({"judge_scores": {"openai:m": ["4"]}}, r"'judge_scores' of 'openai:m' is \['4'\], not a list"),
    ],
)
def test_a_row_that_cannot_be_read_fails_the_merge_naming_file_and_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], message: str
) -> None:
    path = _file(tmp_path / "shard.json", _run(), _record("t.py::a"), _record("t.py::b"), _record("t.py::c"))
    data = json.loads(path.read_text())
    data["checks"][1].update(change)
    path.write_text(json.dumps(data), encoding="utf-8")
    status, out, err = _merge(capsys, path, "--allow-partial")
    assert status == 1 and out == []
    (line,) = err
    assert re.search(message, line), line


def test_a_row_without_a_score_is_a_judge_error_in_every_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path / "shard.json", _run(tests=3), *(_record(f"t.py::{n}") for n in "ab"))
    data = json.loads(path.read_text())
    data["checks"][1].update(score=None, normalized=None, passed=None)  # and no error
    path.write_text(json.dumps(data), encoding="utf-8")
    (unscored,) = [r for r in load_shard(path).records if r.error is not None]
    assert unscored.error == "check 2 of shard.json holds neither a score nor an error"
    status, out, _ = _merge(capsys, path)
    assert status == 1  # a check without a verdict: no green merge
    assert any(
        line.startswith("pytest-rag: 1 check(s) of these shards ended without a verdict (1 Missing")
        for line in out
    )
    row = next(line for line in out if line.startswith("faithfulness"))
    assert re.search(r"\s1\s+4\.00\s.*100% \(1/1\)\s+1$", row), row  # n=1, one error
    assert "judge calls: 0 live, 2 cached, 0 offline" in "\n".join(out)  # both rows' calls
    assert any(line.startswith("judge errors: 1 (1 MissingScoreError)") for line in out), out


def test_a_version_1_file_can_only_be_merged_with_allow_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path / "old.json", None)
    data = json.loads(path.read_text())
    del data["run"]
    for row in data["checks"]:
        del row["sample_index"]
    path.write_text(json.dumps({**data, "version": 1}), encoding="utf-8")
    status, out, err = _merge(capsys, path)
    assert status == 1 and out == []
    assert err[1:] == [
        f"  {path}: format version 1 keeps no run record, so whether this shard ran to the end cannot "
        "be told (write it again with this pytest-rag)"
    ]
    status, out, err = _merge(capsys, path, "--allow-partial")
    assert status == 0 and err == []
    assert out[1] == f"  {path}: format version 1, no run record, 1 checks"
    assert any(line.startswith("faithfulness ") for line in out)


def test_a_shard_whose_crashed_worker_lost_records_is_refused_unless_partial(tmp_path: Path) -> None:
    """A worker that crashed took its finished tests' records with it: the shard's figures are of
    fewer checks than its part of the suite made, so a merge of it is no whole run."""
    whole = _file(tmp_path / "whole.json", _run(run_id="a"))
    lost = dataclasses.replace(_run(run_id="b"), records_lost=LostRecords(checks=4, workers=("gw1",)))
    crashed = _file(tmp_path / "crashed.json", lost)
    problems = shard_problems([load_shard(p) for p in (whole, crashed)])
    assert problems == [
        f"{crashed}: at least 4 check record(s) lost: worker gw1 crashed before handing them over "
        "(rerun that shard: the judgments are in its cache)"
    ]
    merged = merged_run([load_shard(p) for p in (whole, crashed)], partial=True)
    assert merged.records_lost == LostRecords(checks=4, workers=("gw1",))
