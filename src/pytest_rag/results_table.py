"""The results table that ``rag_judge.evaluate`` returns: a row per sample and metric, and the
aggregates of each metric with their intervals.

:func:`aggregate` is also how the terminal summary, the results file and the HTML report reduce a
group of scores to n, mean, 95% interval and pass rate, so the table a test holds and the summary
printed after the run agree to the last digit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .errors import NotJudgedError, RagError
from .results import MetricResult


@dataclass(frozen=True)
class Row:
    """One sample scored on one metric: its result, or the error that took the place of a score."""

    sample_index: int
    sample_id: str | None
    metric: str
    result: MetricResult | None
    error: RagError | None

    @property
    def score(self) -> float | None:
        return None if self.result is None else self.result.score

    @property
    def not_judged(self) -> bool:
        """Counted (dry run) or queued for a provider batch instead of judged: neither a score nor an error."""
        return isinstance(self.error, NotJudgedError)

    @property
    def failed_judgment(self) -> bool:
        return self.error is not None and not self.not_judged


@dataclass(frozen=True)
class Aggregate:
    """A metric's scores reduced for a person: n scored, errors counted apart, mean with its seeded
    95% bootstrap interval, and how many of those with a threshold passed it."""

    metric: str
    judge: str
    n: int
    errors: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    passed: int
    with_threshold: int
    not_judged: int = 0  # checks counted instead of judged (dry run): neither scored nor errors

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.with_threshold if self.with_threshold else None


def aggregate(
    metric: str, judge: str, scores: Sequence[float], errors: int, passes: Sequence[bool], not_judged: int = 0
) -> Aggregate:
    # numpy loads with the first aggregate, not when a test module imports RagJudge for its types
    from .stats import bootstrap_mean_ci

    interval = bootstrap_mean_ci(scores) if scores else None
    return Aggregate(
        metric=metric,
        judge=judge,
        n=len(scores),
        errors=errors,
        mean=sum(scores) / len(scores) if scores else None,
        ci_low=interval.low if interval else None,
        ci_high=interval.high if interval else None,
        passed=sum(1 for p in passes if p),
        with_threshold=len(passes),
        not_judged=not_judged,
    )


class ResultsTable:
    """Every row of an evaluation, in the order of samples then metrics as they were asked."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = list(rows)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def errors(self) -> list[Row]:
        """Rows whose judgment failed. A check counted or queued instead of judged (``--rag-dry-run``,
        ``--rag-batch``) is no error: it is in :attr:`not_judged`, and its test is skipped."""
        return [r for r in self.rows if r.failed_judgment]

    @property
    def not_judged(self) -> list[Row]:
        """Rows counted (dry run) or waiting for a provider batch instead of judged."""
        return [r for r in self.rows if r.not_judged]

    def for_metric(self, metric: str) -> list[Row]:
        return [r for r in self.rows if r.metric == metric]

    def aggregates(self) -> list[Aggregate]:
        out: list[Aggregate] = []
        for metric in dict.fromkeys(r.metric for r in self.rows):
            rows = self.for_metric(metric)
            results = [r.result for r in rows if r.result is not None]
            judge = results[0].judge if results else ""
            out.append(
                aggregate(
                    metric,
                    judge,
                    [r.score for r in results],
                    sum(1 for r in rows if r.failed_judgment),
                    [bool(r.passed) for r in results if r.passed is not None],
                    not_judged=sum(1 for r in rows if r.not_judged),
                )
            )
        return out

    def failures(self) -> list[Row]:
        return [r for r in self.rows if r.result is not None and r.result.passed is False]
