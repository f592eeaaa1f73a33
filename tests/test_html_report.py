"""The HTML report: what it embeds, how it escapes, how it stays small, and how a run writes it."""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from pytest_rag.inputs import Sample
from pytest_rag.report.comparison import Run
from pytest_rag.report.html.page import render_html
from pytest_rag.report.html.payload import SIZE_LIMIT, build_payload, context_grades, script_json
from pytest_rag.report.html.sentences import match_sentences
from pytest_rag.results import CheckPlace, CheckRecord, Evidence, Highlights, MetricResult
from pytest_rag.run_record import RunRecord
from report_records import ANSWER, CONTEXTS, check


def payload_of(page: str) -> dict[str, object]:
    match = re.search(r'<script type="application/json" id="rag-data">(.*?)</script>', page, re.S)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


def test_markup_in_answers_contexts_reasons_and_judges_never_becomes_markup() -> None:
    hostile = "</script><script>alert('pwned')</script><img src=x onerror=alert(1)> & done"
    record = check(
        answer=hostile,
        judge="<b>judge</b>",
        evidence={"unsupported_statements": [hostile]},
        unsupported=(hostile,),
    )
    record = record.model_copy(update={"reasons": hostile, "test_id": "tests/t.py::test_x[<i>]"})
    page = render_html([record])
    # Only the report's own two script elements exist; the hostile text appears in none of them raw.
    assert page.count("<script") == 2
    assert hostile not in page and "<img" not in page and "<script>alert" not in page
    assert html.escape("<b>judge</b>") in page  # the plot label, escaped by Python
    data = payload_of(page)
    strings = data["strings"]
    assert isinstance(strings, list) and hostile in strings  # intact once the browser parses the JSON


