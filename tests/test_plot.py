"""Comparing runs from results files: reading them back, pairing checks, and ``pytest-rag plot``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pytest_rag.cli import main
from pytest_rag.errors import InputError
from pytest_rag.report.comparison import Run, compare_runs, load_run, records_from_json
from pytest_rag.report.png_plot import PlotError, plot_runs, require_matplotlib
from pytest_rag.report.results_file import write_report
from report_records import check


def run_files(tmp_path: Path, shift: float = 1.0) -> tuple[Path, Path]:
    before = [check(i, score=float(1 + i % 3)) for i in range(12)]
    after = [check(i, score=float(1 + i % 3) + shift) for i in range(10)]  # two checks dropped
    first, second = tmp_path / "before.json", tmp_path / "after.json"
    write_report(first, before)
    write_report(second, after)
    return first, second


def test_a_results_file_reads_back_as_the_same_checks(tmp_path: Path) -> None:
    first, _ = run_files(tmp_path)
    run = load_run(first)
    assert run.label == "before"
    assert len(run.records) == 12
    original = {r.test_id: r.score for r in (check(i, score=float(1 + i % 3)) for i in range(12))}
    assert {r.test_id: r.score for r in run.records} == original
    assert all(r.metric == "faithfulness" and r.threshold == 4.0 for r in run.records)


def test_paired_change_uses_only_the_checks_both_runs_scored(tmp_path: Path) -> None:
    first, second = run_files(tmp_path, shift=1.0)
    (comparison,) = compare_runs([load_run(first), load_run(second)])
    (change,) = comparison.changes
    assert change.n_shared == 10
    assert change.delta == pytest.approx(1.0)
    assert (change.ci_low, change.ci_high) == (pytest.approx(1.0), pytest.approx(1.0))
    assert change.significant is True  # every shared check moved up by one
    assert [d.n for d in comparison.distributions if d is not None] == [12, 10]


def test_record_dumps_and_bare_lists_are_accepted_too() -> None:
    dump = check(1).model_dump(mode="json")
    assert records_from_json({"records": [dump]}, "x")[0] == check(1)
    assert records_from_json([dump], "x")[0].texts == check(1).texts
    with pytest.raises(InputError, match="no list of checks"):
        records_from_json({"format": "something else"}, "x.json")


def test_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    first, second = run_files(tmp_path)
    out = plot_runs([load_run(first), load_run(second)], tmp_path / "cmp.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PlotError, match=r"pip install 'pytest-rag\[plot\]'"):
        require_matplotlib()


def test_the_cli_writes_an_html_comparison_without_matplotlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    first, second = run_files(tmp_path)
    out = tmp_path / "compare.html"
    assert main(["plot", str(first), str(second), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="comparison"' in page and 'data-pairs="10"' in page
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "-o", "x.png"], "does not exist; write one with --rag-report"),
        (["{first}", "-o", "x.txt"], "name the output *.png, *.svg or *.pdf"),
    ],
)
def test_the_cli_explains_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    first, _ = run_files(tmp_path)
    argv = ["plot", *(a.format(first=first) for a in args)]
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="is not JSON"):
        load_run(bad)
    bad.write_text(json.dumps({"checks": [{"kind": "check"}]}), encoding="utf-8")
    with pytest.raises(InputError, match=r"check 1 of .* is malformed"):
        load_run(bad)


def test_runs_without_checks_have_nothing_to_plot(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nothing to plot"):
        plot_runs([Run("empty", [])], tmp_path / "x.png")
