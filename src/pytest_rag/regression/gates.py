"""What the whole run concludes: suite-level gates, agreement with gold labels, change from a baseline.

A gate fails on the interval's bound, not on the mean: ``--rag-fail-under faithfulness=4`` fails the
session when the lower bound of faithfulness's 95% bootstrap interval is below 4, so a suite passes
only when it is confidently above the bar, and a lucky mean over five checks is not enough.
``--rag-min-alpha`` works the same way on the lower bound of alpha's interval. ``--rag-baseline``
only reports: each metric's change against a saved results file, by a paired bootstrap over the
checks both runs scored, flagging a change only when its interval excludes zero.

A gate that judged nothing fails: its metric did not run (deselected with ``-k``, a shard left out of
a merge) or every check of a judge's row ended without a verdict. A gate asked for and never
evaluated is no evidence that the suite clears its bar, and a green run would say it is. The one
exception is a check that waits by design (``--rag-dry-run`` counts checks, ``--rag-batch`` queues
them): such a gate is shown as not evaluated, as its tests are skipped rather than failed, and so
is one of whose checks only some wait, as its interval would speak for checks it never saw.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..check_keys import metric_label
from ..errors import InputError, RagError
from ..report.comparison import paired_changes
from ..report.html.verdict import RunVerdict
from ..report.repeats import format_alpha
from ..report.results_file import read_results
from ..report.summary import SummaryRow, summary_rows
from ..results import CheckRecord
from .gold import gold_agreement, load_gold


@dataclass
class Conclusion:
    """Lines for the terminal summary and the reasons (if any) the session must fail.

    The end of a run and ``pytest-rag merge`` both add to it: the gates' lines, then what happened
    to the files they were asked to write, each failure both shown and counted."""

    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    unsubmitted: list[str] = field(default_factory=list)
    """Provider batches refused for good at the run's end (``--rag-batch``): they fail the run, since
    their checks would wait for ever, but no gate failed, and the verdict says which it was."""
    faults: list[tuple[str, str]] = field(default_factory=list)
    """What else failed the run, as (what the verdict calls it, the line that tells it): a file that
    could not be written, checks without a verdict that no test's report saw. None of them is a
    gate, and the verdict names each as what it is."""

    @property
    def failed(self) -> bool:
        return bool(self.failures or self.unsubmitted or self.faults)

    def fail(self, exc: BaseException) -> None:
        """A gate's input that went wrong (an unreadable gold or baseline file): a failed gate with
        its reason, never a crash that would hide the test results."""
        message = f"pytest-rag: {exc}"
        self.failures.append(message)
        self.lines.append(message)

    def fault(self, what: str, why: object) -> None:
        """A failure of the run's end that is no gate: ``what`` as the verdict names it ("could not
        write results.json"), ``why`` the whole story, shown on its own line."""
        line = f"pytest-rag: {why}"
        self.faults.append((what, line))
        self.lines.append(line)

    def could_not_write(self, what: str, exc: BaseException) -> None:
        """A file of the run's end (``what``: "the results file", "the HTML report", "the judgment
        export") that could not be written: the run fails, told as what happened to that file."""
        path = getattr(exc, "path", None)
        self.fault(f"could not write {path.name if isinstance(path, Path) else what}", exc)

    @property
    def verdict(self) -> RunVerdict:
        """What the HTML report shows first: whether the run failed, why, and every line."""
        return RunVerdict(self.failed, tuple(self.failure_lines), tuple(self.lines))

    @property
    def summary_lines(self) -> list[str]:
        """What the summary shows after its table: every line, then, when a gate failed, the verdict."""
        return [*self.lines, *self._verdict()]

    @property
    def failure_lines(self) -> list[str]:
        """Only why the run failed (nothing when it did not), for a run whose summary is hidden."""
        return [*self.failures, *self.unsubmitted, *(line for _, line in self.faults), *self._verdict()]

    def _verdict(self) -> list[str]:
        if not self.failed:
            return []
        gates = f" by {len(self.failures)} gate(s)" if self.failures else ""
        others = [f"{len(self.unsubmitted)} batch(es) could not be submitted"] if self.unsubmitted else []
        others.extend(what for what, _ in self.faults)
        rest = f"{';' if gates else ':'} {'; '.join(others)}" if others else ""
        return [f"pytest-rag: session failed{gates}{rest}"]


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def describe_row(row: SummaryRow) -> str:
    a = row.aggregate
    return (
        f"{a.metric} [{a.judge}] n={a.n} mean {_fmt(a.mean)} 95% CI [{_fmt(a.ci_low)}, {_fmt(a.ci_high)}]"
        + (f", {a.errors} judge error(s) excluded" if a.errors else "")
    )