def test_script_json_cannot_close_its_element_or_break_lines() -> None:
    text = script_json({"a": "</script>\u2028<!--&"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script>\u2028<!--&"}


@pytest.mark.parametrize("count", [0, 1])
def test_empty_and_single_check_reports_are_complete_pages(count: int) -> None:
    records = [check(i) for i in range(count)]
    page = render_html(records)
    data = payload_of(page)
    columns = data["checks"]
    assert isinstance(columns, dict)
    assert len(columns["metric"]) == count
    assert page.rstrip().endswith("</html>")
    assert ('id="no-plots"' in page) == (count == 0)
    assert page.count('class="rag-plot"') == (0 if count == 0 else 1)


def _cards(page: str) -> dict[str, str]:
    """The run card's figures by label."""
    found = re.findall(r'<div class="card"><b>([^<]*)</b><span>([^<]*)</span></div>', page)
    return {html.unescape(label): html.unescape(value) for value, label in found}


def test_the_run_card_counts_checks_as_checks_and_tests_as_pytest_counted_them() -> None:
    """A test holds several checks and an xfailed test's failed checks are failed checks: the card
    once said "3 passed / 2 failed" of checks where pytest said 2 passed, 2 xfailed."""
    records = [check(0), check(1), check(2, score=2.0), check(3, score=1.0), check(4, error="timed out")]
    run = RunRecord(
        run_id="r1",
        plugin_version="0.1.0",
        tests_collected=5,
        tests_run=4,
        exit_status=1,
        outcomes={"xfailed": 2, "passed": 2, "deselected": 3},
        stopped_early="stopping after 1 failures",
    )
    cards = _cards(render_html(records, run=run))
    assert (
        cards["tests, as pytest counted them (4 of 5 collected ran)"] == "2 passed, 3 deselected, 2 xfailed"
    )
    assert cards["stopping after 1 failures: not every check of the suite was judged"] == "stopped early"
    assert (cards["checks"], cards["checks passed"], cards["checks failed"]) == ("5", "2", "2")
    assert cards["checks with judge errors (not scored)"] == "1"
    # where no run record is known (a report of records alone), only the checks are counted
    plain = _cards(render_html(records))
    assert not [label for label in plain if label.startswith("tests")]
    assert plain["checks passed"] == "2" and "passed" not in plain


def test_rows_of_samples_without_an_id_are_told_apart_by_their_check_key() -> None:
    records = [
        check(i).model_copy(update={"test_id": "t.py::test_batch", "sample_id": None, "sample_index": i % 3})
        for i in range(4)
    ]
    data = payload_of(render_html(records))
    strings, columns = data["strings"], data["checks"]
    assert isinstance(strings, list) and isinstance(columns, dict)
    tags = [strings[t] if t >= 0 else "" for t in columns["tag"]]
    assert tags == ["[#0]", "[#1]", "[#2]", "[#0]#1"]  # the fourth: the same index in a second call


def test_the_style_sheet_and_script_are_package_files_inlined_whole() -> None:
    """They ship as package data (listed in pyproject), found through importlib.resources, so an
    installed wheel writes the same page as a source checkout."""
    assets = resources.files("pytest_rag.report.html").joinpath("assets")
    css = assets.joinpath("report.css").read_text(encoding="utf-8")
    js = assets.joinpath("report.js").read_text(encoding="utf-8")
    page = render_html([check(1)])
    assert f"<style>\n{css}</style>" in page and f"<script>\n{js}</script></body></html>" in page
    assert "textContent" in js and "innerHTML" not in js  # the script never parses data as markup
    assert "--fg:" in css


def test_ten_thousand_checks_stay_under_two_megabytes_with_failures_detailed_first() -> None:
    records = []
    for i in range(10_000):
        score = float(1 + i % 5)
        answer = (
            f"Refunds take {i} business days. They are paid back to the card {i}. We also give a free puppy."
        )
        error = "the judge replied with invalid JSON twice" if i % 97 == 0 else None
        records.append(
            check(
                i,
                metric=("faithfulness", "answer_relevancy")[i % 2],
                score=score,
                answer=answer,
                error=error,
                test_id=f"tests/rag/test_support_bot.py::test_question[case-{i:05d}-refund-policy]",
            )
        )
    page = render_html(records)
    assert len(page.encode("utf-8")) < 2_000_000
    assert len(page.encode("utf-8")) <= SIZE_LIMIT
    columns = payload_of(page)["checks"]
    assert isinstance(columns, dict)
    assert len(columns["metric"]) == 10_000
    detail = columns["detail"]
    status = columns["status"]
    with_detail = [d >= 0 for d in detail]
    assert 0 < sum(with_detail) < 10_000  # the budget cut in somewhere in between
    errors = [i for i, s in enumerate(status) if s == 3]
    assert errors and all(with_detail[i] for i in errors)
    passing_detailed = sum(1 for i, s in enumerate(status) if s == 1 and with_detail[i])
    failing_missing = sum(1 for i, s in enumerate(status) if s == 0 and not with_detail[i])
    assert passing_detailed == 0 or failing_missing == 0  # failures go in before any pass


def test_answer_sentences_are_matched_to_the_context_sentence_covering_them() -> None:
    matched = match_sentences(ANSWER, CONTEXTS)
    assert [ANSWER[s:e] for s, e, *_ in matched] == [
        "Refunds take five business days.",
        "They are paid back to the original card.",
        "We also give a free puppy.",
    ]
    assert [m[2] for m in matched] == [0, 1, -1]
    start, end = matched[0][3], matched[0][4]
    assert CONTEXTS[0][start:end] == CONTEXTS[0]


def test_unsupported_statements_mark_their_answer_sentence_even_when_paraphrased() -> None:
    record = check(unsupported=("the company gives away a free puppy",))
    data = build_payload([record], detail_budget=100_000)
    details = data["details"]
    assert isinstance(details, list)
    flags = [s[2] for s in details[0]["sent"]]
    assert flags == [0, 0, 1]


class RefundEvidence(Evidence):
    """A plugin metric's evidence, with field names no report could guess."""

    dubious: list[str]
    per_doc: dict[int, bool]

    def highlights(self) -> Highlights:
        return Highlights(
            statements=self.dubious,
            passages={rank: "on policy" if ok else "off policy" for rank, ok in self.per_doc.items()},
        )


class OpaqueEvidence(RefundEvidence):
    """Same fields, but it declares nothing: the report must not guess from the names."""

    def highlights(self) -> Highlights:
        return Highlights()


def plugin_result(evidence: Evidence) -> MetricResult:
    return MetricResult(
        metric="refund_policy",
        mode="default",
        judge="local",
        score=2,
        scale_low=1,
        scale_high=5,
        normalized=0.25,
        evidence=evidence,
    )


PLACE = CheckPlace("t.py::t", Sample.of(answer=ANSWER, contexts=CONTEXTS))


def test_the_report_marks_what_the_metric_declares_whatever_its_fields_are_called() -> None:
    evidence = RefundEvidence(dubious=["We also give a free puppy."], per_doc={1: True, 3: False})
    record = CheckRecord.from_result(plugin_result(evidence), PLACE)
    details = build_payload([record], detail_budget=100_000)["details"]
    assert isinstance(details, list)
    assert [s[2] for s in details[0]["sent"]] == [0, 0, 1]
    assert details[0]["cg"] == ["on policy", None, "off policy"]

    silent = OpaqueEvidence(dubious=["We also give a free puppy."], per_doc={1: True})
    record = CheckRecord.from_result(plugin_result(silent), PLACE)
    details = build_payload([record], detail_budget=100_000)["details"]
    assert isinstance(details, list)
    assert [s[2] for s in details[0]["sent"]] == [0, 0, 0]
    assert details[0]["cg"] is None


def test_passage_grades_are_placed_by_rank_and_only_on_the_contexts_shown() -> None:
    record = check(unsupported=()).model_copy(
        update={"highlights": Highlights(passages={3: "relevant: yes", 1: "relevant: no", 9: "grade: 2"})}
    )
    assert context_grades(record, shown=3) == ["relevant: no", None, "relevant: yes"]
    beyond = record.model_copy(update={"highlights": Highlights(passages={9: "grade: 2"})})
    assert context_grades(beyond, shown=3) is None


def test_highlights_survive_the_results_file(tmp_path: Path) -> None:
    from pytest_rag.report.results_file import read_results, write_report

    record = check(unsupported=("We also give a free puppy.",)).model_copy(
        update={"highlights": Highlights(statements=["We also give a free puppy."], passages={2: "grade: 3"})}
    )
    write_report(tmp_path / "run.json", [record])
    loaded = read_results(tmp_path / "run.json")
    assert loaded[0].highlights == record.highlights


def test_answered_share_counts_no_answer_checks_only() -> None:
    records = [
        check(0, metric="no_answer", score=1.0, threshold=1.0, evidence={"attempted": True}),
        check(1, metric="no_answer", score=0.0, threshold=1.0, evidence={"attempted": False}),
        check(2, metric="no_answer", score=0.9, threshold=None, evidence={}),
        check(4, metric="no_answer", error="judge failed"),  # not judged: not counted
        check(3),
    ]
    page = render_html(records)
    assert "67% (2/3)" in page
    assert "67%" not in render_html(records[3:])


def test_runs_are_compared_with_paired_changes() -> None:
    before = [check(i, score=3.0) for i in range(6)]
    after = [check(i, score=5.0) for i in range(6)]
    page = render_html(after, runs=[Run("before", before), Run("after", after)])
    assert 'id="comparison"' in page
    assert page.count('class="rag-change"') == 1
    assert 'data-pairs="6"' in page
    assert "Δ +2.00 [+2.00, +2.00]" in page


def test_a_run_writes_the_report_and_names_it_in_the_summary(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_faithful(rag_judge):
            rag_judge.faithfulness(
                "Refunds take five business days. <script>x</script> We give a free puppy.",
                ["Refunds are processed within five business days."],
            )
        """
    )
    report = tmp_path / "out" / "report.html"
    result = pytester.runpytest(
        "--rag-judge=local",
        f"--rag-cache-dir={tmp_path / 'cache'}",
        f"--rag-html={report}",
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"*HTML report written to {report}*"])
    data = payload_of(report.read_text(encoding="utf-8"))
    details = data["details"]
    strings = data["strings"]
    assert isinstance(details, list) and isinstance(strings, list) and len(details) == 1
    assert "Refunds take five business days. <script>x</script> We give a free puppy." in strings
    assert any(s[2] == 1 for s in details[0]["sent"])  # the local judge's unsupported sentence is marked


def test_a_report_that_cannot_be_written_fails_the_run_like_a_results_file(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makeconftest(
        """
        from pathlib import Path

        def pytest_sessionstart(session):
            Path("out").write_text("a file where the report's folder should be")  # after start-up's checks
        """
    )
    pytester.makepyfile(
        """
        def test_faithful(rag_judge):
            rag_judge.assert_faithful("Refunds take five days.", ["Refunds take five days."], threshold=1)
        """
    )
    report = pytester.path / "out" / "report.html"
    result = pytester.runpytest(
        "--rag-judge=local", f"--rag-cache-dir={tmp_path / 'cache'}", f"--rag-html={report}"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the test passed; the report it asked for is lost
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest-rag: the HTML report {report} could not be written (*); give a path in a folder you can write to"
        ]
    )
