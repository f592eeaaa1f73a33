"""``pytest-rag plot RUN1.json RUN2.json ... -o comparison.png``: runs side by side, per metric.

Each (metric, judge) gets a row: on the left a box per run (median, quartiles, Tukey whiskers) with
the mean and its 95% bootstrap interval marked and the threshold as a dashed line; on the right the
paired change of every later run against the first, over the checks both scored, as a mean with its
95% paired-bootstrap interval around zero. The numbers are those of the HTML report
(:mod:`pytest_rag.report.comparison`).

PNG, SVG and PDF output need matplotlib (``pip install 'pytest-rag[plot]'``); ``-o report.html``
writes the HTML report of the last run with all runs compared, and needs nothing beyond the plugin.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError, RagError
from ..ground.command_options import SubCommand, ValueOption
from .comparison import MetricComparison, Run, compare_runs
from .files import write_atomically
from .html.page import write_html

MATPLOTLIB_SUFFIXES = (".png", ".svg", ".pdf")
HTML_SUFFIXES = (".html", ".htm")


class PlotError(RagError):
    """Plotting cannot run here (matplotlib missing) or was asked for an unknown output format."""


def require_matplotlib() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or an error naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise PlotError(
            "plotting to PNG/SVG/PDF needs matplotlib, which is not installed; "
            "run `pip install 'pytest-rag[plot]'` (or write -o report.html, which needs nothing extra)"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _box_stats(comparison: MetricComparison) -> list[dict[str, Any]]:
    stats: list[dict[str, Any]] = []
    for label, dist in zip(comparison.runs, comparison.distributions, strict=True):
        if dist is None or dist.n == 0:
            continue
        stats.append(
            {
                "label": label,
                "med": dist.median,
                "q1": dist.q1,
                "q3": dist.q3,
                "whislo": dist.whisker_low,
                "whishi": dist.whisker_high,
                "fliers": [],
                "mean": dist.mean,
            }
        )
    return stats


def _draw_distributions(ax: Any, comparison: MetricComparison) -> None:
    labels = comparison.runs
    positions = {label: i for i, label in enumerate(labels)}
    stats = _box_stats(comparison)
    if stats:
        style: dict[str, Any] = {
            "positions": [positions[s["label"]] for s in stats],
            "showfliers": False,
            "widths": 0.5,
            "patch_artist": True,
            "boxprops": {"facecolor": "#dbe7f3", "edgecolor": "#26415e"},
            "medianprops": {"color": "#26415e", "linewidth": 2},
        }
        try:  # matplotlib >= 3.10 says orientation=; older releases only know vert=
            ax.bxp(stats, orientation="horizontal", **style)
        except (TypeError, AttributeError):
            ax.bxp(stats, vert=False, **style)
    for i, dist in enumerate(comparison.distributions):
        if dist is None or dist.n == 0 or dist.mean is None:
            ax.text(0.02, i, "no scores", transform=ax.get_yaxis_transform(), va="center", color="#666")
            continue
        ax.scatter(dist.points, [i - 0.32] * len(dist.points), s=6, alpha=0.3, color="#4c78a8", zorder=1)
        low = dist.mean - (dist.ci_low if dist.ci_low is not None else dist.mean)
        high = (dist.ci_high if dist.ci_high is not None else dist.mean) - dist.mean
        ax.errorbar(
            [dist.mean],
            [i + 0.34],
            xerr=[[low], [high]],
            fmt="D",
            color="#c2410c",
            markersize=5,
            capsize=3,
            zorder=3,
        )
        rate = f", pass {dist.pass_rate:.0%}" if dist.pass_rate is not None else ""
        _beside(ax, i, f"{dist.mean:.2f} (n={dist.n}{rate})")
    thresholds = {d.threshold for d in comparison.distributions if d is not None and d.threshold is not None}
    for threshold in thresholds:
        ax.axvline(threshold, color="#b3261e", linestyle="--", linewidth=1.2)
    scale = next(
        (
            (d.scale_low, d.scale_high)
            for d in comparison.distributions
            if d is not None and d.scale_low is not None
        ),
        None,
    )
    if scale is not None and scale[0] is not None and scale[1] is not None:
        pad = (scale[1] - scale[0]) * 0.04 or 0.5
        ax.set_xlim(scale[0] - pad, scale[1] + pad)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(labels) - 0.4, -0.6)
    ax.set_title(f"{comparison.metric} · {comparison.judge}", fontsize=10, loc="left")
    ax.grid(axis="x", color="#eceff2")


def _beside(ax: Any, row: int, text: str) -> None:
    """A row's figures, written just right of the axes."""
    ax.text(1.01, row, text, transform=ax.get_yaxis_transform(), va="center", fontsize=8)


