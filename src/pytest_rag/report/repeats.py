"""How stable are the judgments? Spread of repeated judgments and agreement between ensemble judges.

With ``--rag-judge-repeat N`` every check is judged N times (distinct cache entries) and scored by
the median. The spread of those N scores, and how often they fall on both sides of the threshold,
say whether a pass is solid or a coin toss (the flips of deepeval #3110). With several judges the
ensemble score is their median; Krippendorff's alpha (ordinal) across the judges, over the checks
they all scored, says whether they measure the same thing at all.

Nothing here fails a run: :func:`repeats_lines` is a block of the terminal summary
(:func:`~.summary.summary_text`), right under its table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..check_keys import metric_label
from ..results import CheckRecord
from ..stats import AlphaEstimate, alpha_with_interval


@dataclass(frozen=True)
class RepeatRow:
    """Repeat statistics of one metric and one judge (a member of an ensemble counts on its own)."""

    metric: str
    judge: str
    checks: int
    repeats: int
    mean_spread: float
    max_spread: float
    straddles: int
    with_threshold: int
    straddling_tests: tuple[str, ...]


@dataclass(frozen=True)
class AgreementRow:
    metric: str
    judges: tuple[str, ...]
    estimate: AlphaEstimate


def _scored(records: Sequence[CheckRecord]) -> list[CheckRecord]:
    return [r for r in records if r.error is None and r.score is not None and r.judges]


def straddles(repeats: Sequence[float], threshold: float | None) -> bool:
    """True when some repeats pass the threshold and others do not."""
    if threshold is None or not repeats:
        return False
    return min(repeats) < threshold <= max(repeats)


def repeat_rows(records: Sequence[CheckRecord]) -> list[RepeatRow]:
    """One row per metric and judge that judged some check more than once; sorted."""
    groups: dict[tuple[str, str], list[tuple[CheckRecord, list[float]]]] = {}
    for record in _scored(records):
        for member in record.judges:
            if len(member.repeats) > 1:
                groups.setdefault((metric_label(record), member.judge), []).append((record, member.repeats))
    rows = []
    for (metric, judge), members in sorted(groups.items()):
        spreads = [max(rs) - min(rs) for _, rs in members]
        flips = [r.test_id for r, rs in members if straddles(rs, r.threshold)]
        rows.append(
            RepeatRow(
                metric=metric,
                judge=judge,
                checks=len(members),
                repeats=max(len(rs) for _, rs in members),
                mean_spread=sum(spreads) / len(spreads),
                max_spread=max(spreads),
                straddles=len(flips),
                with_threshold=sum(1 for r, _ in members if r.threshold is not None),
                straddling_tests=tuple(dict.fromkeys(flips)),
            )
        )
    return rows


def judge_agreement(records: Sequence[CheckRecord]) -> list[AgreementRow]:
    """Krippendorff's alpha (ordinal) between the members of each ensemble, per metric."""
    groups: dict[tuple[str, tuple[str, ...]], list[CheckRecord]] = {}
    for record in _scored(records):
        if len(record.judges) > 1:
            judges = tuple(j.judge for j in record.judges)
            groups.setdefault((metric_label(record), judges), []).append(record)
    rows = []
    for (metric, judges), members in sorted(groups.items()):
        matrix: list[list[float | None]] = []
        for judge in judges:
            scores = []
            for record in members:
                found = [j.score for j in record.judges if j.judge == judge]
                scores.append(found[0] if found else None)
            matrix.append(scores)
        rows.append(AgreementRow(metric, judges, alpha_with_interval(matrix, "ordinal")))
    return rows


def format_alpha(estimate: AlphaEstimate) -> str:
    if estimate.alpha is None:
        return "undefined (too few checks, or every score the same)"
    interval = (
        f" [{estimate.interval.low:.2f}, {estimate.interval.high:.2f}]"
        if estimate.interval is not None
        else ""
    )
    return f"{estimate.alpha:.2f}{interval}"


def repeats_lines(records: Sequence[CheckRecord]) -> list[str]:
    """Summary lines about repeats and ensembles (empty when every check was judged once by one judge)."""
    lines: list[str] = []
    rows = repeat_rows(records)
    if rows:
        lines.append("repeated judgments (spread = highest minus lowest repeat of a check):")
        for row in rows:
            flips = ""
            if row.with_threshold:
                share = row.straddles / row.with_threshold
                flips = (
                    f"; straddled the threshold in {row.straddles}/{row.with_threshold} checks ({share:.0%})"
                )
                if row.straddling_tests:
                    shown = ", ".join(row.straddling_tests[:3])
                    more = (
                        f" and {len(row.straddling_tests) - 3} more" if len(row.straddling_tests) > 3 else ""
                    )
                    flips += f": {shown}{more}"
            lines.append(
                f"  {row.metric} [{row.judge}]: {row.checks} checks x {row.repeats} repeats, "
                f"spread mean {row.mean_spread:.2f}, max {row.max_spread:g}{flips}"
            )
    agreement = judge_agreement(records)
    if agreement:
        lines.append("judge agreement (Krippendorff's alpha, ordinal, 95% unit-bootstrap CI):")
        for item in agreement:
            lines.append(
                f"  {item.metric} [{', '.join(item.judges)}]: alpha {format_alpha(item.estimate)} "
                f"over {item.estimate.n_units} checks"
            )
    return lines
