"""Comparing runs from results files: reading them back, pairing checks, and ``pytest-rag plot``."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest

from pytest_rag.cli import main
from pytest_rag.errors import InputError
from pytest_rag.regression.gates import Conclusion, compare_baseline
from pytest_rag.report.comparison import Run, compare_runs
from pytest_rag.report.png_plot import PlotError, plot_runs, require_matplotlib
from pytest_rag.report.results_file import FORMAT, VERSION, ResultsFileError, build_report, write_report
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
    run = Run.read(first)
    assert run.label == "before"
    assert len(run.records) == 12
    original = {r.test_id: r.score for r in (check(i, score=float(1 + i % 3)) for i in range(12))}
    assert {r.test_id: r.score for r in run.records} == original
    assert all(r.metric == "faithfulness" and r.threshold == 4.0 for r in run.records)


def test_paired_change_uses_only_the_checks_both_runs_scored(tmp_path: Path) -> None:
    first, second = run_files(tmp_path, shift=1.0)
    (comparison,) = compare_runs([Run.read(first), Run.read(second)])
    (change,) = comparison.changes
    assert change.n_shared == 10
    assert change.delta == pytest.approx(1.0)
    assert [change.ci_low, change.ci_high] == pytest.approx([1.0, 1.0])
    assert change.significant is True  # every shared check moved up by one
    assert [d.n for d in comparison.distributions if d is not None] == [12, 10]


def test_the_plot_and_the_baseline_gate_report_the_same_paired_change(tmp_path: Path) -> None:
    first, second = run_files(tmp_path, shift=-1.0)
    (comparison,) = compare_runs([Run.read(first), Run.read(second)])
    (change,) = comparison.changes
    out = Conclusion()
    compare_baseline(Run.read(second).records, first, out)
    (line,) = out.lines[1:]
    assert change.delta is not None and change.ci_low is not None and change.ci_high is not None
    assert f"change {change.delta:+.2f} [{change.ci_low:+.2f}, {change.ci_high:+.2f}]" in line
    assert f"over {change.n_shared} shared checks; unpaired: 2 baseline-only, 0 new * drop" in line


def test_only_a_results_file_is_read_back(tmp_path: Path) -> None:
    dumps = tmp_path / "dumps.json"
    dumps.write_text(json.dumps([check(1).model_dump(mode="json")]), encoding="utf-8")
    with pytest.raises(ResultsFileError, match="is not a pytest-rag results file"):
        Run.read(dumps)
    later = tmp_path / "later.json"
    later.write_text(json.dumps({**build_report([check(1)]), "version": VERSION + 1}), encoding="utf-8")
    with pytest.raises(ResultsFileError, match=f"has format version {VERSION + 1}; this pytest-rag reads"):
        Run.read(later)
    table = tmp_path / "run.csv"
    write_report(table, [check(1)])
    with pytest.raises(ResultsFileError, match="is a CSV results file; pytest-rag reads back the JSON one"):
        Run.read(table)


def test_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    first, second = run_files(tmp_path)
    out = plot_runs([Run.read(first), Run.read(second)], tmp_path / "cmp.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_one_run_of_one_metric_is_laid_out_without_a_warning(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    first, _ = run_files(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "Tight layout not applied" fails this test
        out = plot_runs([Run.read(first)], tmp_path / "one.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("suffix", [".svg", ".pdf"])
def test_plot_writes_the_format_its_suffix_names(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    first, _ = run_files(tmp_path)
    data = plot_runs([Run.read(first)], tmp_path / f"one{suffix}").read_bytes()
    assert data.startswith(b"%PDF") if suffix == ".pdf" else b"<svg" in data[:2000]


def test_a_plot_that_cannot_be_written_names_the_file_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    first, _ = run_files(tmp_path)
    (tmp_path / "taken").write_text("a file, not a folder")
    out = tmp_path / "taken" / "cmp.png"
    assert main(["plot", str(first), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"the plot {out} could not be written" in err and "a folder you can write to" in err
    assert not out.parent.is_dir()


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
        (["missing.json", "-o", "x.png"], "does not exist; save one with --rag-report"),
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
    with pytest.raises(ResultsFileError, match="is not JSON"):
        Run.read(bad)
    bad.write_text(json.dumps({"format": FORMAT, "version": VERSION, "checks": [{"kind": "check"}]}))
    with pytest.raises(ResultsFileError, match=r"check 1 of results file .* is malformed: 'test_id' is None"):
        Run.read(bad)


def test_runs_without_checks_have_nothing_to_plot(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nothing to plot"):
        plot_runs([Run("empty", [])], tmp_path / "x.png")
