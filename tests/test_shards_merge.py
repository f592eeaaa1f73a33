"""``pytest-rag merge``: CI shards give the verdict one unsharded run gives.

The proof runs one judged suite (an ensemble of two fake judges, two repeats each, scores that vary
by request, one check that ends in a judge error, a batch with sample ids) unsharded and as three
pytest-split shards, and compares what both print under "pytest-rag summary", their exit status
and their results files. The round trip of a results file is checked on its own first: merging is
only exact if reading a results file back gives the records the run held.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply, schema_responder
from fake_llm.replies import JsonReply
from pytest_rag import cli
from pytest_rag.check_keys import report_order
from pytest_rag.regression.shards import combine, load_shard
from pytest_rag.report.results_file import read_results, write_report
from pytest_rag.results import CallTally, CheckRecord, Highlights, JudgeScore, SampleExcerpt

# -- the round trip ------------------------------------------------------------------------------


def _records() -> list[CheckRecord]:
    third = 1 / 3
    claims = CheckRecord(
        test_id="tests/test_a.py::test_one[2]",
        metric="faithfulness",
        mode="claims",
        judge="ensemble(openai:a,openai:b)",
        score=0.5833333333333333,
        normalized=0.5833333333333333,
        scale_low=0,
        scale_high=1,
        threshold=0.8,
        passed=False,
        reasons="two claims unsupported",
        evidence={"claims": [{"claim": "x", "supported": False}]},
        details={"supported": 2.0, "ratio": third},
        # even repeat counts: a judge's score is the mean of the middle two, not a repeat
        judges=[
            JudgeScore(judge="openai:a", score=0.5, repeats=[third, 2 / 3]),
            JudgeScore(judge="openai:b", score=2 / 3, repeats=[0.6, 0.7333333333333333]),
        ],
        calls=CallTally(live=3, cached=1, tokens_in=1234, tokens_out=56, cost_usd=1.234567891e-05),
        sample_id="s-07",
        texts=SampleExcerpt(question="q?", answer="a.", contexts=["c1", "c2"], truncated=True),
        highlights=Highlights(statements=["x"], passages={1: "relevant: yes"}),
    )
    asked_again = CheckRecord(  # the same metric a second time in the same test and sample
        **{name: getattr(claims, name) for name in ("test_id", "metric", "mode", "judge", "sample_id")},
        score=1.0,
        scale_low=0,
        scale_high=1,
        judges=[JudgeScore(judge=j, score=1.0, repeats=[1.0, 1.0]) for j in ("openai:a", "openai:b")],
    )
    error = CheckRecord(
        test_id="tests/test_a.py::test_error",
        metric="answer_relevancy",
        judge="openai:a",
        error="the judge replied with invalid JSON twice",
        error_kind="JudgeError",
        evidence={"raw_reply": "{oops"},
        scale_low=1,
        scale_high=5,
        calls=CallTally(live=2, tokens_in=80),
    )
    return [claims, asked_again, error]


def test_a_results_file_reads_back_as_exactly_the_records_of_the_run(tmp_path: Path) -> None:
    records = _records()
    write_report(tmp_path / "results.json", records)
    assert read_results(tmp_path / "results.json") == report_order(records)


def test_report_order_does_not_depend_on_the_order_checks_were_recorded() -> None:
    one, two, error = _records()
    assert report_order([error, one, two]) == report_order([one, error, two]) == [error, one, two]
    # the same metric twice in one test and sample: the order within the test is kept (#1 is the second)
    assert report_order([two, one, error]) == [error, two, one]


def test_the_latency_of_calls_is_not_written(tmp_path: Path) -> None:
    record = _records()[0].model_copy(update={"calls": CallTally(live=1, latency_s=1.5)})
    write_report(tmp_path / "r.json", [record])
    row = json.loads((tmp_path / "r.json").read_text())["checks"][0]
    assert row["calls"]["live"] == 1
    assert "latency_s" not in row["calls"]  # time: two runs over the same checks write the same file


# -- shards that do not fit together ---------------------------------------------------------------


def _shard(path: Path, records: list[CheckRecord]) -> Path:
    write_report(path, records)
    return path


def test_a_check_in_two_shards_is_refused_with_both_files(tmp_path: Path) -> None:
    records = _records()
    one = _shard(tmp_path / "one.json", records[:2])
    two = _shard(tmp_path / "two.json", records[1:])  # the second check is in both
    with pytest.raises(
        ValueError,
        match=r"check tests/test_a.py::test_one\[2\]\[s-07\] .* is in both .*one.json and .*two.json",
    ):
        combine([load_shard(one), load_shard(two)])


def test_the_same_shard_file_twice_is_refused(tmp_path: Path) -> None:
    one = _shard(tmp_path / "one.json", _records())
    with pytest.raises(ValueError, match="given twice"):
        combine([load_shard(one), load_shard(tmp_path / "." / "one.json")])


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (None, "missing.json", "shard file .*missing.json does not exist; save one with --rag-report="),
        ("{not json", "bad.json", "shard file .*bad.json is not JSON"),
        ('{"checks": []}', "other.json", "is not a pytest-rag results file"),
        ("kind,check\n", "shard.csv", "is a CSV results file; pytest-rag reads back the JSON one"),
    ],
)
def test_a_bad_shard_file_is_one_line_naming_it_and_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, name: str, message: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert cli.main(["merge", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("pytest-rag: error: ")
    assert re.search(message, err), err


def test_a_malformed_gate_is_refused_before_anything_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard = _shard(tmp_path / "one.json", _records())
    assert cli.main(["merge", str(shard), "--fail-under", "faithfulness"]) == 1
    assert "--fail-under 'faithfulness' is malformed; write METRIC=VALUE" in capsys.readouterr().err
    assert cli.main(["merge", str(shard), "--min-alpha", "2"]) == 1
    assert "--min-alpha must be between -1 and 1" in capsys.readouterr().err
    # a gate naming no metric of the results and no built-in one: never evaluated, so refused
    assert cli.main(["merge", str(shard), "--fail-under", "faithfulnes=4"]) == 1
    assert "--fail-under faithfulnes: 'faithfulnes' is not a metric; did you mean 'faithfulness'?" in (
        capsys.readouterr().err
    )


def test_a_gate_the_merge_could_never_fail_or_never_pass_is_refused_as_the_run_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest's start-up refuses a bar off the metric's scale or a mode it does not have; so must the
    merge, where faithfulness=0.8 (a 0-1 habit on a 1-5 metric) would pass every suite."""
    records = _records()  # faithfulness[claims] (0-1) and faithfulness on 1-5, among others
    shard = _shard(tmp_path / "one.json", records)
    refused = {
        "faithfulness=0.8": "--fail-under faithfulness=0.8 is outside the metric's 1-5 scale, so the "
        "check could never fail; give a threshold from 1 to 5",
        "faithfulness[claims]=4": "--fail-under faithfulness[claims]=4 is outside the metric's 0-1 scale, "
        "so the check could never pass",
        "faithfulness[nomode]=3": "metric 'faithfulness' has no mode 'nomode'; its modes: ",
    }
    for gate, message in refused.items():
        assert cli.main(["merge", str(shard), "--fail-under", gate, "--allow-partial"]) == 1
        captured = capsys.readouterr()
        assert message in captured.err, captured.err
        assert "gates (" not in captured.out  # refused before anything was computed
    plugin = [r.model_copy(update={"metric": "tone", "mode": "default"}) for r in records[:1]]
    assert plugin[0].scale_low == 0 and plugin[0].scale_high == 1
    shard = _shard(tmp_path / "plugin.json", plugin)  # a plugin's metric: the scale its checks recorded
    assert cli.main(["merge", str(shard), "--fail-under", "tone=4", "--allow-partial"]) == 1
    assert "--fail-under tone=4 is outside the 0-1 scale of tone in these results" in capsys.readouterr().err


