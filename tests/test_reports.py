"""Results files (JSON/CSV) and JUnit XML properties."""

from __future__ import annotations

import csv
import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag.check_keys import check_keys, keyed_records
from pytest_rag.errors import RagError
from pytest_rag.report.files import FileWriteError
from pytest_rag.report.results_file import build_report, write_reports
from pytest_rag.results import CheckRecord
from regression_support import faithful_tests, judge_env, marker_server, run_args


def _record(test: str, score: float, sample: str | None = None) -> CheckRecord:
    return CheckRecord(test_id=test, metric="faithfulness", judge="openai:m", score=score, sample_id=sample)


def test_report_order_does_not_depend_on_recording_order() -> None:
    records = [
        _record("t.py::b", 3),
        _record("t.py::a", 4, "q2"),
        _record("t.py::a", 5, "q1"),
        _record("t.py::c", 2),
        _record("t.py::c", 1),
    ]
    keys = [key for key, _ in keyed_records(records)]
    assert keys == ["t.py::a[q1]", "t.py::a[q2]", "t.py::b", "t.py::c", "t.py::c#1"]
    distinct = records[:3]
    random.Random(1).shuffle(distinct)
    shuffled = [records[3], *distinct, records[4]]  # checks sharing a key keep their in-test order
    assert shuffled[:4] != records[:4]
    assert build_report(shuffled) == build_report(records)


def test_samples_without_an_id_are_told_apart_by_their_index_in_evaluate() -> None:
    def sample(index: int | None, sample_id: str | None = None) -> CheckRecord:
        return CheckRecord(
            test_id="t.py::batch",
            metric="faithfulness",
            judge="openai:m",
            score=3,
            sample_id=sample_id,
            sample_index=index,
        )

    # recorded as the judgments finished, not in the order of the samples
    records = [sample(10), sample(2), sample(None), sample(0), sample(1, "q1"), sample(2)]
    assert [key for key, _ in keyed_records(records)] == [
        "t.py::batch",  # a check of the test itself (no sample of an evaluate call)
        "t.py::batch[#0]",
        "t.py::batch[#2]",
        "t.py::batch[#2]#1",  # the same sample index again: a second evaluate call in the test
        "t.py::batch[#10]",  # by index as a number
        "t.py::batch[q1]",  # an id names the sample whatever its index
    ]
    assert check_keys(records) == [
        "t.py::batch[#10]",
        "t.py::batch[#2]",
        "t.py::batch",
        "t.py::batch[#0]",
        "t.py::batch[q1]",
        "t.py::batch[#2]#1",
    ]


EVALUATE_WITHOUT_IDS = """
def test_batch(rag_judge):
    samples = [
        {"question": f"When does store {i} open?", "answer": f"Store {i} opens at {i + 7}am.",
         "contexts": [f"Store {i} opens at {i + 7}am."]}
        for i in range(4)
    ]
    table = rag_judge.evaluate(samples, metrics=["faithfulness"])
    assert [row.sample_index for row in table.rows] == [0, 1, 2, 3]
"""


def test_a_results_file_names_each_evaluate_sample_by_its_index(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer
) -> None:
    """The checks of samples without ids used to share one key numbered in the order the judgments
    finished, so a baseline paired one sample's score with another's."""
    pytester.makepyfile(test_bot=EVALUATE_WITHOUT_IDS)
    result = pytester.runpytest(*rag_args(fake_llm, pytester.path / "cache", "--rag-report=run.json"))
    result.assert_outcomes(passed=1)
    rows = json.loads((pytester.path / "run.json").read_text())["checks"]
    assert [(row["check"], row["sample_index"]) for row in rows] == [
        (f"test_bot.py::test_batch[#{i}]", i) for i in range(4)
    ]
    assert [row["texts"]["answer"] for row in rows] == [f"Store {i} opens at {i + 7}am." for i in range(4)]


def test_reports_are_stable_and_junit_carries_scores(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pytester.makepyfile(test_bot=faithful_tests(["5", "2"]))
    cache = pytester.path / "cache"
    with marker_server() as server:
        base_url = server.openai_base_url
        pytester.runpytest(*run_args(base_url, cache)).assert_outcomes(passed=2)
    replay = run_args(base_url, cache, "--rag-cache=replay")
    outputs, runs = [], []
    for run in ("one", "two"):
        pytester.runpytest(
            *replay, f"--rag-report={run}.json", f"--rag-report={run}.csv", f"--junitxml={run}.xml"
        ).assert_outcomes(passed=2)
        report = json.loads((pytester.path / f"{run}.json").read_text())
        header, run_row, *rows = (pytester.path / f"{run}.csv").read_text().splitlines()
        assert run_row.startswith("run,")
        runs.append(report.pop("run"))
        outputs.append((report, [header, *rows]))
    # the rows and aggregates of two runs over the same cache are the same; only the run record
    # tells the runs apart, by its id
    assert outputs[0] == outputs[1]
    assert runs[0]["run_id"] != runs[1]["run_id"]
    assert {**runs[0], "run_id": ""} == {**runs[1], "run_id": ""}
    assert (runs[0]["tests_collected"], runs[0]["tests_run"], runs[0]["outcomes"]) == (2, 2, {"passed": 2})

    report = outputs[0][0]
    assert [(c["check"], c["score"], c["passed"]) for c in report["checks"]] == [
        ("test_bot.py::test_case_0", 5, True),
        ("test_bot.py::test_case_1", 2, False),
    ]
    (aggregate,) = report["aggregates"]
    assert (aggregate["metric"], aggregate["n"], aggregate["mean"], aggregate["pass_rate"]) == (
        "faithfulness",
        2,
        3.5,
        0.5,
    )
    read_back = list(csv.DictReader(outputs[0][1]))
    assert [r["kind"] for r in read_back] == ["check", "check", "aggregate"]
    assert json.loads(read_back[1]["evidence"]) == {"unsupported_statements": ["statement judged 2"]}

    tree = ET.parse(pytester.path / "one.xml")
    props = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in tree.iter("testcase")
    }
    assert props["test_case_1"] == {
        "rag.faithfulness.score": "2",
        "rag.faithfulness.scale": "1-5",
        "rag.faithfulness.judge": "openai:gpt-4o-mini",
        "rag.faithfulness.threshold": "3",
        "rag.faithfulness.passed": "false",
    }


def test_unknown_report_extension_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--rag-report=results.xlsx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*must end in .json or .csv*"])


def test_a_results_file_that_cannot_be_written_is_an_error_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"  # a file where the results file's folder should be
    blocker.write_text("a file, not a folder")
    good = tmp_path / "first.json"
    lines, error = write_reports([good, blocker / "results.json"], [_record("t.py::t", 4.0)])
    assert lines == [f"results written to {good}"] and good.exists()
    assert isinstance(error, FileWriteError) and isinstance(error, RagError)
    written = re.escape(str(blocker / "results.json"))
    assert re.fullmatch(
        f"the results file {written} could not be written \\([A-Za-z ]+\\); give a path in a folder you can write to",
        str(error),
    )
