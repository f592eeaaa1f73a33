"""Results files (JSON/CSV) and JUnit XML properties."""

from __future__ import annotations

import csv
import json
import random
import xml.etree.ElementTree as ET

import pytest

from pytest_rag.report.results_file import build_report, keyed_records
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
    outputs = []
    for run in ("one", "two"):
        pytester.runpytest(
            *replay, f"--rag-report={run}.json", f"--rag-report={run}.csv", f"--junitxml={run}.xml"
        ).assert_outcomes(passed=2)
        outputs.append(
            ((pytester.path / f"{run}.json").read_bytes(), (pytester.path / f"{run}.csv").read_bytes())
        )
    assert outputs[0] == outputs[1]

    report = json.loads(outputs[0][0])
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
    rows = list(csv.DictReader(outputs[0][1].decode().splitlines()))
    assert [r["kind"] for r in rows] == ["check", "check", "aggregate"]
    assert json.loads(rows[1]["evidence"]) == {"unsupported_statements": ["statement judged 2"]}

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
