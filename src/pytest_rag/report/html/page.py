"""``--rag-html=PATH``: one self-contained HTML file that a person opens to see how a run went.

The file holds everything it shows: style sheet, script, SVG plots and data are inline, and it
loads nothing over the network. It shows the score distribution of every metric and judge (strip,
box, mean with its 95% interval, threshold, pass rate), a sortable and filterable table of every
check, a detail view per check (the judge's reasons, the answer with its unsupported sentences
marked, the context span closest to each sentence, per-passage grades, nuggets and other evidence),
the share of questions answered where a no-answer check ran, the judge calls, tokens and cost, the
uncertain checks (where judges reported their grades' odds: a pass probability between 0.2 and 0.8,
marked in the table and selectable as an outcome), and, given several runs, the runs side by side
with the paired change of each against the first.

The data it shows is built in :mod:`.payload` (interned columns, details by priority within a size
budget) and :mod:`.sentences` (which answer sentence to mark and where it comes from); the plots
are drawn in :mod:`.plots`; the style sheet and script are the files ``assets/report.css`` and
``assets/report.js``, shipped as package data and inlined into every report.

Safety: data travels as JSON inside ``<script type="application/json">`` with ``<``, ``>`` and
``&`` escaped, and the script builds the page with text nodes only; Python-made markup goes through
:func:`html.escape`. An answer that contains ``<script>`` is shown as text.
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from ...errors import RagError
from ...results import UNCERTAIN_BAND, CallTally, CheckRecord
from ...run_record import RunRecord
from ..comparison import Run, compare_runs, distributions
from ..files import FileWriteError, write_atomically
from .payload import (
    SIZE_LIMIT,
    STATUS_ERROR,
    STATUS_FAIL,
    STATUS_NONE,
    STATUS_PASS,
    answered_share,
    build_payload,
    check_status,
    json_size,
    script_json,
)
from .plots import change_panel, distribution_panel
from .verdict import RunVerdict, verdict_html


@functools.cache
def _asset(name: str) -> str:
    """A file of the ``assets`` folder beside this module, as text.

    The script builds the checks table and the detail view with ``textContent`` and DOM nodes only,
    never ``innerHTML`` (an answer, context or judge reply that contains markup is shown as text),
    and shows one page of checks at a time, so a report of ten thousand checks stays responsive."""
    return resources.files(__package__).joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _card(value: str, label: str) -> str:
    return f'<div class="card"><b>{escape(value)}</b><span>{escape(label)}</span></div>'


def _test_cards(run: RunRecord | None) -> list[str]:
    """The tests as pytest counted them, when the run record is known: a check is not a test (a test
    holds several checks, and an xfailed test's failed checks are failed checks), so the card never
    lets one stand for the other."""
    if run is None:
        return []
    shards = f" in {len(run.shards)} shards" if run.shards else ""
    cards = [
        _card(
            run.outcome_text(),
            f"tests{shards}, as pytest counted them ({run.tests_run:,} of {run.tests_collected:,} collected ran)",
        )
    ]
    if run.stopped_early:
        cards.append(_card("stopped early", f"{run.stopped_early}: not every check of the suite was judged"))
    return cards


def _summary_cards(records: Sequence[CheckRecord], run: RunRecord | None = None) -> str:
    status = [check_status(r) for r in records]
    total = CallTally()
    for record in records:
        total.add(record.calls)
    cards = [
        _card(f"{len(records):,}", "checks"),
        _card(f"{status.count(STATUS_PASS):,}", "checks passed"),
        _card(f"{status.count(STATUS_FAIL):,}", "checks failed"),
        _card(f"{status.count(STATUS_ERROR):,}", "checks with judge errors (not scored)"),
        _card(f"{total.live:,} / {total.cached:,} / {total.offline:,}", "judge calls live / cached / offline")
        if not total.batched
        else _card(
            f"{total.live:,} / {total.cached:,} / {total.batched:,} / {total.offline:,}",
            "judge calls live / cached / from batches / offline",
        ),
        _card(f"{total.tokens_in:,} / {total.tokens_out:,}", "tokens in / out"),
        _card(f"${total.cost_usd:.4f}", "estimated judge cost"),
    ]
    if status.count(STATUS_NONE):
        cards.insert(3, _card(f"{status.count(STATUS_NONE):,}", "checks scored without threshold"))
    with_odds = [r for r in records if r.pass_probability is not None]
    if with_odds:
        low, high = UNCERTAIN_BAND
        uncertain = sum(1 for r in with_odds if r.uncertain)
        cards.append(
            _card(
                f"{uncertain:,} of {len(with_odds):,}",
                f"uncertain checks (pass probability {low:g}-{high:g})",
            )
        )
    if total.failures:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(total.failures.items()))
        cards.append(
            _card(f"{sum(total.failures.values()):,} of {total.attempts:,}", f"requests failed ({kinds})")
        )
    answered = answered_share(records)
    if answered is not None:
        share = f"{answered[0] / answered[1]:.0%}"
        cards.append(
            _card(
                f"{share} ({answered[0]}/{answered[1]})", "questions answered (where no-answer detection ran)"
            )
        )
    return f'<div class="cards" id="run-summary">{"".join([*_test_cards(run), *cards])}</div>'


def _plots_html(records: Sequence[CheckRecord]) -> str:
    dists = distributions(records)
    if not dists:
        return '<p class="muted" id="no-plots">No scores to plot: this run judged no checks.</p>'
    by_metric: dict[str, list[tuple[str, Any]]] = {}
    for dist in dists:
        by_metric.setdefault(dist.metric, []).append((dist.judge, dist))
    panels = [
        f'<div class="plot"><h3>{escape(metric)}</h3>{distribution_panel(metric, rows)}</div>'
        for metric, rows in by_metric.items()
    ]
    return f'<div class="plots" id="plots">{"".join(panels)}</div>'


def _comparison_html(runs: Sequence[Run]) -> str:
    if len(runs) < 2:
        return ""
    parts = []
    for comparison in compare_runs(runs):
        title = f"{comparison.metric} · {comparison.judge}"
        rows = list(zip(comparison.runs, comparison.distributions, strict=True))
        present = [d for d in comparison.distributions if d is not None]
        span = next(
            (
                d.scale_high - d.scale_low
                for d in present
                if d.scale_low is not None and d.scale_high is not None
            ),
            1.0,
        )
        parts.append(
            f'<div class="plot"><h3>{escape(title)}</h3>{distribution_panel(title, rows)}'
            f"{change_panel(title, comparison.runs[0], comparison.changes, span)}</div>"
        )
    names = ", ".join(escape(label) for label in (r.label for r in runs))
    return (
        f'<section id="comparison"><h2>Runs compared</h2><p class="muted">{len(runs)} runs: {names}. '
        "Each later run is paired with the first on the checks both scored (same test, sample, metric "
        "and judge); the interval is a 95% paired bootstrap of the mean change.</p>"
        f'<div class="plots">{"".join(parts)}</div></section>'
    )


_TABLE = """
<section id="table-section"><h2>Checks</h2>
<div class="controls">
<input id="search" type="search" placeholder="filter by check (test id, sample)" aria-label="filter by check">
<select id="metric-filter" aria-label="metric"><option value="-1">all metrics</option></select>
<select id="status-filter" aria-label="outcome"><option value="-1">all outcomes</option>
<option value="0">fail</option><option value="1">pass</option><option value="2">no threshold</option>
<option value="3">error</option></select>
<button id="prev" type="button">previous</button><button id="next" type="button">next</button>
<span id="pager" class="muted"></span></div>
<table id="checks"><thead><tr>
<th data-key="test"><button type="button">check</button></th>
<th data-key="metric"><button type="button">metric</button></th>
<th data-key="score" class="num"><button type="button">score</button></th>
<th data-key="threshold" class="num"><button type="button">threshold</button></th>
<th data-key="status"><button type="button">outcome</button></th>
<th data-key="judge"><button type="button">judge</button></th>
<th data-key="source"><button type="button">calls</button></th>
<th data-key="tokens" class="num"><button type="button">tokens</button></th>
</tr></thead><tbody></tbody></table>
<section id="detail" hidden></section>
</section>
"""


def _page(title: str, subtitle: str, body: str, payload: str) -> str:
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            '<link rel="icon" href="data:,">',
            f"<title>{escape(title)}</title><style>\n{_asset('report.css')}</style></head><body>",
            f'<header><h1>{escape(title)}</h1><p class="muted">{escape(subtitle)}</p></header><main>',
            body,
            "</main><footer>Scores are on each metric's own scale; compare them only within one judge. "
            "Means carry seeded 95% percentile-bootstrap intervals; judge errors are counted apart and "
            "never scored. Made by pytest-rag; this file loads nothing from the network.</footer>",
            f'<script type="application/json" id="rag-data">{payload}</script>',
            f"<script>\n{_asset('report.js')}</script></body></html>\n",
        ]
    )


def render_html(
    records: Sequence[CheckRecord],
    *,
    runs: Sequence[Run] = (),
    title: str = "pytest-rag report",
    generated_at: _dt.datetime | None = None,
    size_limit: int = SIZE_LIMIT,
    run: RunRecord | None = None,
    verdict: RunVerdict | None = None,
    sections: Sequence[str] = (),
) -> str:
    """The whole report as one HTML string (``runs``: earlier runs to compare, the current last;
    ``run``: what the run was, for the tests pytest counted; ``verdict``: how the run ended, its
    gates included, shown first; ``sections``: more ``<section>`` markup, escaped by its maker,
    shown before the checks, such as the mutants' catch table)."""
    records = list(records)
    when = (generated_at or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    judges = sorted({r.judge for r in records if r.judge})
    subtitle = f"generated {when} · {len(records):,} checks · judges: {', '.join(judges) or 'none'}"
    body = "".join(
        [
            verdict_html(verdict, run),
            f"<section><h2>Run</h2>{_summary_cards(records, run)}</section>",
            f"<section><h2>Scores by metric and judge</h2>{_plots_html(records)}</section>",
            _comparison_html(runs),
            *sections,
            _TABLE,
        ]
    )
    skeleton = len(_page(title, subtitle, body, "").encode("utf-8"))
    budget = size_limit - skeleton - json_size(build_payload(records, 0))
    while True:
        page = _page(title, subtitle, body, script_json(build_payload(records, max(budget, 0))))
        size = len(page.encode("utf-8"))
        if size <= size_limit or budget <= 0:
            return page
        budget -= size - size_limit + max(budget // 10, 2000)


def write_html(
    path: Path,
    records: Sequence[CheckRecord],
    *,
    runs: Sequence[Run] = (),
    title: str = "pytest-rag report",
    run: RunRecord | None = None,
    verdict: RunVerdict | None = None,
    sections: Sequence[str] = (),
) -> Path:
    """Write the report to ``path`` atomically (a half-written report never replaces a good one)."""
    page = render_html(records, runs=runs, title=title, run=run, verdict=verdict, sections=sections)
    write_atomically(path, page, "the HTML report")
    return path


def write_html_report(
    path: Path,
    records: Sequence[CheckRecord],
    baseline: Path | None,
    title: str,
    *,
    run: RunRecord | None = None,
    verdict: RunVerdict | None = None,
    sections: Sequence[str] = (),
) -> tuple[list[str], RagError | None]:
    """Write the HTML report of ``records`` (compared with ``baseline`` when that file exists), for
    the end of a run and for ``pytest-rag merge``, with the ``verdict`` they concluded; returns the
    line the summary shows (where it went), or the error that fails the run, as a results file that
    cannot be written does."""
    runs: list[Run] = []
    if baseline is not None and baseline.exists():
        try:
            runs = [
                Run.read(baseline, f"baseline: {baseline.name}", "baseline file"),
                Run("this run", list(records)),
            ]
        except RagError:
            runs = []  # the regression summary reports what is wrong with the baseline file
    try:
        write_html(path, records, runs=runs, title=title, run=run, verdict=verdict, sections=sections)
    except FileWriteError as exc:
        return [], exc
    except OSError as exc:  # reading the page's own assets (a broken install)
        return [], RagError(f"could not write the HTML report {path}: {exc.strerror or exc}")
    return [f"HTML report written to {path}"], None
