"""The numbers behind the score plots: distributions per metric and judge, and runs side by side.

Both the HTML report and ``pytest-rag plot`` draw from here, so a box, a mean, an interval or a
paired change means the same thing in both. Everything is computed from check records: the current
session's, or those read back from results files written by ``--rag-report``.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..results import CallTally, CheckRecord, Highlights, JudgeScore, SampleExcerpt
from .results_file import keyed_records, metric_label

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
    from ..table import aggregate

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


def _tally_from_row(row: dict[str, Any]) -> CallTally:
    """The call tally of a check row: the whole tally when the row carries it, else its flat columns
    (files written before the tally was kept whole; a column a file lacks counts zero)."""
    if isinstance(row.get("calls"), dict):
        return CallTally.model_validate(row["calls"])
    return CallTally.model_validate(
        {name: row[name] for name in CallTally.model_fields if row.get(name) is not None}
    )


def _record_from_row(row: dict[str, Any]) -> CheckRecord:
    """A check row of a ``--rag-report`` JSON file (or a CheckRecord dump) as a CheckRecord.

    A row written by this version reads back as exactly the record the run held; a judge's score is
    the median of its repeats, as the evaluation computed it."""
    if "kind" not in row:  # a CheckRecord dump, not a results-file row
        return CheckRecord.model_validate(row)
    metric, mode = str(row.get("metric", "")), str(row.get("mode") or "default")
    suffix = f"[{mode}]"
    if mode != "default" and metric.endswith(suffix):
        metric = metric[: -len(suffix)]
    judges = [
        JudgeScore(judge=name, score=statistics.median(values), repeats=list(values))
        for name, values in (row.get("judge_scores") or {}).items()
        if isinstance(values, list) and values and all(isinstance(v, (int, float)) for v in values)
    ]
    texts = row.get("texts")
    return CheckRecord(
        test_id=str(row["test_id"]),
        metric=metric,
        mode=mode,
        judge=str(row.get("judge") or ""),
        score=row.get("score"),
        normalized=row.get("normalized"),
        scale_low=row.get("scale_low"),
        scale_high=row.get("scale_high"),
        threshold=row.get("threshold"),
        passed=row.get("passed"),
        error=row.get("error"),
        error_kind=row.get("error_kind"),
        reasons=str(row.get("reasons") or ""),
        evidence=row.get("evidence") or {},
        details=row.get("details") or {},
        judges=judges,
        calls=_tally_from_row(row),
        sample_id=row.get("sample_id"),
        texts=SampleExcerpt.model_validate(texts) if isinstance(texts, dict) else None,
        highlights=Highlights.model_validate(row.get("highlights") or {}),
    )


def records_from_json(data: Any, where: str) -> list[CheckRecord]:
    """Check records from a results file's JSON: ``{"checks": [...]}`` as ``--rag-report`` writes it,
    or a ``{"records": [...]}`` object or a bare list of CheckRecord dumps."""
    rows = data.get("checks", data.get("records")) if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise InputError(
            f"{where} holds no list of checks; pass a results file written by --rag-report=FILE.json"
        )
    records = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or row.get("kind", "check") != "check":
            continue
        try:
            records.append(_record_from_row(row))
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(
                f"check {number} of {where} is malformed ({exc}); regenerate the file with --rag-report"
            ) from None
    return records


def load_run(path: Path, label: str | None = None) -> Run:
    """Read one results file; the error names the file and how to produce a valid one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"results file {path} does not exist; write one with --rag-report={path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(
            f"results file {path} is not JSON ({exc}); pass the .json file written by --rag-report"
        ) from None
    return Run(label or path.stem, records_from_json(data, str(path)))


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


@dataclass(frozen=True)
class MetricComparison:
    """One metric and judge across runs: a distribution per run (None where a run lacks it) and the
    paired change of every later run against the first."""

    metric: str
    judge: str
    runs: list[str]
    distributions: list[Distribution | None]
    changes: list[PairedChange]


def _scores_by_check(records: Sequence[CheckRecord]) -> dict[tuple[str, str], dict[str, float]]:
    out: dict[tuple[str, str], dict[str, float]] = {}
    for key, record in keyed_records(records):
        if record.error is None and record.score is not None:
            out.setdefault((metric_label(record), record.judge), {})[key] = float(record.score)
    return out


def compare_runs(runs: Sequence[Run]) -> list[MetricComparison]:
    """Every (metric, judge) seen in any run, with each run's distribution and paired changes."""
    from ..stats import paired_bootstrap_difference

    if not runs:
        raise InputError("comparing runs needs at least one results file")
    labels = unique_labels(runs)
    grouped = [group_records(run.records) for run in runs]
    paired = [_scores_by_check(run.records) for run in runs]
    comparisons = []
    for metric, judge in sorted({key for groups in grouped for key in groups}):
        dists = [
            distribution(metric, judge, groups[(metric, judge)]) if (metric, judge) in groups else None
            for groups in grouped
        ]
        changes = []
        first = paired[0].get((metric, judge), {})
        for label, scores in zip(labels[1:], paired[1:], strict=True):
            diff = paired_bootstrap_difference(first, scores.get((metric, judge), {}))
            changes.append(
                PairedChange(
                    run=label,
                    n_shared=diff.n_shared,
                    delta=diff.delta,
                    ci_low=diff.interval.low if diff.interval else None,
                    ci_high=diff.interval.high if diff.interval else None,
                    significant=diff.significant,
                )
            )
        comparisons.append(MetricComparison(metric, judge, labels, dists, changes))
    return comparisons
