"""The rules every check row of a results file obeys when a run wrote it, checked before a merge.

A results file is JSON that anything can write: a hand edit, a script, a file cut short and patched.
``pytest-rag merge`` computes the suite's verdict from those rows, so a score of 7 on a 1-5 scale
would raise the mean and the interval past a gate, every ``passed`` set to true would double a pass
rate, and a bare ``NaN`` or ``1e999`` (JSON readers accept both) would end in a traceback deep in the
bootstrap. A run writes none of these: its scores are finite and on the metric's scale, the
normalised score is the score mapped onto [0, 1], and ``passed`` is the pass rule applied to the
score (or the expected score) and the bar. So every row is held to those rules, and the first
rows that break one are told in one error naming the file, the row (its number and test) and the
field, before anything is computed.

The scale a row is held to is the metric's own for a built-in metric whose scale is fixed, so a
row that claims another scale is caught too; a rubric's scale comes from its levels and a plugin's
metric is not known to the command, so theirs is the row's own ``scale_low``/``scale_high``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError
from ..metrics.base import Metric
from ..metrics.catalog import builtin_metrics
from ..results import CheckRecord, Scale
from ..scoring.grade_odds import against_bar

#: How many broken rows one error lists (the count of the others follows).
SHOWN = 20
#: Slack for a normalised score recomputed from its score (the run computed it the same way).
_ROUNDING = 1e-9


class BrokenRowsError(InputError):
    """Rows of results files that no run could have written; one line per broken field."""


@functools.cache
def _fixed_scales() -> dict[tuple[str, str], Scale]:
    """The scale of every built-in metric whose scale does not depend on its options."""
    return {
        (cls.name, cls.mode): cls.scale
        for cls in builtin_metrics()
        if getattr(cls.scale_for, "__func__", cls.scale_for) is Metric.scale_for
    }


def _number(value: float) -> str:
    return repr(float(value)) if not math.isfinite(value) else f"{value:g}"


def _on_scale(field: str, value: float | None, scale: Scale | None, metric: str) -> list[str]:
    if value is None:
        return []
    if not math.isfinite(value):
        return [f"{field!r} is {_number(value)}, not a finite number"]
    if scale is not None and not scale.low <= value <= scale.high:
        return [f"{field!r} is {_number(value)}, outside {metric}'s {scale} scale"]
    return []


def _scale_problems(record: CheckRecord, metric: str) -> tuple[Scale | None, list[str]]:
    """The scale the row's numbers are held to, and what is wrong with the one the row states."""
    low, high = record.scale_low, record.scale_high
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)) or low >= high:
        return None, [f"'scale_low'/'scale_high' are {low!r}/{high!r}, not the ends of a scale"]
    stated = Scale(low, high)
    fixed = _fixed_scales().get((record.metric, record.mode))
    if fixed is not None and (fixed.low, fixed.high) != (stated.low, stated.high):
        return fixed, [f"'scale_low'/'scale_high' say {stated}, but {metric} is scored on {fixed}"]
    return stated, []


def row_problems(record: CheckRecord) -> list[str]:
    """What in one check row no run writes, one phrase per field; empty for a sound row."""
    metric = record.metric if record.mode == "default" else f"{record.metric}[{record.mode}]"
    if record.score is None:  # an error (or a row with neither, read as one): no verdict to hold
        return [] if record.passed is None else [f"'passed' is {record.passed}, but the check has no score"]
    scale, problems = _scale_problems(record, metric)
    problems += _on_scale("score", record.score, scale, metric)
    for judge in record.judges:
        for n, value in enumerate(judge.repeats):
            problems += _on_scale(f"judge_scores[{judge.judge}][{n}]", value, scale, metric)
    problems += _on_scale("expected_score", record.expected_score, scale, metric)
    problems += _on_scale("threshold", record.threshold, scale, metric)
    if record.pass_probability is not None and not 0 <= record.pass_probability <= 1:
        problems.append(f"'pass_probability' is {_number(record.pass_probability)}, not a probability")
    if problems:  # the rules below compute with these numbers
        return problems
    assert scale is not None
    if (
        record.normalized is not None
        and not abs(record.normalized - scale.normalize(record.score)) <= _ROUNDING
    ):
        problems.append(
            f"'normalized' is {_number(record.normalized)}, but score {_number(record.score)} on "
            f"{scale} normalises to {_number(scale.normalize(record.score))}"
        )
    if record.passed_on not in ("score", "expected_score"):
        return [*problems, f"'passed_on' is {record.passed_on!r}, not 'score' or 'expected_score'"]
    on_expected = record.passed_on == "expected_score" and record.expected_score is not None
    held = record.expected_score if on_expected else record.score
    assert held is not None
    passed, _ = against_bar(record.score, held if on_expected else None, record.threshold)
    if record.passed != passed:
        rule = (
            "no bar, so no pass or fail"
            if record.threshold is None
            else (
                f"{record.passed_on.replace('_', ' ')} {_number(held)} "
                f"{'reaches' if passed else 'is below'} the bar {_number(record.threshold)}"
            )
        )
        problems.append(f"'passed' is {record.passed}, but {rule}")
    return problems


def check_rows(files: Sequence[tuple[Path, Sequence[CheckRecord]]], role: str = "shard file") -> None:
    """Refuse the files if any of their rows breaks a rule, with one line per broken field (the
    first :data:`SHOWN`): the file, the row's number (as the file lists its checks, from 1) and
    test, and what is wrong."""
    lines = [
        f"{role} {path}, check {number} ({record.test_id}): {problem}"
        for path, records in files
        for number, record in enumerate(records, start=1)
        for problem in row_problems(record)
    ]
    if not lines:
        return
    more = [f"... and {len(lines) - SHOWN} more"] if len(lines) > SHOWN else []
    raise BrokenRowsError(
        "\n  ".join(
            [
                f"{len(lines)} value(s) in the {role}s are not what a run writes, so a merge would "
                "compute on numbers no judge gave (write the file again with --rag-report, or correct "
                "the value):",
                *lines[:SHOWN],
                *more,
            ]
        )
    )
