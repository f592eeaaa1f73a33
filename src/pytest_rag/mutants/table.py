"""The catch table: per mutation class, how many mutants the suite's checks caught, with an interval,
and the ``--rag-min-catch`` gate on its lower bound.

The catch rate of a class is caught / (caught + survived): a mutant without a verdict, one counted or
queued instead of judged, and a check the class had no mutant for are counted in their own columns,
never as caught. The interval is Wilson's score interval at 95% (:func:`pytest_rag.stats.proportion_ci`),
which stays honest at 0 of n and n of n; it treats the mutants as independent trials, while mutants
of one answer may fail or pass together, so read a narrow interval over few checks with care.

The gate works like ``--rag-fail-under`` (:mod:`pytest_rag.regression.gates`): it fails when the lower
bound is below the bar, it fails when it judged nothing (no passing check, or no mutant of its class
got a verdict), and it is *not evaluated* when some of its mutants wait by design (``--rag-dry-run``,
``--rag-batch``), unless the judged ones already fail it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..engine.spending import Estimate
from ..regression.gates import Conclusion
from ..report.summary import calls_line, estimate_text
from ..results import CallTally
from ..stats import Interval, proportion_ci
from .classes import ALL_CLASSES, MUTATION_CLASSES
from .records import CAUGHT, NO_MUTANT, SURVIVED, MutantRecord

#: Survivors the terminal summary lists; the results file and the HTML report list them all.
SURVIVORS_SHOWN = 10


@dataclass(frozen=True)
class CatchRow:
    """One class (or all of them): its checks, the mutants caught and survived, those without a
    verdict, those waiting by design (``pending``), and the checks it had no mutant for."""

    mutation: str
    checks: int
    caught: int
    survived: int
    no_verdict: int
    pending: int
    no_mutant: int

    @property
    def judged(self) -> int:
        return self.caught + self.survived

    @property
    def mutants(self) -> int:
        return self.checks - self.no_mutant

    @property
    def rate(self) -> float | None:
        return self.caught / self.judged if self.judged else None

    @property
    def interval(self) -> Interval | None:
        return proportion_ci(self.caught, self.judged)


def catch_rows(records: Sequence[MutantRecord], pending: frozenset[str] = frozenset()) -> list[CatchRow]:
    """A row per class, in the table's order, then the row of all classes pooled. ``pending``: the
    error kinds of mutants that wait by design in this run (counted apart from those without a verdict)."""
    rows = [_row(name, [r for r in records if r.mutation == name], pending) for name in MUTATION_CLASSES]
    pooled = CatchRow(ALL_CLASSES, *(sum(getattr(row, name) for row in rows) for name in _COUNTS))
    return [*rows, pooled]


_COUNTS = ("checks", "caught", "survived", "no_verdict", "pending", "no_mutant")


def _row(mutation: str, records: Sequence[MutantRecord], pending: frozenset[str]) -> CatchRow:
    waiting = sum(1 for r in records if r.error_kind in pending)
    outcomes = [r.outcome for r in records]
    return CatchRow(
        mutation,
        checks=len(records),
        caught=outcomes.count(CAUGHT),
        survived=outcomes.count(SURVIVED),
        no_verdict=sum(1 for r in records if r.error_kind is not None) - waiting,
        pending=waiting,
        no_mutant=outcomes.count(NO_MUTANT),
    )


def _cell_rate(row: CatchRow) -> tuple[str, str]:
    interval = row.interval
    if row.rate is None or interval is None:
        return "-", "-"
    return f"{row.rate:.0%}", f"[{interval.low:.2f}, {interval.high:.2f}]"


def table_lines(records: Sequence[MutantRecord], pending: frozenset[str] = frozenset()) -> list[str]:
    """The catch table as the summary prints it, with the lines that say what waits, what the
    mutants cost and which survived; one line when no check was mutated."""
    checks = len({(r.check, r.metric_label, r.judge) for r in records})
    if not records:
        return [
            "mutants (--rag-mutants): no answer-level check passed with a bar in this run, so no mutant "
            "was made (faithfulness, turn_faithfulness, context_recall, factual_correctness and "
            "answer_accuracy checks are mutated)"
        ]
    rows = catch_rows(records, pending)
    header = ["class", "mutants", "caught", "survived", "catch rate", "95% CI", "no verdict", "no mutant"]
    if any(row.pending for row in rows):
        header.insert(7, "not judged")
    table: list[list[str]] = [header]
    for row in rows:
        rate, interval = _cell_rate(row)
        row_cells: list[object] = [
            row.mutation,
            row.mutants,
            row.caught,
            row.survived,
            rate,
            interval,
            row.no_verdict,
            row.no_mutant,
        ]
        if len(header) > 8:
            row_cells.insert(7, row.pending)
        table.append([str(cell) for cell in row_cells])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = [
        f"mutants (--rag-mutants) of {checks} answer-level check(s) that passed: catch rate = caught / "
        "(caught + survived), with its 95% Wilson interval:"
    ]
    for line in table:
        cells = [line[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(line[1:], widths[1:], strict=True))]
        lines.append("  " + "  ".join(cells).rstrip())
    lines.extend(_pending_lines(records, pending))
    lines.extend(_no_verdict_lines(records, pending))
    calls = CallTally()
    for record in records:
        calls.add(record.calls)
    if calls.attempts or calls.cached or calls.offline or calls.batched:
        lines.append(f"  mutants' {calls_line(calls)}")
    lines.extend(survivor_lines(records))
    return lines


def _pending_lines(records: Sequence[MutantRecord], pending: frozenset[str]) -> list[str]:
    lines = []
    counted = [r for r in records if r.error_kind == "NotJudgedError" and r.error_kind in pending]
    if counted:
        total = Estimate()
        seen: set[str] = set()  # a request two pytest-xdist workers counted is one call
        for record in counted:
            total.add(Estimate.from_evidence(record.estimate).unique(seen))
        lines.append(
            f"  dry run: {len(counted)} mutant(s) counted, not judged; they would make {estimate_text(total)} "
            "(the mutants of checks the dry run counted too, as if every such check passed)"
        )
    waiting = sum(1 for r in records if r.error_kind == "WaitingForBatchError" and r.error_kind in pending)
    if waiting:
        lines.append(
            f"  waiting for batch: {waiting} mutant(s) queued for the providers' batch APIs; a later run "
            "judges them from the collected replies"
        )
    return lines


def _no_verdict_lines(records: Sequence[MutantRecord], pending: frozenset[str]) -> list[str]:
    kinds: dict[str, int] = {}
    for record in records:
        if record.error_kind is not None and record.error_kind not in pending:
            kinds[record.error_kind] = kinds.get(record.error_kind, 0) + 1
    if not kinds:
        return []
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    return [
        f"  {sum(kinds.values())} mutant(s) without a verdict ({detail}): not counted as caught, and no "
        "test of the suite fails for them"
    ]


def survivor_lines(records: Sequence[MutantRecord], shown: int = SURVIVORS_SHOWN) -> list[str]:
    """The mutants that passed their check: the check, its metric and judge, the class and the words."""
    survivors = [r for r in records if r.outcome == SURVIVED]
    if not survivors:
        return []
    lines = [f"  survivors ({len(survivors)}; the check passed the mutated answer):"]
    for record in survivors[:shown]:
        lines.append(
            f"    {record.check} {record.metric_label} [{record.judge}] {record.mutation}: {record.change}"
        )
    if len(survivors) > shown:
        lines.append(
            f"    ... and {len(survivors) - shown} more, listed in the results file and the HTML report"
        )
    return lines


def check_min_catch(
    records: Sequence[MutantRecord],
    bars: Mapping[str, float],
    out: Conclusion,
    pending: frozenset[str] = frozenset(),
    option: str = "--rag-min-catch",
) -> None:
    """Gate the catch rate on the lower bound of its interval: of all classes pooled (``all``) and of
    each class named. A gate that judged nothing fails, one whose mutants partly wait is not
    evaluated unless the judged ones already fail it (see the module's docstring)."""
    if not bars:
        return
    rows = {row.mutation: row for row in catch_rows(records, pending)}
    out.lines.append(f"catch gates ({option}, on the lower bound of the 95% interval):")
    for mutation, bar in bars.items():
        row = rows[mutation]
        interval = row.interval
        shown = f"{mutation} >= {bar:g}"
        if row.pending and not (interval is not None and interval.low < bar):
            out.lines.append(
                f"  {shown}: not evaluated: {row.pending} of its {row.mutants} mutant(s) were not judged in "
                "this run"
            )
            continue
        if interval is None:
            message = (
                f"{shown} FAILED: not evaluated: {_why_nothing(row)}; a gate that judges nothing is no pass"
            )
        elif interval.low < bar:
            message = f"{shown} FAILED: lower bound {interval.low:.2f} < {bar:g} ({_counts(row, interval)})"
        else:
            out.lines.append(f"  {shown} passed: lower bound {interval.low:.2f} ({_counts(row, interval)})")
            continue
        out.failures.append(message)
        out.lines.append(f"  {message}")


def _counts(row: CatchRow, interval: Interval) -> str:
    return f"{row.caught} of {row.judged} caught, {row.caught / row.judged:.0%} [{interval.low:.2f}, {interval.high:.2f}]"


def _why_nothing(row: CatchRow) -> str:
    if not row.checks:
        return (
            "no mutant was made: no answer-level check passed with a bar, or the checks ran without "
            "--rag-mutants"
        )
    if not row.mutants:
        return f"none of the {row.checks} check(s) had a mutant of this class (its edits apply to none of their answers)"
    return f"all {row.mutants} mutant(s) ended without a verdict"


def conclude_mutants(
    out: Conclusion,
    records: Sequence[MutantRecord],
    bars: Mapping[str, float],
    pending: frozenset[str] = frozenset(),
    option: str = "--rag-min-catch",
) -> None:
    """The catch table and its gates, added to the run's (or a merge's) conclusion after its other
    gates: the table is printed whether or not a bar was set."""
    out.lines.extend(table_lines(records, pending))
    check_min_catch(records, bars, out, pending, option)