def _matches(bar_metric: str, row_metric: str) -> bool:
    return row_metric == bar_metric or ("[" not in bar_metric and row_metric.startswith(bar_metric + "["))


def check_fail_under(
    records: Sequence[CheckRecord],
    bars: Mapping[str, float],
    out: Conclusion,
    pending: frozenset[str] = frozenset(),
) -> None:
    """Gate each metric on the lower bound of its interval, per judge row of it.

    For an ensemble, the gate applies to the ensemble's row (the score the tests used), not to its
    members' rows. A gate with no row, or a row with no scored check, fails (see the module's
    docstring), unless every check of that row is of a ``pending`` error kind (only counted or
    queued in this run, :func:`pytest_rag.run.unjudged.pending_kinds`).
    """
    if not bars:
        return
    rows = summary_rows(records)
    final_judges = {(metric_label(r), r.judge) for r in records}
    scales: dict[str, tuple[float, float]] = {
        metric_label(r): (r.scale_low, r.scale_high)
        for r in records
        if r.scale_low is not None and r.scale_high is not None
    }
    out.lines.append("gates (--rag-fail-under, on the lower bound of the 95% CI):")
    for metric, bar in sorted(bars.items()):
        gated = [
            row
            for row in rows
            if _matches(metric, row.aggregate.metric)
            and (row.aggregate.metric, row.aggregate.judge) in final_judges
        ]
        reference = None if "[" in metric else scales.get(metric) or _default_scale(metric)
        if reference is not None:  # a metric's bar gates its other modes only on the same scale
            other = sorted(
                {r.aggregate.metric for r in gated if scales.get(r.aggregate.metric, reference) != reference}
            )
            gated = [row for row in gated if row.aggregate.metric not in other]
            for label in other:
                bottom, top = scales[label]
                out.lines.append(
                    f"  {label} not gated by {metric} >= {bar:g}: it scores {bottom:g}-{top:g}, not "
                    f"{reference[0]:g}-{reference[1]:g} (gate it as {label}=VALUE)"
                )
        if not gated:
            _not_evaluated(out, metric, bar, f"no check of {metric} ran in this run")
            continue
        for row in gated:
            if _row_without_verdict(out, metric, bar, row, records, pending):
                continue
            low = row.aggregate.ci_low
            assert low is not None
            if low < bar:
                message = (
                    f"{metric} >= {bar:g} FAILED: lower bound {low:.2f} < {bar:g} in {describe_row(row)}"
                )
                out.failures.append(message)
                out.lines.append(f"  {message}")
            else:
                out.lines.append(
                    f"  {metric} >= {bar:g} passed: lower bound {low:.2f} in {describe_row(row)}"
                )


def _not_evaluated(out: Conclusion, metric: str, bar: float, why: str) -> None:
    """A gate asked for that judged nothing: a failure, with what to do about it."""
    message = (
        f"{metric} >= {bar:g} FAILED: not evaluated: {why}; a gate that judges nothing is no pass "
        "(run its checks or remove the gate from this run)"
    )
    out.failures.append(message)
    out.lines.append(f"  {message}")


def _row_without_verdict(
    out: Conclusion,
    metric: str,
    bar: float,
    row: SummaryRow,
    records: Sequence[CheckRecord],
    pending: frozenset[str],
) -> bool:
    """Say so and return True when a row of the gate cannot be held to its bar: some of its checks
    wait by design (only counted, or queued for a batch), so its interval covers part of them and
    the gate is not evaluated, unless that part already fails it (the gate never passes on part of
    its checks); or none of its checks was scored, and the gate fails."""
    label, judge = row.aggregate.metric, row.aggregate.judge
    kinds = Counter(
        r.error_kind or "no score"
        for r in records
        if metric_label(r) == label and r.judge == judge and r.score is None
    )
    waiting = {kind: n for kind, n in kinds.items() if kind in pending}
    low = row.aggregate.ci_low
    if waiting and not (row.aggregate.n and low is not None and low < bar):
        total = sum(1 for r in records if metric_label(r) == label and r.judge == judge)
        out.lines.append(
            f"  {metric} >= {bar:g}: not evaluated: {sum(waiting.values())} of its {total} check(s) "
            f"were not judged in this run ({', '.join(sorted(waiting))})"
        )
        return True
    if row.aggregate.n and low is not None:
        return False
    ended = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    _not_evaluated(
        out,
        metric,
        bar,
        f"all {sum(kinds.values())} check(s) of {label} [{judge}] ended without a verdict ({ended})",
    )
    return True


