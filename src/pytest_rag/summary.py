"""The end-of-run summary: one row per metric and judge, read only from the session results.

n counts scored checks; judge errors are counted apart and excluded from the mean, and the row says
how many, so an average never silently hides failures. The 95% interval is a seeded percentile
bootstrap of the mean: the same results always print the same interval.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .results import CallTally, CheckRecord
from .table import Aggregate, aggregate


@dataclass(frozen=True)
class SummaryRow:
    aggregate: Aggregate
    scale: str


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _scale(records: list[CheckRecord]) -> str:
    for record in records:
        if record.scale_low is not None and record.scale_high is not None:
            low, high = record.scale_low, record.scale_high
            return f"{low:g}-{high:g}"
    return "?"


def summary_rows(records: Iterable[CheckRecord]) -> list[SummaryRow]:
    groups: dict[tuple[str, str], list[CheckRecord]] = {}
    for record in records:
        label = record.metric if record.mode == "default" else f"{record.metric}[{record.mode}]"
        groups.setdefault((label, record.judge), []).append(record)
    rows = []
    for (metric, judge), members in sorted(groups.items()):
        scored = [r for r in members if r.error is None and r.score is not None]
        rows.append(
            SummaryRow(
                aggregate(
                    metric,
                    judge,
                    [float(r.score) for r in scored if r.score is not None],
                    sum(1 for r in members if r.error is not None),
                    [bool(r.passed) for r in scored if r.passed is not None],
                ),
                _scale(members),
            )
        )
    return rows


def total_calls(records: Iterable[CheckRecord]) -> CallTally:
    total = CallTally()
    for record in records:
        total.add(record.calls)
    return total


def render(records: list[CheckRecord], *, quiet: bool = False) -> list[str]:
    """Lines of the summary (no header rule: the terminal reporter draws it)."""
    if not records:
        return []
    rows = summary_rows(records)
    lines: list[str] = []
    if quiet:
        for row in rows:
            a = row.aggregate
            passed = f", pass {a.passed}/{a.with_threshold}" if a.with_threshold else ""
            errors = f", {a.errors} judge error(s)" if a.errors else ""
            lines.append(
                f"{a.metric} [{a.judge}]: mean {_fmt(a.mean)} [{_fmt(a.ci_low)}, {_fmt(a.ci_high)}] "
                f"n={a.n}{passed}{errors}"
            )
        return lines
    header = ("metric", "judge", "scale", "n", "mean", "95% CI", "pass rate", "errors")
    table: list[tuple[str, ...]] = [header]
    for row in rows:
        a = row.aggregate
        ci = "-" if a.ci_low is None else f"[{_fmt(a.ci_low)}, {_fmt(a.ci_high)}]"
        rate = "-" if a.pass_rate is None else f"{a.pass_rate:.0%} ({a.passed}/{a.with_threshold})"
        table.append((a.metric, a.judge, row.scale, str(a.n), _fmt(a.mean), ci, rate, str(a.errors)))
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for cells in table:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells)).rstrip())
    calls = total_calls(records)
    cost = f", est. cost ${calls.cost_usd:.4f}" if calls.cost_usd else ""
    lines.append("")
    lines.append(
        f"judge calls: {calls.live} live, {calls.cached} cached, {calls.offline} offline; tokens: {calls.tokens_in:,} in, "
        f"{calls.tokens_out:,} out{cost}"
    )
    error_count = sum(1 for r in records if r.error is not None)
    if error_count:
        kinds: dict[str, int] = {}
        for record in records:
            if record.error is not None:
                kind = record.error_kind or "error"
                kinds[kind] = kinds.get(kind, 0) + 1
        detail = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        lines.append(f"judge errors: {error_count} ({detail}); excluded from the means above")
    return lines
