"""The report's first section: how the run ended, its gates included.

The report is read on its own (a CI artifact, a mail), so it must never look green for a run that
failed: a gate that failed the run after every check passed, a batch that could not be submitted, a
results file that was lost, or failing tests. The end of a run and ``pytest-rag merge`` hand the
report what they concluded as a :class:`RunVerdict`; a report written without one (``render_html``
called directly, ``pytest-rag plot``) has no verdict section, as it has no run to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ...run_record import RunRecord


@dataclass(frozen=True)
class RunVerdict:
    """What the end of the run concluded: whether pytest-rag failed it, why (each failed gate, batch
    or file, then the closing 'session failed' line), and every line of its gates, gold agreement
    and baseline comparison as the terminal summary shows them."""

    failed: bool
    reasons: Sequence[str] = ()
    lines: Sequence[str] = ()


def verdict_html(verdict: RunVerdict | None, run: RunRecord | None) -> str:
    """The verdict section: failed when pytest-rag failed the run or the run's exit status is not 0
    (failing tests, an interruption), with the reasons first and the gates' lines below."""
    if verdict is None:
        return ""
    reasons = list(verdict.reasons)
    status_failed = run is not None and run.exit_status != 0
    if run is not None and status_failed:
        tests = run.outcomes.get("failed", 0) + run.outcomes.get("error", 0)
        if tests:
            reasons.insert(0, f"{tests} test(s) failed or ended in an error (as pytest counted them)")
        elif not verdict.failed:
            reasons.append(f"pytest ended with {run.exit_label}")
    failed = verdict.failed or status_failed
    items = "".join(f"<li>{escape(reason)}</li>" for reason in reasons)
    listed = f'<ul class="verdict-reasons">{items}</ul>' if items else ""
    head = "failed" if failed else "passed"
    lines = "\n".join(verdict.lines)
    details = (
        f"<details{' open' if verdict.failed else ''}><summary>gates, gold agreement and baseline, as the "
        f"terminal summary shows them</summary><pre>{escape(lines)}</pre></details>"
        if lines
        else '<p class="muted">No gate, gold label or baseline was asked for in this run.</p>'
    )
    return (
        f'<section id="verdict" class="verdict {head}" data-verdict="{head}">'
        f"<h2>Verdict: run {head}</h2>"
        f"{listed}{details}</section>"
    )
