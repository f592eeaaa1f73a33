"""``--rag-html=PATH``: one self-contained HTML file that a person opens to see how a run went.

The file holds everything it shows: style sheet, script, SVG plots and data are inline, and it
loads nothing over the network. It shows the score distribution of every metric and judge (strip,
box, mean with its 95% interval, threshold, pass rate), a sortable and filterable table of every
check, a detail view per check (the judge's reasons, the answer with its unsupported sentences
marked, the context span closest to each sentence, per-passage grades, nuggets and other evidence),
the share of questions answered where a no-answer check ran, the judge calls, tokens and cost, and,
given several runs, the runs side by side with the paired change of each against the first.

Size: the table's columns are stored once per check with every repeated string interned; texts and
evidence ("details") go in by priority (errors, then failures, then the lowest scores) until the
file reaches :data:`SIZE_LIMIT`, so ten thousand checks stay under 2 MB. A check whose details were
left out says so in its detail view.

Safety: data travels as JSON inside ``<script type="application/json">`` with ``<``, ``>`` and
``&`` escaped, and the script builds the page with text nodes only; Python-made markup goes through
:func:`html.escape`. An answer that contains ``<script>`` is shown as text.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any

from ...results import CallTally, CheckRecord
from ...scoring.text import content_words, split_sentences, stem
from ..comparison import Run, compare_runs, distributions
from ..files import write_text_atomically
from ..results_file import metric_label
from .assets import CSS, JS
from .plots import change_panel, distribution_panel

#: The report aims to stay under this many bytes whatever the number of checks.
SIZE_LIMIT = 1_900_000
#: How many consecutive checks whose details did not fit end the search for ones that still fit.
MAX_MISSES = 64
#: An answer sentence is linked to the context sentence that covers at least this share of its terms.
MATCH_MIN = 0.34
#: A judge's statement is placed on the answer sentence covering at least this share of its terms.
FLAG_MIN = 0.5
#: Bytes a detail takes beyond its texts (offsets, calls, evidence), to price it before building it.
DETAIL_OVERHEAD = 300

STATUS_FAIL, STATUS_PASS, STATUS_NONE, STATUS_ERROR = 0, 1, 2, 3
SOURCE_LIVE, SOURCE_CACHED, SOURCE_OFFLINE, SOURCE_NONE = 0, 1, 2, 3


# -- strings and numbers ---------------------------------------------------------------------------


class _Strings:
    """Interned strings: each distinct text is stored once and referred to by its index."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.values)
            self.values.append(text)
        return found

    def cost(self, texts: Sequence[str]) -> int:
        """Bytes the texts not yet interned would add to the payload."""
        return sum(_json_size(t) + 1 for t in set(texts) if t not in self.index)


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``</script>``, no ``<!--``, no U+2028."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, code in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, code)
    return text


def _number(value: float | None) -> float | int | None:
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else round(float(value), 4)


def _prune(value: Any, depth: int = 0) -> Any:
    """Evidence cut to a displayable size: long strings, long lists and deep nesting shortened."""
    if isinstance(value, str):
        return value if len(value) <= 400 else value[:400] + "…"
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return _number(float(value)) if isinstance(value, float) else value
    if depth >= 4:
        return _prune(json.dumps(value, default=str, ensure_ascii=False), depth)
    if isinstance(value, dict):
        items = list(value.items())
        pruned = {str(k): _prune(v, depth + 1) for k, v in items[:30]}
        if len(items) > 30:
            pruned["…"] = f"{len(items) - 30} more field(s)"
        return pruned
    if isinstance(value, (list, tuple)):
        out = [_prune(v, depth + 1) for v in value[:40]]
        if len(value) > 40:
            out.append(f"… {len(value) - 40} more")
        return out
    return _prune(str(value), depth)


