"""The end-of-run summary: every line under the "pytest-rag summary" rule, read only from the records.

:func:`summary_text` assembles it: the table (one row per metric and judge), the judge calls, the
dry-run estimate and budget, what replay could not replay (the offline judge), the repeats and
ensembles block (:mod:`.repeats`), then the closing lines the caller hands over (the gates, the
baseline comparison, the files written). The plugin and ``pytest-rag merge`` both print exactly this.

n counts scored checks; judge errors are counted apart and excluded from the mean, and the row says
how many, so an average never silently hides failures. The 95% interval is a seeded percentile
bootstrap of the mean: the same results always print the same interval.

When some checks carry a pass probability (their judge reported the odds of its grades), the table
gains an "uncertain" column: per row, the checks whose probability of reaching their bar lies
between 0.2 and 0.8, of those with a pass probability. A run without any shows the table as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..check_keys import metric_label, turn_position
from ..engine.pricing import usd
from ..engine.spending import Estimate
from ..errors import cut_text
from ..results import CallTally, CheckRecord, JudgeScore
from ..results_table import Aggregate, aggregate
from ..scoring.grade_odds import against_bar
from .repeats import repeats_lines


@dataclass(frozen=True)
class SummaryRow:
    """One row of the summary table: a metric and judge's aggregate, the scale it scores on, and
    its uncertain checks out of those with a pass probability (None when none has one)."""

    aggregate: Aggregate
    scale: str
    uncertain: tuple[int, int] | None = None


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _scale(records: list[CheckRecord]) -> str:
    for record in records:
        if record.scale_low is not None and record.scale_high is not None:
            low, high = record.scale_low, record.scale_high
            return f"{low:g}-{high:g}"
    return "?"


def _member_record(record: CheckRecord, member: JudgeScore) -> CheckRecord:
    """One ensemble member's part of a check, so each judge of an ensemble gets its own summary row."""
    expected = member.expected_score if record.passed_on == "expected_score" else None
    passed, _ = against_bar(member.score, expected, record.threshold)
    return record.model_copy(
        update={
            "judge": member.judge,
            "score": member.score,
            "passed": passed,
            "expected_score": member.expected_score,
            "pass_probability": member.pass_probability,
        }
    )


def _uncertain(scored: list[CheckRecord]) -> tuple[int, int] | None:
    """Uncertain checks, of those with a pass probability; None when none has one."""
    known = [r for r in scored if r.pass_probability is not None]
    return (sum(1 for r in known if r.uncertain), len(known)) if known else None


def summary_rows(records: Iterable[CheckRecord], *, by_turn: bool = False) -> list[SummaryRow]:
    """A row per metric label and judge, sorted; each member of an ensemble gets its own row too.
    With ``by_turn`` (the terminal table), the checks of a conversation's turns get a row per turn
    position (``turn_faithfulness[turn 2]``), in turn order; gates and results files pool them."""
    groups: dict[tuple[str, int, str], list[CheckRecord]] = {}
    for record in records:
        label = metric_label(record)
        turn = (turn_position(record.sample_id) or 0) if by_turn else 0
        groups.setdefault((label, turn, record.judge), []).append(record)
        for member in record.judges if len(record.judges) > 1 else ():
            groups.setdefault((label, turn, member.judge), []).append(_member_record(record, member))
    rows = []
    for (metric, turn, judge), members in sorted(groups.items()):
        scored = [r for r in members if r.error is None and r.score is not None]
        rows.append(
            SummaryRow(
                aggregate(
                    f"{metric}[turn {turn}]" if turn else metric,
                    judge,
                    [float(r.score) for r in scored if r.score is not None],
                    sum(1 for r in members if r.error is not None and not r.not_judged),
                    [bool(r.passed) for r in scored if r.passed is not None],
                    not_judged=sum(1 for r in members if r.not_judged),
                ),
                _scale(members),
                _uncertain(scored),
            )
        )
    return rows


def _errors_cell(a: Aggregate) -> str:
    if not a.not_judged:
        return str(a.errors)
    return f"{a.not_judged} not judged" if not a.errors else f"{a.errors} (+{a.not_judged} not judged)"


