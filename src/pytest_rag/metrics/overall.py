"""Tonic Validate's overall score: the mean of the normalised scores of the metrics that ran.

It is computed from results, not judged: no call is made. Each result contributes its normalised
score in [0, 1] (answer similarity's 0-5 thus counts as score / 5); metrics that were not run simply
do not take part. Two results of the same metric (say, two modes) both count.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ..errors import InputError
from ..results import CallTally, Evidence, MetricResult

NAME = "overall_score"


class OverallEvidence(Evidence):
    components: dict[str, float] = Field(default_factory=dict)


def overall_score(results: Sequence[MetricResult], threshold: float | None = None) -> MetricResult:
    """The mean of ``results``' normalised scores, as a typed result on a 0-1 scale."""
    if isinstance(results, MetricResult):
        results = [results]
    if not results:
        raise InputError("overall_score needs at least one MetricResult (the metrics that ran)")
    for r in results:
        if not isinstance(r, MetricResult):
            raise InputError(f"overall_score takes MetricResults, got {type(r).__name__}")
    components: dict[str, float] = {}
    for r in results:
        label = r.metric if r.mode == "default" else f"{r.metric}:{r.mode}"
        key, n = label, 2
        while key in components:
            key, n = f"{label}#{n}", n + 1
        components[key] = r.normalized
    score = sum(components.values()) / len(components)
    judges = sorted({r.judge for r in results})
    calls = CallTally()
    return MetricResult(
        metric=NAME,
        mode="default",
        judge=judges[0] if len(judges) == 1 else "mixed(" + ",".join(judges) + ")",
        score=score,
        scale_low=0.0,
        scale_high=1.0,
        normalized=score,
        threshold=threshold,
        passed=None if threshold is None else score >= threshold,
        reasons=f"Mean of {len(components)} normalised metric score(s): {score:.3f}.",
        evidence=OverallEvidence(components=components),
        details=dict(components),
        calls=calls,
    )