def check_gate_names(bars: Mapping[str, float], records: Sequence[CheckRecord], source: str) -> None:
    """A gate of ``pytest-rag merge`` (which has no pytest start-up to check it, as a run has) is
    checked here as a run's start-up checks it: it must name a metric of the merged results or a
    built-in one (a typo would be a gate that is never evaluated), a mode that metric has, and a bar
    on its scale (``faithfulness=0.8`` on a 1-5 metric could never fail, so every merge would pass).
    A built-in metric is checked against the catalog, with the run's own messages; a plugin's metric,
    which only its results know, against the scale its checks recorded."""
    from ..metrics.base import Metric
    from ..metrics.catalog import builtin_metrics, metric_names

    builtin = set(metric_names())
    known = {r.metric for r in records} | builtin
    for key in bars:
        name = key.partition("[")[0].strip()
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = (
                f"did you mean {close[0]!r}?"
                if close
                else "no check of these results and no built-in metric has that name"
            )
            raise InputError(f"{source} {key}: {name!r} is not a metric; {hint}")
    classes = builtin_metrics()
    ours = {key: bar for key, bar in bars.items() if key.partition("[")[0].strip() in builtin}
    for key, bar in ours.items():
        name, _, bracket = key.partition("[")
        name, mode = name.strip(), bracket.rstrip("]").strip() or "default"
        modes = {metric.mode: metric for metric in classes if metric.name == name}
        if modes and mode not in modes:
            raise InputError(
                f"{source} {key}: metric {name!r} has no mode {mode!r}; its modes: {', '.join(sorted(modes))}"
            )
        metric = modes.get(mode)
        if metric is not None and metric.scale_for is Metric.scale_for:  # else each check has its own
            metric().check_threshold(bar, {}, f"{source} {key}={bar:g}")
    scales = {
        metric_label(r): (r.scale_low, r.scale_high)
        for r in records
        if r.scale_low is not None and r.scale_high is not None
    }
    for key, bar in bars.items():
        if key in ours or key not in scales:
            continue
        low, high = scales[key]
        if not low <= bar <= high:
            raise InputError(
                f"{source} {key}={bar:g} is outside the {low:g}-{high:g} scale of {key} in these results, "
                f"so the gate could {'never pass' if bar > high else 'never fail'}; give a bar from "
                f"{low:g} to {high:g}"
            )


def _default_scale(name: str) -> tuple[float, float] | None:
    """The scale of a built-in metric's default mode, for a run that scored only its other modes
    (None for a metric the catalog does not hold: its bar then gates every mode)."""
    from ..metrics.catalog import builtin_metrics

    for metric in builtin_metrics():
        if metric.name == name and metric.mode == "default":
            return (metric.scale.low, metric.scale.high)
    return None


