"""The numbers behind the score plots: distributions per metric and judge, and runs side by side.

Both the HTML report and ``pytest-rag plot`` draw from here, so a box, a mean, an interval or a
paired change means the same thing in both; the paired change is also what ``--rag-baseline``
prints (:func:`paired_changes`, the one comparison of two runs). Everything is computed from check
records: the current session's, or those read back from results files written by ``--rag-report``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..check_keys import keyed_records, metric_label
from ..errors import InputError
from ..results import CheckRecord
from ..results_table import aggregate
from ..stats import PairedDifference, paired_bootstrap_difference
from .results_file import read_results

#: Most points a strip plot draws per group; past this, evenly spaced order statistics stand in.
STRIP_POINTS = 240


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of already sorted values (numpy's default method)."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class Distribution:
    """Scores of one metric by one judge in one run, summarised for a box and strip plot.

    Whiskers reach the most extreme scores within 1.5 IQR of the box (Tukey); ``points`` holds at
    most :data:`STRIP_POINTS` scores for the strip (all of them when there are fewer). The mean's
    interval is the summary's seeded 95% bootstrap, so the plot and the terminal agree.
    """

    metric: str
    judge: str
    n: int
    errors: int
    scale_low: float | None
    scale_high: float | None
    threshold: float | None
    thresholds_vary: bool
    low: float | None
    q1: float | None
    median: float | None
    q3: float | None
    high: float | None
    whisker_low: float | None
    whisker_high: float | None
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    passed: int
    with_threshold: int
    points: tuple[float, ...]

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.with_threshold if self.with_threshold else None


def distribution(metric: str, judge: str, records: Sequence[CheckRecord]) -> Distribution:
    """Summarise the records of one group (errors are counted apart, never scored)."""
    scored = [r for r in records if r.error is None and r.score is not None]
    scores = sorted(float(r.score) for r in scored if r.score is not None)
    passes = [bool(r.passed) for r in scored if r.passed is not None]
    stats = aggregate(metric, judge, scores, sum(1 for r in records if r.error is not None), passes)
    thresholds = Counter(r.threshold for r in records if r.threshold is not None)
    scale = next(
        (
            (r.scale_low, r.scale_high)
            for r in records
            if r.scale_low is not None and r.scale_high is not None
        ),
        (None, None),
    )
    if scores:
        q1, q3 = _quantile(scores, 0.25), _quantile(scores, 0.75)
        fence = 1.5 * (q3 - q1)
        whisker_low = min(s for s in scores if s >= q1 - fence)
        whisker_high = max(s for s in scores if s <= q3 + fence)
        if len(scores) <= STRIP_POINTS:
            points = tuple(scores)
        else:
            step = (len(scores) - 1) / (STRIP_POINTS - 1)
            points = tuple(scores[round(i * step)] for i in range(STRIP_POINTS))
    return Distribution(
        metric=metric,
        judge=judge,
        n=stats.n,
        errors=stats.errors,
        scale_low=scale[0],
        scale_high=scale[1],
        threshold=thresholds.most_common(1)[0][0] if thresholds else None,
        thresholds_vary=len(thresholds) > 1,
        low=scores[0] if scores else None,
        q1=q1 if scores else None,
        median=_quantile(scores, 0.5) if scores else None,
        q3=q3 if scores else None,
        high=scores[-1] if scores else None,
        whisker_low=whisker_low if scores else None,
        whisker_high=whisker_high if scores else None,
        mean=stats.mean,
        ci_low=stats.ci_low,
        ci_high=stats.ci_high,
        passed=stats.passed,
        with_threshold=stats.with_threshold,
        points=points if scores else (),
    )


def group_records(records: Iterable[CheckRecord]) -> dict[tuple[str, str], list[CheckRecord]]:
    """Records by (metric label, judge), in sorted order as the summary lists them."""
    groups: dict[tuple[str, str], list[CheckRecord]] = {}
    for record in records:
        groups.setdefault((metric_label(record), record.judge), []).append(record)
    return dict(sorted(groups.items()))


def distributions(records: Iterable[CheckRecord]) -> list[Distribution]:
    return [
        distribution(metric, judge, members) for (metric, judge), members in group_records(records).items()
    ]


# -- several runs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run's checks and the name it is shown under (the file's stem for a results file)."""

    label: str
    records: list[CheckRecord]

    @classmethod
    def read(cls, path: Path, label: str | None = None, role: str = "results file") -> Run:
        """The run saved in a results file (see :func:`~.results_file.read_results`)."""
        return cls(label or path.stem, read_results(path, role))