def test_a_merge_names_its_own_gold_options_and_refuses_them_before_merging(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The merge spells them --gold and --min-alpha: an error that says --rag-gold names an option
    the command does not have."""
    shard = _shard(tmp_path / "one.json", _records())
    assert cli.main(["merge", str(shard), "--min-alpha", "0.5", "--allow-partial"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "pytest-rag: error: --min-alpha needs gold labels: pass --gold=PATH\n"
    missing = tmp_path / "gold.jsonl"
    assert cli.main(["merge", str(shard), "--gold", str(missing), "--allow-partial"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"pytest-rag: error: gold file {missing} does not exist (--gold)\n"


def test_shards_without_checks_merged_anyway_say_so_and_fail_the_gates_they_cannot_evaluate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _shard(tmp_path / "empty.json", [])
    assert cli.main(["merge", str(empty), "--fail-under", "faithfulness=4", "--allow-partial"]) == 1
    out = capsys.readouterr().out
    assert "no judged check in 1 shard file(s)" in out
    assert "faithfulness >= 4 FAILED: not evaluated: no check of faithfulness ran in this run" in out


def test_a_merge_whose_gated_checks_all_ended_in_judge_errors_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shard's tests were errors, but the merge is the verdict job: its gate judged nothing."""
    scored = CheckRecord(
        test_id="t.py::test_a", metric="faithfulness", judge="openai:m", score=4, scale_low=1, scale_high=5
    )
    errored = scored.model_copy(
        update={
            "test_id": "t.py::test_b",
            "metric": "answer_relevancy",
            "score": None,
            "error": "unreadable reply",
            "error_kind": "JudgeError",
        }
    )
    shard = _shard(tmp_path / "one.json", [scored, errored])
    gates = ["--fail-under", "faithfulness=3", "--fail-under", "answer_relevancy=3", "--allow-partial"]
    assert cli.main(["merge", str(shard), *gates]) == 1
    out = capsys.readouterr().out
    assert (
        "answer_relevancy >= 3 FAILED: not evaluated: all 1 check(s) of answer_relevancy [openai:m] "
        "ended without a verdict (1 JudgeError)"
    ) in out
    assert "faithfulness >= 3 passed" in out


def test_a_merge_holding_a_check_without_a_verdict_fails_even_with_no_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The unsharded run made that check's test an error; a merge that ends 0 would be the one green
    verdict a suite with an unjudged check gets. A dry run's checks, counted by design, are no error."""
    scored = CheckRecord(
        test_id="t.py::test_a", metric="faithfulness", judge="openai:m", score=4, scale_low=1, scale_high=5
    )
    unjudged = scored.model_copy(
        update={"test_id": "t.py::test_b", "score": None, "error": "x", "error_kind": "JudgeError"}
    )
    shard = _shard(tmp_path / "one.json", [scored, unjudged])
    assert cli.main(["merge", str(shard), "--allow-partial"]) == 1
    out = capsys.readouterr().out
    assert (
        "pytest-rag: 1 check(s) of these shards ended without a verdict (1 JudgeError), so the merge "
        "fails as the unsharded run would: each shard job's log names its tests, reported as errors"
    ) in out
    counted = unjudged.model_copy(update={"error_kind": "NotJudgedError"})
    dry = _shard(tmp_path / "dry.json", [counted])
    assert cli.main(["merge", str(dry), "--allow-partial"]) == 0
    assert "ended without a verdict" not in capsys.readouterr().out
    # one shard run with --rag-dry-run by mistake among judged ones: its checks were never judged
    judged = _shard(tmp_path / "judged.json", [scored])
    assert (
        cli.main(["merge", str(judged), str(dry), "--fail-under", "faithfulness=3", "--allow-partial"]) == 1
    )
    assert "ended without a verdict (1 NotJudgedError)" in capsys.readouterr().out


# -- the proof: unsharded and three shards print the same verdict ----------------------------------

SUITE = """
import pytest
from pytest_rag.errors import RagError

@pytest.mark.parametrize("i", range(12))
def test_answer(rag_judge, i):
    answer = f"Order {i}: refunds take {i % 5 + 2} business days." + (" BROKEN" if i == 7 else "")
    try:
        rag_judge.faithfulness(answer, [f"Refunds take {i % 4 + 2} business days."], threshold=3)
        rag_judge.answer_relevancy(f"How long do refunds for order {i} take?", answer, threshold=3)
    except RagError:
        pass  # recorded as a judge error; the summary counts it

def test_batch(rag_judge):
    samples = [
        {"id": f"b{i}", "question": f"When does store {i} open?", "answer": f"Store {i} opens at {i + 7}am.",
         "contexts": [f"Store {i} opens at {i + 8}am on weekdays."]}
        for i in range(5)
    ]
    rag_judge.evaluate(samples, metrics=["faithfulness", "answer_relevancy"])
"""


class VariedResponder:
    """Scores that vary by request and repeat yet are the same in every run: the score comes from a
    hash of the request body, its salt and how often this body was asked before in the run (repeats
    of a check send the same body). A request about a "BROKEN" answer gets an out-of-scale score, so
    its check ends in a judge error after the repair attempt."""

    def __init__(self, salt: str) -> None:
        self.salt = salt
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = schema_responder(request)
        if not (isinstance(reply, JsonReply) and isinstance(reply.value, dict) and "score" in reply.value):
            return reply
        body = json.dumps(request.body, sort_keys=True)
        if "BROKEN" in body:
            return Reply.json({**reply.value, "score": 99})
        with self.lock:
            occurrence = self.seen[body]
            self.seen[body] += 1
        digest = hashlib.sha256(f"{self.salt}|{occurrence}|{body}".encode()).digest()
        return Reply.json({**reply.value, "score": 1 + digest[0] % 5})


def _summary(output: str) -> list[str]:
    """The lines under the "pytest-rag summary" rule, up to the next rule."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "pytest-rag summary" in line and line.startswith("="))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("=="))
    return lines[start + 1 : end]


def _without_file_lines(lines: list[str]) -> list[str]:
    """The summary without what only a test run can say: the files it wrote, the tests it reported
    as errors."""
    written = ("results written to", "HTML report written to")
    return [
        line for line in lines if not line.startswith(written) and "test(s) reported as errors" not in line
    ]


def _merged_summary(out: list[str], shards: int) -> list[str]:
    """The lines of a merge's output after its header, the one line per shard it lists and the line
    on checks without a verdict (the counterpart of the tests a run reports as errors, which
    :func:`_without_file_lines` leaves out of the run's summary)."""
    assert out[0] == f"pytest-rag summary of {shards} shard(s):"
    rest = out[1 + shards :]
    return rest[1:] if rest and "ended without a verdict" in rest[0] else rest


def _repeats_unordered(path: Path) -> object:
    """A results file's checks and aggregates with each judge's repeats sorted: the fake judge
    answers the concurrent repeats of a check (identical requests) in whichever order they arrive.
    The run record is left out: it says which run wrote the file."""
    data = json.loads(path.read_text())
    del data["run"]
    for row in data["checks"]:
        row["judge_scores"] = {judge: sorted(values) for judge, values in row["judge_scores"].items()}
    return data


def _run(pytester: pytest.Pytester, salt: str, cache: Path, *extra: str) -> pytest.RunResult:
    with FakeLLMServer(VariedResponder(salt)) as server:
        result = pytester.runpytest(
            *rag_args(
                server,
                cache,
                "--rag-judge-repeat=2",
                "--rag-max-attempts=1",
                *extra,
                judge="openai:fake-a,openai:fake-b",
            )
        )
        assert not server.errors, server.errors
    return result


def test_three_shards_merge_into_the_summary_gates_and_results_of_the_unsharded_run(
    pytester: pytest.Pytester, judge_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    base = pytester.path
    baseline = base / "baseline.json"
    _run(pytester, "yesterday", base / "cache-baseline", f"--rag-report={baseline}").assert_outcomes(
        passed=12, errors=1
    )
    gates = ["faithfulness=1.5", "answer_relevancy=4.5"]  # the first passes, the second fails

    whole = _run(
        pytester,
        "today",
        base / "cache-whole",
        f"--rag-report={base / 'whole.json'}",
        f"--rag-baseline={baseline}",
        *[f"--rag-fail-under={gate}" for gate in gates],
    )
    whole.assert_outcomes(passed=12, errors=1)  # the BROKEN answer's test caught its judge error
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    expected = _summary(whole.stdout.str())
    assert any("answer_relevancy >= 4.5 FAILED" in line for line in expected)
    assert any("judge errors: " in line for line in expected)  # the BROKEN answer's faithfulness
    assert any("repeated judgments" in line for line in expected)
    assert any("judge agreement" in line for line in expected)
    assert any("change from baseline baseline.json" in line for line in expected)

    shards = []
    for group in (1, 2, 3):  # no gates and no baseline on a shard: they need the whole suite
        shard = base / f"shard-{group}.json"
        result = _run(
            pytester,
            "today",
            base / f"cache-shard-{group}",
            "--splits=3",
            f"--group={group}",
            f"--rag-report={shard}",
        )
        checks = json.loads(shard.read_text())["checks"]
        assert checks, f"shard {group} judged nothing"
        broken = any(row["test_id"].endswith("test_answer[7]") for row in checks)
        assert result.ret == (pytest.ExitCode.TESTS_FAILED if broken else pytest.ExitCode.OK)
        shards.append(str(shard))
    per_shard = [{row["test_id"] for row in json.loads(Path(s).read_text())["checks"]} for s in shards]
    assert sum(len(tests) for tests in per_shard) == len(set().union(*per_shard)) == 13

    capsys.readouterr()
    merged_report, merged_html = base / "merged.json", base / "merged.html"
    status = cli.main(
        [
            "merge",
            *shards,
            "--report",
            str(merged_report),
            "--html",
            str(merged_html),
            "--baseline",
            str(baseline),
            *[arg for gate in gates for arg in ("--fail-under", gate)],
        ]
    )
    out = capsys.readouterr().out.splitlines()
    # each shard is listed with its group, its tests, its checks and its exit status
    for group, shard_file in enumerate(shards, start=1):
        run = json.loads(Path(shard_file).read_text())["run"]
        checks = len(json.loads(Path(shard_file).read_text())["checks"])
        tests = run["tests_run"]
        # the BROKEN answer's test caught its judge error, so it is an error (a check without a verdict)
        errors = int(any(t.endswith("test_answer[7]") for t in per_shard[group - 1]))
        outcomes = {"passed": tests - errors, "deselected": 13 - tests} | ({"error": 1} if errors else {})
        assert run["tests_collected"] == tests and run["outcomes"] == outcomes
        status_text = "exit status 1 (tests failed)" if errors else "exit status 0 (ok)"
        error_text = ", 1 error" if errors else ""
        assert out[group] == (
            f"  {shard_file}: group {group} of 3, {tests} of {tests} tests ran ({tests - errors} passed, "
            f"{13 - tests} deselected{error_text}), {checks} checks, {status_text}"
        )
    assert _without_file_lines(_merged_summary(out, 3)) == _without_file_lines(expected)
    assert status == whole.ret == 1
    assert f"results written to {merged_report}" in out and f"HTML report written to {merged_html}" in out
    assert _repeats_unordered(merged_report) == _repeats_unordered(base / "whole.json")
    # the merged file's run record is the whole suite's: every test of the three groups, no deselection
    merged_run = json.loads(merged_report.read_text())["run"]
    assert (merged_run["tests_collected"], merged_run["tests_run"]) == (13, 13)
    assert merged_run["outcomes"] == {"passed": 12, "error": 1} and merged_run["exit_status"] == 1
    assert [entry["file"] for entry in merged_run["shards"]] == shards
    assert [entry["run"]["group"] for entry in merged_run["shards"]] == [1, 2, 3]
    assert "12 passed, 1 error" in merged_html.read_text(encoding="utf-8")
    assert "answer_relevancy" in merged_html.read_text(encoding="utf-8")

    # with the passing gate alone, the gate passes as the unsharded run's gate line says, but the
    # merge fails as that run did: the BROKEN answer's check ended without a verdict
    status = cli.main(["merge", *shards, "--fail-under", gates[0]])
    out = capsys.readouterr().out.splitlines()
    assert status == whole.ret == 1
    gate_line = next(line for line in expected if line.startswith("  faithfulness >= 1.5 passed"))
    assert gate_line in out
    assert out[4].startswith("pytest-rag: 1 check(s) of these shards ended without a verdict (1 JudgeError")
    # and -q prints the one-line-per-metric summary of pytest -q
    assert cli.main(["merge", *shards, "-q"]) == 1
    quiet = _merged_summary(capsys.readouterr().out.splitlines(), 3)
    assert quiet[0].startswith("answer_relevancy [ensemble(openai:fake-a,openai:fake-b)]: mean ")


def test_a_pytest_xdist_run_prints_the_summary_of_the_serial_run(
    pytester: pytest.Pytester, judge_env: None
) -> None:
    """Workers hand their records to the controller as they finish; the intervals are resampled by
    position, so without one order for the summary the two runs would print different intervals."""
    pytester.makepyfile(test_suite=SUITE)
    outputs = []
    for name, extra in (("serial", ()), ("xdist", ("-n", "2"))):
        with FakeLLMServer(VariedResponder("today")) as server:
            args = rag_args(
                server,
                pytester.path / f"cache-{name}",
                "--rag-judge-repeat=2",
                "--rag-max-attempts=1",
                "-p",
                "no:syrupy",
                "-p",
                "no:anyio",
                *extra,
                judge="openai:fake-a,openai:fake-b",
            )
            result = pytester.runpytest_subprocess(*args)
        result.assert_outcomes(passed=12, errors=1)
        outputs.append(_summary(result.stdout.str()))
    serial, xdist = outputs
    assert any("95% CI" in line for line in serial) and any("judge agreement" in line for line in serial)
    assert xdist == serial
