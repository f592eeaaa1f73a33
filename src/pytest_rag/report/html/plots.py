"""Score plots as inline SVG, drawn here in Python so the HTML report needs no plotting library,
no script to show its plots and no network when it is opened.

A panel shows one metric: a row per judge (or per run, when runs are compared) with the scores as a
jittered strip, a Tukey box, the mean with its 95% bootstrap interval, the threshold as a dashed
line and the pass rate. Every label is escaped: judge names and metric names come from plugins and
configuration, and nothing from outside may become markup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..comparison import Distribution, PairedChange

WIDTH = 780
LEFT = 200
RIGHT = 210
ROW = 48
TOP = 26
AXIS = 30
PLOT = WIDTH - LEFT - RIGHT
GOLDEN = 0.6180339887498949


def _fmt(value: float | None, digits: int = 2, signed: bool = False) -> str:
    if value is None:
        return "-"
    text = f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"
    return text.replace("-0.00", "0.00") if not signed else text


def _short(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Axis:
    """A linear map from scores to x pixels within the plot area."""

    low: float
    high: float

    def x(self, value: float) -> float:
        return LEFT + (value - self.low) / (self.high - self.low) * PLOT

    def ticks(self) -> list[float]:
        span = self.high - self.low
        if 2 <= span <= 10 and float(self.low).is_integer() and float(self.high).is_integer():
            return [float(v) for v in range(int(self.low), int(self.high) + 1)]
        raw = span / 5
        magnitude = 10 ** math.floor(math.log10(raw))
        step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
        first = math.ceil(self.low / step) * step
        count = math.floor((self.high - first) / step + 1e-9) + 1
        return [round(first + i * step, 10) for i in range(count)]


def axis_for(dists: Sequence[Distribution | None]) -> Axis:
    """The metric's scale when known, widened to any score or threshold outside it."""
    present = [d for d in dists if d is not None]
    values: list[float] = []
    for d in present:
        values += [v for v in (d.low, d.high, d.threshold, d.ci_low, d.ci_high) if v is not None]
    scale = next(
        (
            (d.scale_low, d.scale_high)
            for d in present
            if d.scale_low is not None and d.scale_high is not None
        ),
        None,
    )
    if scale is not None and scale[0] is not None and scale[1] is not None:
        low, high = min([scale[0], *values]), max([scale[1], *values])
    elif values:
        low, high = min(values), max(values)
    else:
        low, high = 0.0, 1.0
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    return Axis(float(low), float(high))


def _text(x: float, y: float, text: str, cls: str = "", anchor: str = "start") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{klass}>{escape(text)}</text>'


def _row(axis: Axis, dist: Distribution | None, label: str, cy: float) -> list[str]:
    """One row: label, strip, box, mean with interval, stats text."""
    n = 0 if dist is None else dist.n
    out = [f'<g class="rag-row" data-n="{n}" data-label="{escape(label)}">']
    out.append(f"<title>{escape(label)}</title>")
    out.append(_text(LEFT - 10, cy + 4, _short(label), "rag-label", "end"))
    if dist is None or dist.n == 0:
        errors = 0 if dist is None else dist.errors
        note = "not in this run" if dist is None else f"no scores ({errors} judge error(s))"
        out.append(_text(LEFT + 8, cy + 4, note, "rag-note"))
        out.append("</g>")
        return out
    assert dist.q1 is not None and dist.q3 is not None and dist.median is not None
    assert dist.whisker_low is not None and dist.whisker_high is not None
    box_y = cy - 12
    for i, value in enumerate(dist.points):
        jitter = ((i * GOLDEN) % 1.0 - 0.5) * 20
        out.append(
            f'<circle class="rag-point" cx="{axis.x(value):.1f}" cy="{box_y + 8 + jitter:.1f}" r="2.2"/>'
        )
    x1, x3 = axis.x(dist.q1), axis.x(dist.q3)
    wl, wh = axis.x(dist.whisker_low), axis.x(dist.whisker_high)
    out.append(f'<line class="rag-whisker" x1="{wl:.1f}" x2="{x1:.1f}" y1="{box_y + 8}" y2="{box_y + 8}"/>')
    out.append(f'<line class="rag-whisker" x1="{x3:.1f}" x2="{wh:.1f}" y1="{box_y + 8}" y2="{box_y + 8}"/>')
    for wx in (wl, wh):
        out.append(
            f'<line class="rag-whisker" x1="{wx:.1f}" x2="{wx:.1f}" y1="{box_y + 3}" y2="{box_y + 13}"/>'
        )
    out.append(
        f'<rect class="rag-box" x="{x1:.1f}" y="{box_y}" width="{max(x3 - x1, 1.5):.1f}" height="16"/>'
    )
    xm = axis.x(dist.median)
    out.append(f'<line class="rag-median" x1="{xm:.1f}" x2="{xm:.1f}" y1="{box_y}" y2="{box_y + 16}"/>')
    if dist.mean is not None:
        my = cy + 13
        mean_x = axis.x(dist.mean)
        out.append('<g class="rag-mean">')
        if dist.ci_low is not None and dist.ci_high is not None:
            lo, hi = axis.x(dist.ci_low), axis.x(dist.ci_high)
            out.append(f'<line class="rag-ci" x1="{lo:.1f}" x2="{hi:.1f}" y1="{my}" y2="{my}"/>')
            for cx in (lo, hi):
                out.append(f'<line class="rag-ci" x1="{cx:.1f}" x2="{cx:.1f}" y1="{my - 4}" y2="{my + 4}"/>')
        out.append(
            f'<path class="rag-mean-mark" d="M{mean_x:.1f},{my - 5} l5,5 l-5,5 l-5,-5 z"/>'
            f"<title>mean {_fmt(dist.mean)}, 95% CI [{_fmt(dist.ci_low)}, {_fmt(dist.ci_high)}]</title>"
        )
        out.append("</g>")
    stats_x = LEFT + PLOT + 14
    out.append(
        _text(
            stats_x, cy - 2, f"mean {_fmt(dist.mean)} [{_fmt(dist.ci_low)}, {_fmt(dist.ci_high)}]", "rag-stat"
        )
    )
    rate = dist.pass_rate
    pass_text = "no threshold" if rate is None else f"pass {rate:.0%} ({dist.passed}/{dist.with_threshold})"
    error_text = f" · {dist.errors} err" if dist.errors else ""
    out.append(_text(stats_x, cy + 13, f"{pass_text} · n={dist.n}{error_text}", "rag-stat rag-muted"))
    out.append("</g>")
    return out