# -- matching sentences to contexts ------------------------------------------------------------------


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text`` (as :func:`pytest_rag.scoring.text.split_sentences` cuts)."""
    spans, at = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence, at)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        at = start + len(sentence)
    return spans


def _terms(text: str) -> set[str]:
    return {stem(word) for word in content_words(text)}


def _coverage(needle: set[str], hay: set[str]) -> float:
    return len(needle & hay) / len(needle) if needle else 0.0


def match_sentences(answer: str, contexts: Sequence[str]) -> list[tuple[int, int, int, int, int]]:
    """For every answer sentence, the context sentence that covers most of its content words.

    Returns ``(start, end, context_index, context_start, context_end)`` per answer sentence, with
    ``context_index`` -1 when no context sentence covers :data:`MATCH_MIN` of its words.
    """
    candidates = [
        (k, start, end, _terms(context[start:end]))
        for k, context in enumerate(contexts)
        for start, end in sentence_spans(context)
    ]
    out = []
    for start, end in sentence_spans(answer):
        terms = _terms(answer[start:end])
        best, where = 0.0, (-1, 0, 0)
        for k, c_start, c_end, c_terms in candidates:
            score = _coverage(terms, c_terms)
            if score > best:
                best, where = score, (k, c_start, c_end)
        out.append((start, end, *where) if best >= MATCH_MIN else (start, end, -1, 0, 0))
    return out


def _flag_sentences(answer: str, spans: Sequence[tuple[int, int]], statements: Sequence[str]) -> set[int]:
    """Indices of the answer sentences that hold a flagged statement (verbatim or by most words)."""
    lowered = answer.lower()
    flagged: set[int] = set()
    sentence_terms = [_terms(answer[s:e]) for s, e in spans]
    for statement in statements:
        text = statement.strip().lower()
        at = lowered.find(text) if text else -1
        if at >= 0:
            flagged |= {i for i, (s, e) in enumerate(spans) if s < at + len(text) and at < e}
            continue
        terms = _terms(statement)
        scores = [_coverage(terms, sentence) for sentence in sentence_terms]
        if scores and max(scores) >= FLAG_MIN:
            flagged.add(scores.index(max(scores)))
    return flagged


def context_grades(record: CheckRecord, shown: int) -> list[str | None] | None:
    """The grade to show on each of the ``shown`` contexts, as the metric declared them; None
    when the metric grades no passage."""
    grades = [record.highlights.passages.get(rank) for rank in range(1, shown + 1)]
    return grades if any(g is not None for g in grades) else None


# -- the payload -----------------------------------------------------------------------------------


def _status(record: CheckRecord) -> int:
    if record.error is not None:
        return STATUS_ERROR
    if record.passed is None:
        return STATUS_NONE
    return STATUS_PASS if record.passed else STATUS_FAIL


def _source(calls: CallTally) -> int:
    if calls.live:
        return SOURCE_LIVE
    if calls.offline:
        return SOURCE_OFFLINE
    if calls.cached:
        return SOURCE_CACHED
    return SOURCE_NONE


def _priority(item: tuple[int, CheckRecord]) -> tuple[int, float, int]:
    index, record = item
    rank = {STATUS_ERROR: 0, STATUS_FAIL: 1, STATUS_NONE: 2, STATUS_PASS: 3}[_status(record)]
    return rank, record.normalized if record.normalized is not None else 0.0, index


def _detail(
    record: CheckRecord, strings: _Strings, matches: dict[tuple[str, tuple[str, ...]], Any]
) -> tuple[Callable[[], dict[str, Any]], list[str]]:
    """A builder of the check's detail-view data, and the texts it will intern (to price it first)."""
    texts = record.texts
    answer = texts.answer if texts else ""
    contexts = tuple(texts.contexts) if texts else ()
    needed = [t for t in (record.reasons, record.error, texts and texts.question, answer) if t]
    needed += list(contexts) + ([texts.reference] if texts and texts.reference else [])
    needed += [j.judge for j in record.judges] + ([record.sample_id] if record.sample_id else [])
    if record.error_kind:
        needed.append(record.error_kind)

    def build() -> dict[str, Any]:
        sentences: list[list[int]] = []
        if answer:
            key = (answer, contexts)
            if key not in matches:
                matches[key] = match_sentences(answer, contexts)
            matched = matches[key]
            statements = record.highlights.statements
            flagged = _flag_sentences(answer, [(m[0], m[1]) for m in matched], statements)
            sentences = [[m[0], m[1], int(i in flagged), m[2], m[3], m[4]] for i, m in enumerate(matched)]
        evidence = _prune(record.evidence)
        if isinstance(evidence.get("raw_reply"), str):
            evidence["raw_reply"] = evidence["raw_reply"][:600]
        calls = record.calls
        return {
            "sid": strings(record.sample_id) if record.sample_id else -1,
            "norm": _number(record.normalized),
            "why": strings(record.reasons) if record.reasons else -1,
            "err": strings(record.error) if record.error else -1,
            "ek": strings(record.error_kind) if record.error_kind else -1,
            "q": strings(texts.question) if texts and texts.question else -1,
            "a": strings(answer) if answer else -1,
            "c": [strings(c) for c in contexts],
            "ref": strings(texts.reference) if texts and texts.reference else -1,
            "cut": bool(texts and texts.truncated),
            "sent": sentences,
            "cg": context_grades(record, len(contexts)),
            "ev": evidence,
            "judges": [
                [strings(j.judge), _number(j.score), [_number(v) for v in j.repeats]] for j in record.judges
            ],
            "calls": [
                calls.live,
                calls.cached,
                calls.offline,
                calls.tokens_in,
                calls.tokens_out,
                round(calls.cost_usd, 6),
                round(calls.latency_s, 3),
            ],
        }

    return build, needed


