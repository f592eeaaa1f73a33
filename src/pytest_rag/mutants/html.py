"""The mutants' section of the HTML report: the catch table and every survivor.

Plain markup from :func:`html.escape`d text (an answer that holds ``<script>`` is shown as text), in the
report's own table style; the report places it before its table of checks
(:func:`pytest_rag.report.html.page.render_html`, ``sections``).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from .records import SURVIVED, MutantRecord
from .table import catch_rows


def _cells(tag: str, values: Sequence[object]) -> str:
    return "<tr>" + "".join(f"<{tag}>{escape(str(value))}</{tag}>" for value in values) + "</tr>"


def mutants_section(records: Sequence[MutantRecord], pending: frozenset[str] = frozenset()) -> str:
    """``<section id="mutants">``: the catch rate per class with its 95% interval, then each mutant
    its check passed (the check, metric, judge, class, the words changed and the edited sentence)."""
    if not records:
        return (
            '<section id="mutants"><h2>Mutants</h2><p class="muted">No answer-level check passed with a bar '
            "in this run, so no mutant was made.</p></section>"
        )
    rows = []
    for row in catch_rows(records, pending):
        interval = row.interval
        rate = "-" if row.rate is None else f"{row.rate:.0%}"
        shown = "-" if interval is None else f"[{interval.low:.2f}, {interval.high:.2f}]"
        counts = (
            row.mutants,
            row.caught,
            row.survived,
            rate,
            shown,
            row.no_verdict + row.pending,
            row.no_mutant,
        )
        rows.append(_cells("td", (row.mutation, *counts)))
    head = _cells(
        "th", ("class", "mutants", "caught", "survived", "catch rate", "95% CI", "no verdict", "no mutant")
    )
    survivors = [r for r in records if r.outcome == SURVIVED]
    listed = "".join(
        _cells("td", (r.check, r.metric_label, r.judge, r.mutation, r.removed, r.added, r.sentence))
        for r in survivors
    )
    survivor_table = (
        f'<h3>Survivors ({len(survivors)})</h3><table id="mutant-survivors">'
        + _cells("th", ("check", "metric", "judge", "class", "taken out", "put in", "edited sentence"))
        + f"{listed}</table>"
        if survivors
        else '<p class="muted">No mutant survived: every check failed every mutant it was judged on.</p>'
    )
    return (
        '<section id="mutants"><h2>Mutants</h2><p class="muted">Every passing answer-level check was judged '
        "again on mutated answers; a mutant the check still passed has survived. Catch rate = caught / "
        "(caught + survived), with a 95% Wilson interval; mutants without a verdict and checks without a "
        f'mutant of a class are counted apart.</p><table id="catch-table">{head}{"".join(rows)}</table>'
        f"{survivor_table}</section>"
    )
