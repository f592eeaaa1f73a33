"""``--rag-mutants`` and ``--rag-min-catch``: the catch table, its gate, and whole runs with the offline
judge (serial, pytest-xdist, CI shards merged).

The suite of the runs has two checks whose answers hold a number. Faithfulness catches a changed
opening hour; context recall of a reference that speaks only of the refund team passes the answer
whatever its second sentence says, so the changed hour there survives: a check that looks at another
part of the answer, which is what the mutants are there to show. Mutants of the other classes are
judged too; the tests below read the number row, which does not depend on them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_rag import cli
from pytest_rag.errors import ConfigError, InputError
from pytest_rag.mutants.classes import MUTATION_CLASSES, parse_min_catch
from pytest_rag.mutants.html import mutants_section
from pytest_rag.mutants.records import CAUGHT, NO_MUTANT, NO_VERDICT, SURVIVED, MutantRecord, read_rows
from pytest_rag.mutants.table import catch_rows, check_min_catch, table_lines
from pytest_rag.regression.gates import Conclusion

pytest_plugins = ["pytester"]


def mutant(outcome: str, mutation: str = "number", test: str = "t.py::test_a", **fields: Any) -> MutantRecord:
    given: dict[str, Any] = {
        "removed": "five",
        "added": "six",
        "error_kind": "JudgeError" if outcome == NO_VERDICT else None,
    }
    given.update(fields)
    return MutantRecord(
        test_id=test, metric="faithfulness", judge="local", mutation=mutation, outcome=outcome, **given
    )


#: Number mutants of seven checks: 3 caught, 1 survived, 1 without a verdict, 2 checks without one.
NUMBER_MUTANTS = [
    *(mutant(CAUGHT, test=f"t.py::test_{i}") for i in range(3)),
    mutant(SURVIVED, test="t.py::test_3"),
    mutant(NO_VERDICT, test="t.py::test_4"),
    *(mutant(NO_MUTANT, test=f"t.py::test_{i}") for i in (5, 6)),
]


def test_the_table_counts_each_outcome_apart_and_rates_only_the_judged_mutants() -> None:
    rows = {row.mutation: row for row in catch_rows([*NUMBER_MUTANTS, mutant(CAUGHT, "negation")])}
    number = rows["number"]
    assert (number.checks, number.mutants, number.caught, number.survived) == (7, 5, 3, 1)
    assert (number.no_verdict, number.no_mutant, number.judged) == (1, 2, 4)
    assert number.rate == 0.75
    assert number.interval is not None
    assert (round(number.interval.low, 4), round(number.interval.high, 4)) == (0.3006, 0.9544)  # Wilson
    pooled = rows["all"]
    assert (pooled.checks, pooled.caught, pooled.survived, pooled.judged) == (8, 4, 1, 5)
    assert rows["name"].rate is None and rows["name"].interval is None  # nothing judged: no rate at all


def test_the_summary_table_shows_the_counts_the_interval_and_the_survivors() -> None:
    lines = table_lines(NUMBER_MUTANTS)
    number = next(line for line in lines if line.strip().startswith("number"))
    assert number.split() == ["number", "5", "3", "1", "75%", "[0.30,", "0.95]", "1", "2"]
    assert any("1 mutant(s) without a verdict (1 JudgeError)" in line for line in lines)
    assert "    t.py::test_3 faithfulness [local] number: 'five' -> 'six'" in lines


def test_a_mutant_counted_by_a_dry_run_is_not_judged_rather_than_without_a_verdict() -> None:
    counted = mutant(NO_VERDICT, error_kind="NotJudgedError", estimate={"would_call": 1, "est_tokens_in": 40})
    pending = frozenset({"NotJudgedError"})
    row = catch_rows([counted], pending)[0]
    assert (row.pending, row.no_verdict) == (1, 0)
    lines = table_lines([counted], pending)
    assert "not judged" in lines[1]
    assert any(
        "dry run: 1 mutant(s) counted, not judged; they would make 1 call(s), ~40 prompt" in x for x in lines
    )
    assert catch_rows([counted])[0].no_verdict == 1  # in a run that does not wait for it, it has none


def gate(
    records: list[MutantRecord], bars: dict[str, float], pending: frozenset[str] = frozenset()
) -> Conclusion:
    out = Conclusion()
    check_min_catch(records, bars, out, pending)
    return out


def test_the_gate_holds_the_lower_bound_to_the_bar() -> None:
    passed = gate(NUMBER_MUTANTS, {"number": 0.3})
    assert not passed.failed
    assert "  number >= 0.3 passed: lower bound 0.30 (3 of 4 caught, 75% [0.30, 0.95])" in passed.lines
    failed = gate(NUMBER_MUTANTS, {"number": 0.5, "all": 0.31})
    assert failed.failures == [
        "number >= 0.5 FAILED: lower bound 0.30 < 0.5 (3 of 4 caught, 75% [0.30, 0.95])",
        "all >= 0.31 FAILED: lower bound 0.30 < 0.31 (3 of 4 caught, 75% [0.30, 0.95])",
    ]


def test_a_gate_that_judged_nothing_fails_and_one_that_waits_is_not_evaluated() -> None:
    nothing = gate(NUMBER_MUTANTS, {"name": 0.1})
    assert nothing.failures == [
        "name >= 0.1 FAILED: not evaluated: no mutant was made: no answer-level check passed with a bar, "
        "or the checks ran without --rag-mutants; a gate that judges nothing is no pass"
    ]
    no_mutant = gate([mutant(NO_MUTANT)], {"number": 0.1})
    assert "none of the 1 check(s) had a mutant of this class" in no_mutant.failures[0]
    all_errors = gate([mutant(NO_VERDICT)], {"number": 0.1})
    assert "all 1 mutant(s) ended without a verdict" in all_errors.failures[0]
    queued = [mutant(CAUGHT), mutant(NO_VERDICT, error_kind="WaitingForBatchError")]
    waiting = gate(queued, {"number": 0.1}, frozenset({"WaitingForBatchError"}))
    assert not waiting.failed
    assert "  number >= 0.1: not evaluated: 1 of its 2 mutant(s) were not judged in this run" in waiting.lines
    # the judged ones already fail it: waiting for the rest cannot make it pass
    failing = gate([mutant(SURVIVED), *queued[1:]], {"number": 0.1}, frozenset({"WaitingForBatchError"}))
    assert failing.failed


def test_catch_bars_are_read_as_a_share_for_all_classes_or_one() -> None:
    assert parse_min_catch(["0.7", "number = 0.9", "0.6"], "--rag-min-catch") == {"all": 0.6, "number": 0.9}
    with pytest.raises(ConfigError, match="'numbr' is not a mutation class; did you mean 'number'"):
        parse_min_catch(["numbr=0.9"], "--rag-min-catch")
    for bad in ("1.5", "-0.1", "nan", "high", "number=80%"):
        with pytest.raises(ConfigError, match="must be a share from 0 to 1"):
            parse_min_catch([bad], "--rag-min-catch")


def test_mutant_rows_read_back_and_a_bad_one_is_an_error_naming_it() -> None:
    rows = [record.model_dump(mode="json") for record in NUMBER_MUTANTS]
    assert read_rows(rows, "r.json") == NUMBER_MUTANTS
    assert read_rows(None, "r.json") == []
    with pytest.raises(InputError, match=r"mutant 2 of results file r.json is malformed: 'outcome'"):
        read_rows([rows[0], {**rows[1], "outcome": None}], "r.json")
    with pytest.raises(InputError, match="outcome 'eaten'"):
        read_rows([{**rows[0], "outcome": "eaten"}], "r.json")


def test_the_html_section_escapes_what_it_shows() -> None:
    shown = mutants_section([mutant(SURVIVED, added="<script>x</script>", sentence="a <b>")])
    assert "<script>x" not in shown and "&lt;script&gt;x&lt;/script&gt;" in shown
    assert '<table id="mutant-survivors">' in shown and "t.py::test_a" in shown


# -- whole runs with the offline judge -----------------------------------------------------------

SUITE = """
def test_opening_hours(rag_judge):
    rag_judge.assert_faithful(
        "The museum opens at 9 am.", ["The museum opens at 9 am and closes at 5 pm."], threshold=4
    )