def _answered_share(records: Sequence[CheckRecord]) -> tuple[int, int] | None:
    """(answered, judged) over the no-answer checks, or None when no no-answer check ran.

    A check counts as answered when its evidence says ``attempted`` (the built-in metric) or
    ``answered``, or else when its normalized score is at least 0.5 (an attempt scores 1)."""
    judged = [r for r in records if r.metric == "no_answer" and r.error is None and r.score is not None]
    if not judged:
        return None
    answered = 0
    for record in judged:
        flag = record.evidence.get("attempted", record.evidence.get("answered"))
        if isinstance(flag, bool):
            answered += flag
        else:
            answered += (record.normalized if record.normalized is not None else 0.0) >= 0.5
    return answered, len(judged)


def build_payload(records: Sequence[CheckRecord], detail_budget: int) -> dict[str, Any]:
    """The report's data: interned strings, the table's columns and the details that fit the budget."""
    strings = _Strings()
    columns: dict[str, list[Any]] = {
        key: []
        for key in (
            "file",
            "name",
            "metric",
            "judge",
            "score",
            "scale",
            "threshold",
            "status",
            "source",
            "tokens",
            "detail",
        )
    }
    metrics: dict[int, None] = {}
    for record in records:
        file, sep, name = record.test_id.partition("::")
        columns["file"].append(strings(file) if sep else -1)
        columns["name"].append(strings(name) if sep else strings(record.test_id))
        metric = strings(metric_label(record))
        metrics[metric] = None
        columns["metric"].append(metric)
        columns["judge"].append(strings(record.judge))
        columns["score"].append(_number(record.score))
        scale = (
            f"{record.scale_low:g}-{record.scale_high:g}"
            if record.scale_low is not None and record.scale_high is not None
            else None
        )
        columns["scale"].append(strings(scale) if scale else -1)
        columns["threshold"].append(_number(record.threshold))
        columns["status"].append(_status(record))
        columns["source"].append(_source(record.calls))
        columns["tokens"].append(record.calls.tokens_in + record.calls.tokens_out)
        columns["detail"].append(-1)
    details: list[dict[str, Any]] = []
    matches: dict[tuple[str, tuple[str, ...]], Any] = {}
    remaining, misses = detail_budget, 0
    for index, record in sorted(enumerate(records), key=_priority):
        if misses >= MAX_MISSES or remaining <= 0:
            break
        build, needed = _detail(record, strings, matches)
        if strings.cost(needed) + DETAIL_OVERHEAD > remaining:
            misses += 1
            continue
        misses = 0
        before = len(strings.values)
        detail = build()
        remaining -= sum(_json_size(t) + 1 for t in strings.values[before:]) + _json_size(detail) + 1
        columns["detail"][index] = len(details)
        details.append(detail)
    return {
        "strings": strings.values,
        "checks": columns,
        "metrics": sorted(metrics, key=lambda i: strings.values[i]),
        "details": details,
    }