def _axis_lines(axis: Axis, top: float, bottom: float) -> list[str]:
    out = [f'<line class="rag-axis" x1="{LEFT}" x2="{LEFT + PLOT}" y1="{bottom}" y2="{bottom}"/>']
    for tick in axis.ticks():
        x = axis.x(tick)
        out.append(f'<line class="rag-grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{bottom}"/>')
        out.append(_text(x, bottom + 16, f"{tick:g}", "rag-tick", "middle"))
    return out


def _svg_start(css_class: str, metric: str, rows: int, title: str) -> list[str]:
    """The opening of a panel: ``rows`` rows under the top margin and an axis below them; ``title``
    (already escaped) is what a screen reader says after the metric."""
    height = TOP + ROW * rows + AXIS
    return [
        f'<svg class="{css_class}" data-metric="{escape(metric)}" data-rows="{rows}" role="img" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(metric)}: {title}</title>",
    ]


def distribution_panel(metric: str, rows: Sequence[tuple[str, Distribution | None]]) -> str:
    """One metric's SVG: a row per (label, distribution), sharing one axis and the threshold line."""
    axis = axis_for([d for _, d in rows])
    bottom = TOP + ROW * len(rows)
    out = _svg_start("rag-plot", metric, len(rows), "score distribution")
    out += _axis_lines(axis, TOP - 6, bottom)
    for i, (label, dist) in enumerate(rows):
        out += _row(axis, dist, label, TOP + ROW * i + ROW / 2)
    thresholds = {d.threshold for _, d in rows if d is not None and d.threshold is not None}
    for threshold in sorted(thresholds):
        x = axis.x(threshold)
        out.append(f'<line class="rag-threshold" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP - 8}" y2="{bottom}"/>')
        vary = any(d is not None and d.thresholds_vary for _, d in rows)
        out.append(
            _text(x, TOP - 12, f"threshold {threshold:g}{' (most checks)' if vary else ''}", "rag-thr")
        )
    out.append("</svg>")
    return "".join(out)


def change_panel(metric: str, baseline: str, changes: Sequence[PairedChange], scale_span: float) -> str:
    """Paired change of each later run against the first, as intervals around a zero line."""
    bounds = [abs(v) for c in changes for v in (c.ci_low, c.ci_high, c.delta) if v is not None]
    span = max([*bounds, scale_span * 0.1, 1e-6]) * 1.15
    axis = Axis(-span, span)
    bottom = TOP + ROW * len(changes)
    out = _svg_start("rag-change", metric, len(changes), f"paired change against {escape(baseline)}")
    out.append(
        _text(LEFT, TOP - 10, f"paired change against {_short(baseline, 40)} (later − first)", "rag-muted")
    )
    out.append(f'<line class="rag-axis" x1="{LEFT}" x2="{LEFT + PLOT}" y1="{bottom}" y2="{bottom}"/>')
    for tick in (-span, -span / 2, 0.0, span / 2, span):
        x = axis.x(tick)
        out.append(f'<line class="rag-grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP - 6}" y2="{bottom}"/>')
        out.append(_text(x, bottom + 16, f"{tick:+.2g}" if tick else "0", "rag-tick", "middle"))
    zero = axis.x(0.0)
    out.append(f'<line class="rag-zero" x1="{zero:.1f}" x2="{zero:.1f}" y1="{TOP - 6}" y2="{bottom}"/>')
    for i, change in enumerate(changes):
        cy = TOP + ROW * i + ROW / 2
        out.append(f'<g class="rag-change-row" data-pairs="{change.n_shared}">')
        out.append(_text(LEFT - 10, cy + 4, _short(change.run), "rag-label", "end"))
        if change.delta is None:
            out.append(_text(LEFT + 8, cy + 4, "no checks shared with the first run", "rag-note"))
            out.append("</g>")
            continue
        tone = "flat" if not change.significant else ("up" if change.delta > 0 else "down")
        if change.ci_low is not None and change.ci_high is not None:
            lo, hi = axis.x(change.ci_low), axis.x(change.ci_high)
            out.append(f'<line class="rag-delta-ci {tone}" x1="{lo:.1f}" x2="{hi:.1f}" y1="{cy}" y2="{cy}"/>')
        out.append(f'<circle class="rag-delta {tone}" cx="{axis.x(change.delta):.1f}" cy="{cy}" r="4.5"/>')
        verdict = {"up": "higher", "down": "lower", "flat": "no clear change"}[tone]
        interval = f"[{_fmt(change.ci_low, signed=True)}, {_fmt(change.ci_high, signed=True)}]"
        out.append(
            _text(LEFT + PLOT + 14, cy - 2, f"Δ {_fmt(change.delta, signed=True)} {interval}", "rag-stat")
        )
        out.append(
            _text(LEFT + PLOT + 14, cy + 13, f"{change.n_shared} pairs · {verdict}", "rag-stat rag-muted")
        )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)