def calls_line(calls: CallTally) -> str:
    """Judge calls, and what went wrong on the way when anything did: every request sent counts,
    so a run whose requests all failed does not read as 'judge calls: 0 live'."""
    batched = f", {calls.batched} from batches" if calls.batched else ""
    line = f"judge calls: {calls.live} live, {calls.cached} cached{batched}, {calls.offline} offline"
    if calls.failures or calls.retries:
        failed = sum(calls.failures.values())
        kinds = ", ".join(
            f"{n} {kind}" for kind, n in sorted(calls.failures.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        line += f"; requests: {calls.attempts} sent, {failed} failed ({kinds}), {calls.retries} retried"
    cost = f", est. cost {usd(calls.cost_usd)}" if calls.cost_usd else ""
    if calls.batched and calls.saved_usd:
        cost += f" (batches at batch prices: {usd(calls.saved_usd)} less than live)"
    return f"{line}; tokens: {calls.tokens_in:,} in, {calls.tokens_out:,} out{cost}"


def schema_fallback_lines(calls: CallTally) -> list[str]:
    """A warning, once per judge and schema, when requests went without the strict schema of their
    verdict because the provider refused it: its reason, and how many requests it concerned."""
    if not calls.schema_fallbacks:
        return []
    lines = [
        f"schema not enforced: {calls.schema_fallbacks} request(s) went without their strict schema, "
        "asked for plain JSON instead (each reply was still checked against its verdict model):"
    ]
    for judge, schemas in sorted(calls.refused_schemas.items()):
        for schema, reason in sorted(schemas.items()):
            refused = "structured output for every schema" if schema == "*" else f"the schema {schema}"
            lines.append(f"  {judge} refused {refused}: {cut_text(reason, 300)}")
    return lines


def total_calls(records: Iterable[CheckRecord]) -> CallTally:
    total = CallTally()
    for record in records:
        total.add(record.calls)
    return total


def spending_lines(records: list[CheckRecord], *, dry_run: bool, budget_usd: float | None) -> list[str]:
    """The dry-run estimate (per metric and judge, then in total) and the budget status."""
    lines: list[str] = []
    if dry_run:
        groups: dict[tuple[str, str], tuple[int, Estimate]] = {}
        counted: set[str] = set()  # a request two pytest-xdist workers counted is one call
        for record in records:
            if record.error_kind == "NotJudgedError":
                checks, estimate = groups.get((record.metric, record.judge), (0, Estimate()))
                estimate.add(Estimate.from_evidence(record.evidence).unique(counted))
                groups[(record.metric, record.judge)] = (checks + 1, estimate)
        total = Estimate()
        for _, estimate in groups.values():
            total.add(estimate)
        checks = sum(n for n, _ in groups.values())
        lines.append(
            f"dry run: {checks} check(s) not judged; they would make {estimate_text(total)} "
            "(the first call of each judgment; multi-step metrics make more once its reply is known)"
        )
        for (metric, judge), (n, estimate) in sorted(groups.items()):
            lines.append(f"  {metric} [{judge}]: {n} check(s), {estimate_text(estimate)}")
    if budget_usd is not None:
        spent = total_calls(records).cost_usd
        refused = sum(1 for r in records if r.error_kind == "BudgetExceededError")
        status = (
            f"spent, live calls stopped; {refused} check(s) not judged (BudgetExceededError)"
            if refused
            else "not exhausted"
        )
        lines.append(f"budget: {usd(spent)} of {usd(budget_usd)} {status}")
    return lines


def replay_lines(records: list[CheckRecord]) -> list[str]:
    """Under ``--rag-cache=replay``: which checks an offline judge computed. The offline judge is
    computed, never cached, so replay has nothing to replay for it (and nothing fails for it)."""
    offline = [r for r in records if r.calls.offline]
    if not offline:
        return []
    judges = ", ".join(sorted({r.judge for r in offline}))
    return [
        f"replay: {len(offline)} check(s) of {judges} computed as usual: the offline judge is computed, "
        "never cached, so --rag-cache=replay has nothing to replay for it"
    ]


def estimate_text(estimate: Estimate) -> str:
    """Would-be calls as the dry-run lines print them: calls, tokens and dollars."""
    cost = f"est. {usd(estimate.cost_usd)}"
    if estimate.price_unknown:
        cost += f" (+ {estimate.price_unknown} call(s) of a model with no known price; set rag_prices)"
    return (
        f"{estimate.calls} call(s), ~{estimate.tokens_in:,} prompt tokens, "
        f"~{estimate.tokens_out:,} output tokens, {cost}"
    )


def render(
    records: list[CheckRecord],
    *,
    quiet: bool = False,
    dry_run: bool = False,
    budget_usd: float | None = None,
    replay: bool = False,
) -> list[str]:
    """Lines of the summary (no header rule: the terminal reporter draws it)."""
    if not records:
        return []
    rows = summary_rows(records, by_turn=True)
    lines: list[str] = []
    calls = total_calls(records)
    extra = [*schema_fallback_lines(calls), *spending_lines(records, dry_run=dry_run, budget_usd=budget_usd)]
    if replay:
        extra.extend(replay_lines(records))
    waiting = sum(1 for r in records if r.error_kind == "WaitingForBatchError")
    if waiting:
        extra.insert(
            0,
            f"waiting for batch: {waiting} check(s) queued for the providers' batch APIs, not judged yet "
            "(a later run judges them from the collected replies)",
        )
    if quiet:
        for row in rows:
            a = row.aggregate
            passed = f", pass {a.passed}/{a.with_threshold}" if a.with_threshold else ""
            errors = f", {a.errors} judge error(s)" if a.errors else ""
            errors += f", {a.not_judged} not judged" if a.not_judged else ""
            uncertain = f", {row.uncertain[0]} uncertain" if row.uncertain and row.uncertain[0] else ""
            lines.append(
                f"{a.metric} [{a.judge}]: mean {_fmt(a.mean)} [{_fmt(a.ci_low)}, {_fmt(a.ci_high)}] "
                f"n={a.n}{passed}{uncertain}{errors}"
            )
        return lines + extra
    odds_known = any(row.uncertain is not None for row in rows)
    header = ["metric", "judge", "scale", "n", "mean", "95% CI", "pass rate", "errors"]
    if odds_known:
        header.insert(7, "uncertain")
    table: list[list[str]] = [header]
    for row in rows:
        a = row.aggregate
        ci = "-" if a.ci_low is None else f"[{_fmt(a.ci_low)}, {_fmt(a.ci_high)}]"
        rate = "-" if a.pass_rate is None else f"{a.pass_rate:.0%} ({a.passed}/{a.with_threshold})"
        cells = [a.metric, a.judge, row.scale, str(a.n), _fmt(a.mean), ci, rate, _errors_cell(a)]
        if odds_known:
            cells.insert(7, "-" if row.uncertain is None else f"{row.uncertain[0]}/{row.uncertain[1]}")
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for cells in table:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells)).rstrip())
    lines.append("")
    lines.append(calls_line(calls))
    error_count = sum(1 for r in records if r.error is not None and not r.not_judged)
    if error_count:
        kinds: dict[str, int] = {}
        for record in records:
            if record.error is not None and not record.not_judged:
                kind = record.error_kind or "error"
                kinds[kind] = kinds.get(kind, 0) + 1
        detail = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        lines.append(f"judge errors: {error_count} ({detail}); excluded from the means above")
    return lines + extra


def summary_text(
    records: list[CheckRecord],
    closing: Sequence[str] = (),
    *,
    quiet: bool = False,
    dry_run: bool = False,
    budget_usd: float | None = None,
    replay: bool = False,
) -> list[str]:
    """Every line under the "pytest-rag summary" rule: the table, the repeats and ensembles block,
    then ``closing`` (the notes, gates, agreement, baseline and files of the run's end). Empty when
    no check was recorded: there is no summary to print."""
    table = render(records, quiet=quiet, dry_run=dry_run, budget_usd=budget_usd, replay=replay)
    if not table:
        return []
    return [*table, *repeats_lines(records), *closing]
