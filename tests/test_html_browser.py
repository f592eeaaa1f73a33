"""The HTML report as a person sees it: opened in headless Chromium, kept off the network.

Each report is loaded from a file:// URL; the test reads what rendered (plots, table rows, the
detail view) through the DevTools protocol, fails on any console error, uncaught exception or
JavaScript dialog, and inspects a screenshot of the first plot for drawn (non-blank) pixels.
Skipped when Debian's chromium is not installed (``apt-get install -y chromium``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chromium_cdp import CHROMIUM, Chromium, png_pixels
from pytest_rag.report.comparison import Run
from pytest_rag.report.html.page import write_html
from report_records import records

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium: apt-get install -y chromium"
)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    with Chromium(tmp_path_factory.mktemp("chromium-profile")) as chromium:
        yield chromium


def open_report(browser: Chromium, path: Path) -> dict[str, object]:
    browser.errors.clear()
    browser.open(path.as_uri())
    state: dict[str, object] = browser.js(
        "({ready: document.documentElement.dataset.ragReady === '1', checks: ragReport.checks,"
        " shown: ragReport.shown, plots: document.querySelectorAll('svg.rag-plot').length,"
        " rows: document.querySelectorAll('svg.rag-plot g.rag-row').length,"
        " points: document.querySelectorAll('circle.rag-point').length,"
        " pager: document.getElementById('pager').textContent})"
    )
    return state


def test_report_renders_plots_table_and_detail_without_errors(browser: Chromium, tmp_path: Path) -> None:
    path = write_html(tmp_path / "report.html", records(120))
    state = open_report(browser, path)
    assert state["ready"] is True
    assert state["checks"] == 120
    assert state["shown"] == 100  # the first page of the table
    assert state["plots"] == 3  # faithfulness, answer_relevancy, no_answer
    assert state["rows"] == 6  # each metric by two judges
    assert state["points"] == 120 - 2  # one dot per scored check (two judge errors)
    assert state["pager"] == "checks 1–100 of 120"

    # Sorting by score puts the lowest first; filtering by outcome keeps only errors.
    scores = browser.js(
        "document.querySelector('th[data-key=score] button').click();"
        "[...document.querySelectorAll('#checks tbody tr')].slice(0, 3).map(r => r.children[2].textContent)"
    )
    assert scores == ["- / 1-5", "- / 1-5", "0 / 0-1"]
    errors_only = browser.js(
        "const s = document.getElementById('status-filter'); s.value = '3'; s.dispatchEvent(new Event('change'));"
        "document.querySelectorAll('#checks tbody tr[data-check]').length"
    )
    assert errors_only == 2

    # The hostile answer is text in the detail view, its unsupported sentence marked, its context span found.
    detail = browser.js(
        "ragReport.showDetail(0); const d = document.getElementById('detail');"
        "({hidden: d.hidden, answer: d.querySelector('.answer').textContent,"
        " flagged: [...d.querySelectorAll('.sent.unsupported')].map(s => s.textContent),"
        " marks: [...d.querySelectorAll('mark.active')].map(m => m.textContent),"
        " scripts: document.scripts.length})"
    )
    assert detail["hidden"] is False
    assert "<script>alert('pwned')</script>" in detail["answer"]
    assert detail["flagged"] == ["<script>alert('pwned')</script> We also give a free puppy."]
    assert detail["scripts"] == 2
    assert browser.dialogs == []
    assert browser.errors == []

    browser.js("window.scrollTo(0, 0)")
    box = browser.js(
        "(() => { const r = document.querySelector('svg.rag-plot').getBoundingClientRect();"
        " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })()"
    )
    width, height, rows = png_pixels(browser.screenshot(clip=box))
    colours = {row[x * 3 : x * 3 + 3] for row in rows[:: max(1, height // 60)] for x in range(0, width, 3)}
    assert len(colours) > 8  # boxes, dots, threshold and text, not a blank area
    blank = sum(1 for row in rows for x in range(0, width, 4) if row[x * 3 : x * 3 + 3] == b"\xff\xff\xff")
    assert blank < 0.97 * height * (width // 4 + 1)


def test_rows_of_samples_without_an_id_read_differently(browser: Chromium, tmp_path: Path) -> None:
    batch = [
        r.model_copy(update={"test_id": "tests/t.py::test_batch", "sample_id": None, "sample_index": i})
        for i, r in enumerate(records(3))
    ]
    open_report(browser, write_html(tmp_path / "batch.html", batch))
    labels = browser.js(
        "[...document.querySelectorAll('#checks tbody tr')].map(r => r.children[0].textContent)"
    )
    assert sorted(labels) == [f"tests/t.py::test_batch[#{i}]" for i in range(3)]
    shown = browser.js(
        "ragReport.showDetail(2); [...document.querySelectorAll('#detail dd')].slice(0, 2).map(d => d.textContent)"
    )
    assert shown == ["tests/t.py::test_batch[#2]", "tests/t.py::test_batch"]
    assert browser.errors == []


def test_reports_with_no_and_one_judgment_open_cleanly(browser: Chromium, tmp_path: Path) -> None:
    empty = open_report(browser, write_html(tmp_path / "empty.html", []))
    assert empty["ready"] is True and empty["checks"] == 0 and empty["plots"] == 0
    assert (
        browser.js("document.querySelector('#checks tbody').textContent") == "No judged checks in this run."
    )
    one = open_report(browser, write_html(tmp_path / "one.html", records(1)))
    assert one["checks"] == 1 and one["shown"] == 1 and one["plots"] == 1 and one["points"] == 1
    assert browser.errors == [] and browser.dialogs == []


def test_ten_thousand_checks_open_and_stay_responsive(browser: Chromium, tmp_path: Path) -> None:
    path = write_html(tmp_path / "large.html", records(10_000))
    assert path.stat().st_size < 2_000_000
    state = open_report(browser, path)
    assert state["checks"] == 10_000 and state["shown"] == 100
    # Sort the whole table and page to the end: the page answers (no hang, no error).
    last = browser.js(
        "document.querySelector('th[data-key=tokens] button').click();"
        "for (let i = 0; i < 99; i++) document.getElementById('next').click();"
        "document.getElementById('pager').textContent"
    )
    assert last == "checks 9901–10000 of 10000"
    assert browser.errors == []


def test_compared_runs_render_change_plots(browser: Chromium, tmp_path: Path) -> None:
    before, after = records(60), records(60)
    path = write_html(tmp_path / "compare.html", after, runs=[Run("before", before), Run("after", after)])
    open_report(browser, path)
    counts = browser.js(
        "({changes: document.querySelectorAll('svg.rag-change').length,"
        " pairs: [...document.querySelectorAll('g.rag-change-row')].map(g => g.dataset.pairs)})"
    )
    assert counts["changes"] == 6  # three metrics by two judges
    assert all(int(p) > 0 for p in counts["pairs"])
    assert browser.errors == []


def test_uncertain_checks_are_marked_selectable_and_explained(browser: Chromium, tmp_path: Path) -> None:
    made = records(6)
    for i, chance in ((0, 0.5), (1, 0.95), (2, 0.2)):
        made[i] = made[i].model_copy(update={"expected_score": 3.5, "pass_probability": chance})
    state = open_report(browser, write_html(tmp_path / "report.html", made))
    assert state["ready"] is True
    marked = browser.js(
        "[...document.querySelectorAll('#checks tbody tr')].filter(r => r.querySelector('.badge.uncertain'))"
        ".map(r => Number(r.dataset.check))"
    )
    assert marked == [0, 2]  # 0.2 is in the band, 0.95 is not
    selected = browser.js(
        "const s = document.getElementById('status-filter'); s.value = '4'; s.dispatchEvent(new Event('change'));"
        "[...document.querySelectorAll('#checks tbody tr[data-check]')].map(r => Number(r.dataset.check))"
    )
    assert selected == [0, 2]
    detail = browser.js(
        "ragReport.showDetail(0); document.getElementById('detail').querySelector('.kv').textContent"
    )
    assert "expected score3.5" in detail
    assert "pass probability0.5 — uncertain" in detail
    assert browser.errors == []