# -- the page --------------------------------------------------------------------------------------


def _card(value: str, label: str) -> str:
    return f'<div class="card"><b>{escape(value)}</b><span>{escape(label)}</span></div>'


def _summary_cards(records: Sequence[CheckRecord]) -> str:
    status = [_status(r) for r in records]
    total = CallTally()
    for record in records:
        total.add(record.calls)
    cards = [
        _card(f"{len(records):,}", "judged checks"),
        _card(f"{status.count(STATUS_PASS):,}", "passed"),
        _card(f"{status.count(STATUS_FAIL):,}", "failed"),
        _card(f"{status.count(STATUS_ERROR):,}", "judge errors (not scored)"),
        _card(
            f"{total.live:,} / {total.cached:,} / {total.offline:,}", "judge calls live / cached / offline"
        ),
        _card(f"{total.tokens_in:,} / {total.tokens_out:,}", "tokens in / out"),
        _card(f"${total.cost_usd:.4f}", "estimated judge cost"),
    ]
    if status.count(STATUS_NONE):
        cards.insert(3, _card(f"{status.count(STATUS_NONE):,}", "scored without threshold"))
    answered = _answered_share(records)
    if answered is not None:
        share = f"{answered[0] / answered[1]:.0%}"
        cards.append(
            _card(
                f"{share} ({answered[0]}/{answered[1]})", "questions answered (where no-answer detection ran)"
            )
        )
    return f'<div class="cards" id="run-summary">{"".join(cards)}</div>'


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
<input id="search" type="search" placeholder="filter by test id" aria-label="filter by test id">
<select id="metric-filter" aria-label="metric"><option value="-1">all metrics</option></select>
<select id="status-filter" aria-label="outcome"><option value="-1">all outcomes</option>
<option value="0">fail</option><option value="1">pass</option><option value="2">no threshold</option>
<option value="3">error</option></select>
<button id="prev" type="button">previous</button><button id="next" type="button">next</button>
<span id="pager" class="muted"></span></div>
<table id="checks"><thead><tr>
<th data-key="test"><button type="button">test</button></th>
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
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
            f'<header><h1>{escape(title)}</h1><p class="muted">{escape(subtitle)}</p></header><main>',
            body,
            "</main><footer>Scores are on each metric's own scale; compare them only within one judge. "
            "Means carry seeded 95% percentile-bootstrap intervals; judge errors are counted apart and "
            "never scored. Made by pytest-rag; this file loads nothing from the network.</footer>",
            f'<script type="application/json" id="rag-data">{payload}</script>',
            f"<script>{JS}</script></body></html>\n",
        ]
    )


def render_html(
    records: Sequence[CheckRecord],
    *,
    runs: Sequence[Run] = (),
    title: str = "pytest-rag report",
    generated_at: _dt.datetime | None = None,
    size_limit: int = SIZE_LIMIT,
) -> str:
    """The whole report as one HTML string (``runs``: earlier runs to compare, the current last)."""
    records = list(records)
    when = (generated_at or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    judges = sorted({r.judge for r in records if r.judge})
    subtitle = f"generated {when} · {len(records):,} checks · judges: {', '.join(judges) or 'none'}"
    body = "".join(
        [
            f"<section><h2>Run</h2>{_summary_cards(records)}</section>",
            f"<section><h2>Scores by metric and judge</h2>{_plots_html(records)}</section>",
            _comparison_html(runs),
            _TABLE,
        ]
    )
    skeleton = len(_page(title, subtitle, body, "").encode("utf-8"))
    budget = size_limit - skeleton - _json_size(build_payload(records, 0))
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
) -> Path:
    """Write the report to ``path`` atomically (a half-written report never replaces a good one)."""
    page = render_html(records, runs=runs, title=title)
    write_text_atomically(path, page)
    return path
