"""The HTML report shows how the run ended, gates included: a report read on its own (a CI artifact)
must never read green for a run that a gate, a lost file or a check without a verdict failed."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag import cli
from pytest_rag.report.results_file import write_report
from pytest_rag.results import CheckRecord

PASSING = """
def test_faithful(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds take five days."], threshold=1)
"""


def verdict_of(path: Path) -> tuple[str, str]:
    """The verdict section's outcome ("passed"/"failed") and its text, unescaped."""
    page = path.read_text(encoding="utf-8")
    match = re.search(r'<section id="verdict" class="verdict (\w+)".*?</section>', page, re.S)
    assert match is not None, "the report has no verdict section"
    return match.group(1), html.unescape(re.sub(r"<[^>]+>", "\n", match.group(0)))


def _run(pytester: pytest.Pytester, tmp_path: Path, *extra: str) -> pytest.RunResult:
    pytester.makepyfile(PASSING)
    return pytester.runpytest(
        "-p", "no:cacheprovider", "--rag-judge=local", f"--rag-cache-dir={tmp_path / 'cache'}", *extra
    )


def test_a_gate_that_fails_a_run_whose_checks_all_passed_is_the_reports_verdict(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    result = _run(pytester, tmp_path, f"--rag-html={report}", "--rag-fail-under", "context_recall=3")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1)
    outcome, text = verdict_of(report)
    assert outcome == "failed"
    assert "context_recall >= 3 FAILED: not evaluated: no check of context_recall ran" in text
    assert "pytest-rag: session failed by 1 gate(s)" in text


def test_a_run_that_passed_says_so_with_its_gates(pytester: pytest.Pytester, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    result = _run(pytester, tmp_path, f"--rag-html={report}")
    assert result.ret == pytest.ExitCode.OK
    outcome, text = verdict_of(report)
    assert outcome == "passed"
    assert "FAILED" not in text


def test_a_results_file_lost_after_the_report_was_written_fails_the_reports_verdict_too(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makeconftest(
        """
        from pathlib import Path

        def pytest_sessionstart(session):
            Path("out").write_text("a file where the results file's folder should be")
        """
    )
    report = tmp_path / "report.html"
    result = _run(
        pytester, tmp_path, f"--rag-html={report}", f"--rag-report={pytester.path / 'out' / 'r.json'}"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcome, text = verdict_of(report)
    assert outcome == "failed"
    assert "could not be written" in text


def test_a_merge_report_shows_the_merges_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scored = CheckRecord(
        test_id="t.py::test_a", metric="faithfulness", judge="openai:m", score=4, scale_low=1, scale_high=5
    )
    unjudged = scored.model_copy(
        update={"test_id": "t.py::test_b", "score": None, "error": "x", "error_kind": "JudgeError"}
    )
    shard = tmp_path / "one.json"
    write_report(shard, [scored, unjudged])
    report = tmp_path / "merged.html"
    assert cli.main(["merge", str(shard), "--allow-partial", "--html", str(report)]) == 1
    capsys.readouterr()
    outcome, text = verdict_of(report)
    assert outcome == "failed"
    assert "1 check(s) of these shards ended without a verdict (1 JudgeError)" in text


LOST_FOLDER = """
from pathlib import Path

def pytest_sessionstart(session):
    Path("out").write_text("a file where the output folder should be")  # after start-up's checks
"""


@pytest.mark.parametrize(
    ("option", "what", "name"),
    [
        ("--rag-report={out}/results.json", "the results file", "results.json"),
        ("--rag-html={out}/report.html", "the HTML report", "report.html"),
        ("--rag-cache-export={out}/judgments.jsonl", "the judgment export", "judgments.jsonl"),
    ],
)
@pytest.mark.parametrize("summary", ["shown", "hidden"])
def test_a_file_that_cannot_be_written_at_the_end_is_told_as_that_not_as_a_gate(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    tmp_path: Path,
    option: str,
    what: str,
    name: str,
    summary: str,
) -> None:
    """A results file, HTML report or judgment export lost at the end was told as "session failed by
    1 gate(s)" though no gate was set."""
    pytester.makeconftest(LOST_FOLDER)
    pytester.makepyfile(PASSING)
    out = pytester.path / "out"
    extra = ["--rag-no-summary"] if summary == "hidden" else []
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"), option.format(out=out), *extra)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest-rag: {what} {out / name} could not be written (*); give a path in a folder you can write to",
            f"pytest-rag: session failed: could not write {name}",
        ]
    )
    assert "gate(s)" not in result.stdout.str() and "pytest-rag gates" not in result.stdout.str()
