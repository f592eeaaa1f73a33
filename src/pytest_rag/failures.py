"""Failure messages that read like good pytest failures: the number, the bar, who judged, and why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import cut_text
from .results import COMPUTED, EVIDENCE_CHARS, REASONS_CHARS, MetricResult

MAX_ITEMS = 12


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


def _evidence_lines(evidence: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for name, value in evidence.items():
        heading = name.replace("_", " ")
        if isinstance(value, list):
            if not value:
                continue
            lines.append(f"  {heading}:")
            for item in value[:MAX_ITEMS]:
                if isinstance(item, Mapping):
                    text = ", ".join(f"{k}={v}" for k, v in item.items() if v not in (None, "", [], ()))
                else:
                    text = str(item)
                lines.append(f"    - {cut_text(text, EVIDENCE_CHARS)}")
            if len(value) > MAX_ITEMS:
                lines.append(f"    ... and {len(value) - MAX_ITEMS} more")
        elif value not in (None, "", {}):
            lines.append(f"  {heading}: {cut_text(str(value), EVIDENCE_CHARS)}")
    return lines


def describe(result: MetricResult) -> str:
    """The multi-line explanation of a result (used in failures and in ``repr``-like output)."""
    calls = result.calls
    if result.cached:
        source = "verdict from the cache"
    elif calls.live == 0 and calls.offline > 0:
        source = "computed offline"
    elif calls.cached:
        source = f"{calls.live} live and {calls.cached} cached judge calls"
    elif calls.live or calls.batched:
        source = "live verdict"
    else:  # no call of any kind: computed from the inputs (or from other results), never judged
        source = "no judge call: computed"
    mode = f" ({result.mode} mode)" if result.mode != "default" else ""
    expected = result.expected_score if result.passed_on == "expected_score" else None
    held = f"score {_fmt(result.score)}" if expected is None else f"expected score {_fmt(expected)}"
    head = f"{result.metric}{mode}: {held} on the {result.scale} scale"
    if result.threshold is not None:
        relation = "meets" if result.passed else "is below"
        head += f" {relation} the threshold {_fmt(result.threshold)}"
    if expected is not None:
        head += f" (score {_fmt(result.score)})"
    judge = f"judge: {result.judge} ({source})"
    if result.judge == COMPUTED:
        judge = "computed from the inputs: no judge was asked"
    lines = [head, f"  {judge}"]
    lines.extend(_odds_lines(result))
    if len(result.judges) > 1 or any(len(j.repeats) > 1 for j in result.judges):
        per_judge = "; ".join(
            f"{j.judge}: {_fmt(j.score)} from {[_fmt(r) for r in j.repeats]}" for j in result.judges
        )
        lines.append(f"  judges: {per_judge}")
    for name, value in result.details.items():
        lines.append(f"  {name.replace('_', ' ')}: {value:.3g}")
    if result.reasons:
        lines.append(f"  reasons: {cut_text(result.reasons, REASONS_CHARS)}")
    lines.extend(_evidence_lines(result.evidence_dict()))
    return "\n".join(lines)


def _odds_lines(result: MetricResult) -> list[str]:
    """The expected score and the probability of reaching the bar, when the judge gave its odds."""
    if result.expected_score is None:
        return []
    line = f"  expected score: {_fmt(result.expected_score)}"
    if result.pass_probability is not None:
        line += f"; probability of reaching the threshold: {_fmt(result.pass_probability)}"
        if result.uncertain:
            line += " (uncertain: a rerun could go either way)"
    return [line]


class RagAssertionError(AssertionError):
    """Judged checks below their thresholds: what every failing assertion of ``rag_judge`` raises,
    one check or several (``assert_rag``, ``assert_case``), so that a test or a plugin catches one
    type and reads the typed results off it. ``results`` holds every check that fell short, in the
    order asked; ``result`` is the first of them (the only one of a one-metric assertion)."""

    def __init__(self, failed: MetricResult | Sequence[MetricResult], message: str | None = None) -> None:
        self.results: tuple[MetricResult, ...] = (
            (failed,) if isinstance(failed, MetricResult) else tuple(failed)
        )
        if not self.results:
            raise ValueError("RagAssertionError needs at least one failed result")
        self.result = self.results[0]
        super().__init__(message if message is not None else "\n\n".join(describe(r) for r in self.results))