def test_refund_team(rag_judge):
    rag_judge.assert_score(
        "context_recall",
        answer="Refunds are handled by the billing team. The office opens at 9 am.",
        reference="Refunds are handled by the billing team.",
        threshold=3,
    )


def test_relevance(rag_judge):
    rag_judge.assert_relevant("The museum opens at 9 am.", "When does the museum open?", threshold=3)
"""

NUMBER_ROW = re.compile(r"^  number\s+2\s+1\s+1\s+50%\s+\[0\.09, 0\.91\]\s+0\s+0$")


def offline(pytester: pytest.Pytester, *args: str, report: Path | None = None) -> pytest.RunResult:
    extra = [f"--rag-report={report}"] if report is not None else []
    return pytester.runpytest("-p", "no:cacheprovider", "--rag-mutants", *extra, *args)


def mutant_rows(report: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["mutants"]
    return rows


def test_a_changed_number_is_caught_by_one_check_and_survives_another(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(SUITE)
    report, html = tmp_path / "r.json", tmp_path / "r.html"
    result = offline(pytester, f"--rag-html={html}", report=report)
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    out = result.stdout.lines
    assert any(NUMBER_ROW.match(line) for line in out), "\n".join(out)
    survivor = "    test_a_changed_number_is_caught_by_one_check_and_survives_another.py::test_refund_team"
    assert f"{survivor} context_recall [local] number: '9' -> '10'" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    # the mutants are no checks of the suite: three checks, and the table's rows count only them
    assert len(data["checks"]) == 3
    assert sorted((a["metric"], a["n"]) for a in data["aggregates"]) == [
        ("answer_relevancy", 1),
        ("context_recall", 1),
        ("faithfulness", 1),
    ]
    rows = data["mutants"]
    assert len(rows) == 2 * len(MUTATION_CLASSES)  # relevance is not an answer-level check: not mutated
    number = [
        (r["test_id"].split("::")[1], r["outcome"], r["removed"], r["added"])
        for r in rows
        if r["mutation"] == "number"
    ]
    assert number == [("test_opening_hours", "caught", "9", "8"), ("test_refund_team", "survived", "9", "10")]
    page = html.read_text(encoding="utf-8")
    assert '<section id="mutants">' in page and "The office opens at 10 am." in page


def test_the_mutants_are_the_same_in_every_run(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(SUITE)
    offline(pytester, report=tmp_path / "one.json").assert_outcomes(passed=3)
    offline(pytester, report=tmp_path / "two.json").assert_outcomes(passed=3)
    first = mutant_rows(tmp_path / "one.json")
    assert [r for r in first if r["outcome"] != "no mutant"]
    assert mutant_rows(tmp_path / "two.json") == first


def test_the_catch_gate_fails_the_run_below_its_bar_and_passes_above(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    failed = offline(pytester, "--rag-min-catch=number=0.5", "--rag-min-catch=0.99")
    failed.assert_outcomes(passed=3)  # every test passed: the gate fails the session
    assert failed.ret == 1
    failed.stdout.fnmatch_lines(
        [
            "catch gates (--rag-min-catch, on the lower bound of the 95% interval):",
            "  number >= 0.5 FAILED: lower bound 0.09 < 0.5 (1 of 2 caught, 50% [0.09, 0.91])",
            "  all >= 0.99 FAILED: lower bound *",
            "pytest-rag: session failed by 2 gate(s)",
        ]
    )
    passed = offline(pytester, "-o", "rag_min_catch=number = 0.05")
    assert passed.ret == 0
    passed.stdout.fnmatch_lines(
        ["  number >= 0.05 passed: lower bound 0.09 (1 of 2 caught, 50% [0.09, 0.91])"]
    )


def test_a_catch_gate_without_the_mutants_or_of_no_class_is_refused_at_start_up(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(SUITE)
    alone = pytester.runpytest("-p", "no:cacheprovider", "--rag-min-catch=0.5")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(
        [
            "*--rag-min-catch (command line) gates the catch rate of the mutants, which this run does not make; add --rag-mutants*"
        ]
    )
    typo = offline(pytester, "--rag-min-catch=numbers=0.5")
    assert typo.ret == pytest.ExitCode.USAGE_ERROR
    typo.stderr.fnmatch_lines(["*'numbers' is not a mutation class; did you mean 'number'?*"])


def test_two_xdist_workers_print_the_serial_run_s_table(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(SUITE)
    serial = offline(pytester, report=tmp_path / "serial.json")
    workers = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--rag-mutants", f"--rag-report={tmp_path / 'xdist.json'}"
    )
    workers.assert_outcomes(passed=3)

    def table(result: pytest.RunResult) -> list[str]:
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if line.startswith("mutants (--rag-mutants) of"))
        return lines[start : start + 9]

    assert table(workers) == table(serial)
    assert mutant_rows(tmp_path / "xdist.json") == mutant_rows(tmp_path / "serial.json")


def test_merged_shards_give_the_unsharded_table_and_gate(
    pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(SUITE)
    offline(pytester, report=tmp_path / "whole.json").assert_outcomes(passed=3)
    offline(pytester, "-k", "opening", report=tmp_path / "a.json").assert_outcomes(passed=1, deselected=2)
    offline(pytester, "-k", "not opening", report=tmp_path / "b.json").assert_outcomes(passed=2, deselected=1)
    capsys.readouterr()
    merged = tmp_path / "merged.json"
    status = cli.main(
        [
            "merge",
            str(tmp_path / "a.json"),
            str(tmp_path / "b.json"),
            "--report",
            str(merged),
            "--min-catch",
            "number=0.5",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert any(NUMBER_ROW.match(line) for line in out), "\n".join(out)
    assert "  number >= 0.5 FAILED: lower bound 0.09 < 0.5 (1 of 2 caught, 50% [0.09, 0.91])" in out
    assert mutant_rows(merged) == mutant_rows(tmp_path / "whole.json")
    assert (
        cli.main(["merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--min-catch", "number=0.05"])
        == 0
    )


def test_an_answer_the_edits_cannot_read_leaves_its_mutants_without_a_verdict_not_the_run_crashed(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        import pytest_rag.mutants.run


        def unreadable(answer, sources):
            raise ValueError("an answer no edit can read")


        pytest_rag.mutants.run.mutants_of = unreadable
        """
    )
    pytester.makepyfile(SUITE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rag-mutants")
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    result.stdout.re_match_lines([r"^  all\s+12\s+0\s+0\s+-\s+-\s+12\s+0$"])
    assert "  12 mutant(s) without a verdict (12 ValueError)" in result.stdout.str()