def unique_labels(runs: Sequence[Run]) -> list[str]:
    """Run labels made distinct (``results``, ``results (2)``) so legends never merge two runs."""
    seen: Counter[str] = Counter()
    labels = []
    for run in runs:
        seen[run.label] += 1
        labels.append(run.label if seen[run.label] == 1 else f"{run.label} ({seen[run.label]})")
    return labels


@dataclass(frozen=True)
class PairedChange:
    """Change of a later run against the first one, over the checks both scored."""

    run: str
    n_shared: int
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    significant: bool

    @classmethod
    def of(cls, run: str, difference: PairedDifference) -> PairedChange:
        interval = difference.interval
        return cls(
            run=run,
            n_shared=difference.n_shared,
            delta=difference.delta,
            ci_low=interval.low if interval else None,
            ci_high=interval.high if interval else None,
            significant=difference.significant,
        )


@dataclass(frozen=True)
class MetricComparison:
    """One metric and judge across runs: a distribution per run (None where a run lacks it) and the
    paired change of every later run against the first."""

    metric: str
    judge: str
    runs: list[str]
    distributions: list[Distribution | None]
    changes: list[PairedChange]


def _scores_by_check(records: Iterable[CheckRecord]) -> dict[tuple[str, str], dict[str, float]]:
    """The scored checks of a run by (metric label, judge), each under its check key: what pairs a
    check with the same check of another run. Judge errors have no score and pair with nothing."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for key, record in keyed_records(records):
        if record.error is None and record.score is not None:
            out.setdefault((metric_label(record), record.judge), {})[key] = float(record.score)
    return out


def paired_changes(
    before: Iterable[CheckRecord], after: Iterable[CheckRecord]
) -> dict[tuple[str, str], PairedDifference]:
    """The comparison of two runs: for every (metric label, judge) that either scored, sorted, the
    paired bootstrap of ``after`` against ``before`` over the checks both scored. A group that one
    run did not score has no shared check, and the other run's checks are its unpaired ones.

    ``--rag-baseline``, the HTML report's runs compared and ``pytest-rag plot`` all read it."""
    first, second = _scores_by_check(before), _scores_by_check(after)
    return {
        group: paired_bootstrap_difference(first.get(group, {}), second.get(group, {}))
        for group in sorted(set(first) | set(second))
    }


def compare_runs(runs: Sequence[Run]) -> list[MetricComparison]:
    """Every (metric, judge) seen in any run, with each run's distribution and paired changes."""
    if not runs:
        raise InputError("comparing runs needs at least one results file")
    labels = unique_labels(runs)
    grouped = [group_records(run.records) for run in runs]
    changes = [paired_changes(runs[0].records, run.records) for run in runs[1:]]
    comparisons = []
    for metric, judge in sorted({key for groups in grouped for key in groups}):
        dists = [
            distribution(metric, judge, groups[(metric, judge)]) if (metric, judge) in groups else None
            for groups in grouped
        ]
        later = [  # a group that neither run scored (all judge errors) pairs nothing
            PairedChange.of(label, by_group.get((metric, judge)) or paired_bootstrap_difference({}, {}))
            for label, by_group in zip(labels[1:], changes, strict=True)
        ]
        comparisons.append(MetricComparison(metric, judge, labels, dists, later))
    return comparisons