def check_gold(
    records: Sequence[CheckRecord],
    gold_path: Path | None,
    min_alpha: float | None,
    out: Conclusion,
    pending: frozenset[str] = frozenset(),
) -> None:
    """Agreement with the gold labels, and the ``--rag-min-alpha`` gate on its lower bound. A bar
    that no alpha interval could be held to fails, as a ``--rag-fail-under`` gate that judged nothing
    does, unless the run judged nothing by design (``pending``)."""
    if gold_path is None:
        if min_alpha is not None:
            out.failures.append("--rag-min-alpha needs gold labels: pass --rag-gold=PATH")
            out.lines.append(f"  {out.failures[-1]}")
        return
    agreement = gold_agreement(records, load_gold(gold_path))
    out.lines.append(
        f"agreement with gold labels ({gold_path.name}, Krippendorff's alpha, ordinal, 95% CI); "
        f"{agreement.matched} of {agreement.total} labels matched a check:"
    )
    waiting = bool(records) and all(r.error_kind in pending for r in records)
    if not agreement.rows:
        line = "  no check of this run has a gold label (keys are test_id, sample_id, metric)"
        if min_alpha is not None and waiting:
            line += f"; min-alpha {min_alpha:g} not evaluated (no check was judged in this run)"
        elif min_alpha is not None:
            message = (
                f"alpha >= {min_alpha:g} FAILED: not evaluated: no check of this run has a gold label; "
                f"label the checks this run judges in {gold_path.name}, or remove the min-alpha gate "
                "from this run"
            )
            out.failures.append(message)
            line += f"; {message}"
        out.lines.append(line)
    for row in agreement.rows:
        estimate = row.estimate
        line = f"  {row.metric} [{row.judge}]: alpha {format_alpha(estimate)} over {estimate.n_units} checks"
        if min_alpha is not None:
            if estimate.interval is None:
                why = (
                    "alpha is undefined" if estimate.alpha is None else "alpha has no interval"
                ) + f" over {estimate.n_units} checks (too few checks, or every score the same)"
                message = (
                    f"alpha >= {min_alpha:g} FAILED for {row.metric} [{row.judge}]: not evaluated: "
                    f"{why}; label more checks, with varied scores, or remove the min-alpha gate from this run"
                )
                out.failures.append(message)
                line += f"; {message}"
            elif estimate.interval.low < min_alpha:
                message = (
                    f"alpha >= {min_alpha:g} FAILED for {row.metric} [{row.judge}]: lower bound "
                    f"{estimate.interval.low:.2f} < {min_alpha:g}"
                )
                out.failures.append(message)
                line += f"; {message}"
            else:
                line += f"; min-alpha {min_alpha:g} passed"
        out.lines.append(line)


def compare_baseline(records: Sequence[CheckRecord], baseline_path: Path, out: Conclusion) -> None:
    """Paired bootstrap of this run against a saved results file, per metric and judge."""
    baseline = read_results(baseline_path, "baseline file", " on the reference run")
    out.lines.append(
        f"change from baseline {baseline_path.name} (paired bootstrap over shared checks, 95% CI; "
        "* = interval excludes zero):"
    )
    for (metric, judge), diff in paired_changes(baseline, records).items():
        if diff.n_shared == 0 or diff.delta is None:
            if not diff.only_after:
                out.lines.append(f"  {metric} [{judge}]: in the baseline only (not scored in this run)")
            elif not diff.only_before:
                out.lines.append(f"  {metric} [{judge}]: new in this run (not in the baseline)")
            else:
                out.lines.append(f"  {metric} [{judge}]: no check scored in both runs")
            continue
        interval = "" if diff.interval is None else f" [{diff.interval.low:+.2f}, {diff.interval.high:+.2f}]"
        flag = ""
        if diff.significant:
            flag = " * drop" if diff.delta < 0 else " * rise"
        unpaired = ""
        if diff.only_before or diff.only_after:
            unpaired = f"; unpaired: {len(diff.only_before)} baseline-only, {len(diff.only_after)} new"
        out.lines.append(
            f"  {metric} [{judge}]: {_fmt(diff.mean_before)} -> {_fmt(diff.mean_after)}, "
            f"change {diff.delta:+.2f}{interval} over {diff.n_shared} shared checks{unpaired}{flag}"
        )


def conclude(
    records: Sequence[CheckRecord],
    *,
    fail_under: Mapping[str, float],
    gold: Path | None,
    min_alpha: float | None,
    baseline: Path | None,
    notes: Sequence[str] = (),
    pending: frozenset[str] = frozenset(),
) -> Conclusion:
    """The gates, gold agreement and baseline comparison of a run's records, after its ``notes``.

    A bad gold or baseline file is a failed gate with its reason, never a crash that would hide the
    test results. Used at the end of a run and by ``pytest-rag merge``. ``pending``: the error kinds of
    checks that wait by design in this run, which leave a gate not evaluated rather than failed."""
    out = Conclusion(lines=list(notes))
    try:
        check_fail_under(records, fail_under, out, pending)
        check_gold(records, gold, min_alpha, out, pending)
        if baseline is not None:
            compare_baseline(records, baseline, out)
    except (RagError, ValueError) as exc:
        failed = Conclusion(lines=list(notes))
        failed.fail(exc)
        return failed
    return out