def _draw_changes(ax: Any, comparison: MetricComparison) -> None:
    changes = comparison.changes
    for i, change in enumerate(changes):
        if change.delta is None:
            ax.text(0.5, i, "no shared checks", transform=ax.get_yaxis_transform(), ha="center", va="center")
            continue
        color = "#6b7280" if not change.significant else ("#1f7a3a" if change.delta > 0 else "#b3261e")
        low = change.delta - (change.ci_low if change.ci_low is not None else change.delta)
        high = (change.ci_high if change.ci_high is not None else change.delta) - change.delta
        ax.errorbar([change.delta], [i], xerr=[[low], [high]], fmt="o", color=color, capsize=3)
        _beside(ax, i, f"{change.delta:+.2f} ({change.n_shared} pairs)")
    ax.axvline(0, color="#333", linewidth=1)
    ax.locator_params(axis="x", nbins=5)
    ax.set_yticks(range(len(changes)))
    ax.set_yticklabels([c.run for c in changes])
    ax.set_ylim(len(changes) - 0.5, -0.5)
    ax.set_title(f"paired change vs {comparison.runs[0]}", fontsize=9, loc="left")
    ax.grid(axis="x", color="#eceff2")


def plot_runs(runs: Sequence[Run], output: Path) -> Path:
    """Draw the comparison of ``runs`` to ``output`` (PNG, SVG or PDF, chosen by its suffix)."""
    suffix = output.suffix.lower()
    if suffix not in MATPLOTLIB_SUFFIXES:
        raise PlotError(
            f"cannot plot to {output}: name the output *.png, *.svg or *.pdf (or *.html for the HTML report)"
        )
    comparisons = compare_runs(runs)
    if not comparisons:
        raise InputError(
            "the results files hold no checks, so there is nothing to plot; run pytest with --rag-report"
        )
    plt = require_matplotlib()
    with_changes = len(runs) > 1
    heights = [0.55 * len(runs) + 0.9 for _ in comparisons]
    # the title and the axes' labels need about 1.6 inches whatever the rows: a one-run, one-metric
    # figure of 1.45 inches left matplotlib no room to lay it out (a UserWarning, clipped labels)
    total = max(sum(heights), 3.0)
    figure, axes = plt.subplots(
        len(comparisons),
        2 if with_changes else 1,
        figsize=(12 if with_changes else 7.5, total),
        gridspec_kw={"height_ratios": heights, **({"width_ratios": [3, 2]} if with_changes else {})},
        squeeze=False,
    )
    for row, comparison in enumerate(comparisons):
        _draw_distributions(axes[row][0], comparison)
        if with_changes:
            _draw_changes(axes[row][1], comparison)
    figure.suptitle(
        "pytest-rag: runs compared (box: quartiles; ◆ mean with 95% CI; dashed: threshold)", fontsize=10
    )
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.45 / total))
    image = io.BytesIO()
    figure.savefig(image, format=suffix[1:], dpi=110)
    plt.close(figure)
    write_atomically(output, image.getvalue(), "the plot")
    return output


def plot_command(args: argparse.Namespace) -> int:
    """``pytest-rag plot``: read the results files and write the comparison."""
    output = Path(args.output)
    runs = [Run.read(Path(path)) for path in args.runs]
    if output.suffix.lower() in HTML_SUFFIXES:
        write_html(
            output, runs[-1].records, runs=runs if len(runs) > 1 else (), title="pytest-rag: runs compared"
        )
    else:
        plot_runs(runs, output)
    print(f"wrote {output} ({len(runs)} run(s))")
    return 0


PLOT_COMMAND = SubCommand(
    "plot",
    "compare results files (from --rag-report) per metric: box plots, means, paired changes",
    None,
    (
        ValueOption("runs", "RUN.json", "results files, the first is the reference", nargs="+"),
        ValueOption(
            ("-o", "--output"),
            "FILE",
            "comparison.png / .svg / .pdf (needs pytest-rag[plot]) or report.html (needs nothing extra)",
            required=True,
        ),
    ),
    plot_command,
)
"""``pytest-rag plot`` and its options, in ``--help`` order."""
