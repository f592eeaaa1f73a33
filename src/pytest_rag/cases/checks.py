"""Which checks a case is held to: its own metrics, or the suite's defaults that apply to it.

A case that names ``metrics`` gets exactly those, on every turn it judges (a conversation metric
that compares with earlier turns starts at the first turn that has them). A case that names none
gets the ini defaults (``rag_case_metrics`` per question, ``rag_case_turn_metrics`` per turn of a
conversation) that apply to what the case and the app's reply hold: ``context_recall`` needs a
reference, ``passage_recall`` expected contexts, ``faithfulness`` contexts the app returned. A
question marked ``answerable: false`` is held to ``abstention`` (the app should decline it).

What a metric reads from the case beyond the sample travels as its options, by name: ``history``
(the earlier messages), ``expected`` (the expected contexts) and ``answer_kind`` (faithfulness).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..check_keys import parse_metric_label, turn_sample_id
from ..config import CaseSettings
from ..errors import InputError
from ..helper_forms import Check
from ..inputs import Sample
from ..metrics.base import Metric
from .app import AppReply, Message
from .model import Case

MetricClass = Callable[[str, str | None], type[Metric]]
"""Finds the registered class of a metric name (aliases too) and mode: ``RagSession.metric_class``."""

UNANSWERABLE_METRICS = ("abstention",)

NAMED_FOR: dict[str, str] = {"context_recall": "reference"}
"""Default metrics that can fall back on another input, held to a case only with the one they are
named for: context_recall scores the answer against the contexts when there is no reference, which
says nothing about the case."""


@dataclass(frozen=True)
class Exchange:
    """One judged answer of a case: what was asked, the reply, and the messages before it."""

    question: str
    reply: AppReply
    history: tuple[Message, ...] = ()
    reference: str | None = None
    position: int | None = None
    """The turn's 1-based position in a conversation; None for a case with one question."""

    def sample(self) -> Sample:
        sample_id = turn_sample_id(self.position) if self.position is not None else None
        return Sample(
            question=self.question,
            answer=self.reply.answer,
            contexts=self.reply.contexts,
            reference=self.reference,
            id=sample_id,
        )


def metric_labels(case: Case, settings: CaseSettings) -> tuple[tuple[str, ...], bool]:
    """The case's metric labels, and whether they are the case's own (strict) or defaults (kept where
    they apply)."""
    if case.metrics is not None:
        return tuple(case.metrics), True
    if not case.answerable:
        return UNANSWERABLE_METRICS, False
    return (settings.turn_metrics if case.turns is not None else settings.metrics), False


def case_options(case: Case, exchange: Exchange) -> dict[str, Any]:
    """What the case offers a metric as options, by option name."""
    options: dict[str, Any] = {"history": list(exchange.history)}
    if case.expected_contexts:
        options["expected"] = [ref.as_option() for ref in case.expected_contexts]
    if case.answer_kind is not None:
        options["answer_kind"] = case.answer_kind
    return options


class CaseBars:
    """The case's own ``thresholds``, read through the metric registry: a bar written with a short
    alias (``relevancy``) or for one mode (``faithfulness[claims]``) finds its check, and a bar that
    finds none is an error, never a bar quietly left unused while the case passes without it."""

    def __init__(self, case: Case, metric_class: MetricClass) -> None:
        self._by_check: dict[tuple[str, str | None], str] = {}
        for label in case.thresholds:
            name, mode = parse_metric_label(label)
            metric = metric_class(name, mode)
            self._by_check[(metric.name, metric.mode if mode is not None else None)] = label
        self._case = case
        self._used: set[str] = set()

    def of(self, metric: type[Metric]) -> float | None:
        """The case's bar for a check of ``metric`` (its mode's bar before the metric's own)."""
        for key in ((metric.name, metric.mode), (metric.name, None)):
            label = self._by_check.get(key)
            if label is not None:
                self._used.add(label)
                return float(self._case.thresholds[label])
        return None

    def require_all_used(self, skipped: Mapping[str, str]) -> None:
        """Raise if a bar found no check; ``skipped`` says why a metric was left out, by name."""
        for (name, _), label in self._by_check.items():
            if label not in self._used:
                why = skipped.get(name, "the case is not held to it (it is not among the case's metrics)")
                raise InputError(
                    f"case {self._case.id!r} ({self._case.where}): thresholds name {label!r}, a check "
                    f"this case does not get: {why}; name it in the case's metrics or give the case "
                    "what it needs, or remove the threshold"
                )


def _needs_earlier(metric: type[Metric], history: Sequence[Mapping[str, str]]) -> bool:
    """Whether a conversation metric needs earlier messages this turn does not have yet."""
    role = getattr(metric, "needs_history", None)
    return role is not None and not any(message["role"] == role for message in history)


def case_jobs(
    case: Case, exchanges: Sequence[Exchange], settings: CaseSettings, metric_class: MetricClass
) -> list[tuple[Check, Sample]]:
    """The checks of every judged exchange of ``case``, in turn order then metric order."""
    labels, strict = metric_labels(case, settings)
    bars = CaseBars(case, metric_class)
    jobs = []
    skipped: dict[str, str] = {}
    for exchange in exchanges:
        sample = exchange.sample()
        offered = case_options(case, exchange)
        for label in labels:
            name, mode = parse_metric_label(label)
            metric = metric_class(name, mode)
            if _needs_earlier(metric, exchange.history):
                skipped[metric.name] = "it needs earlier turns of a conversation"
                continue
            options = {key: value for key, value in offered.items() if key in metric.options}
            reason = None if strict else why_not_applicable(metric, options, sample)
            if reason is not None:
                skipped[metric.name] = reason
                continue
            check = Check(metric=name, mode=mode, threshold=bars.of(metric), options=options)
            jobs.append((check, sample))
    if not jobs:
        raise InputError(
            f"case {case.id!r} ({case.where}): none of the metrics {', '.join(labels)} applies to it "
            f"({'; '.join(f'{name}: {why}' for name, why in skipped.items())}); name the case's "
            "metrics, or give it what they need (a reference, expected contexts)"
        )
    bars.require_all_used(skipped)
    return jobs


MISSING: dict[str, str] = {
    "answer": "the app's answer is empty",
    "contexts": "the app returned no contexts",
    "question": "the case has no question",
    "reference": "the case has no reference",
    "expected": "the case has no expected_contexts",
}
"""What a case lacks, told in the case's terms, by the sample field or option a metric needs."""


def why_not_applicable(metric: type[Metric], options: Mapping[str, Any], sample: Sample) -> str | None:
    """Why a default metric cannot judge this sample with these options, in the case's terms where
    the missing input is one a case or its app gives (else the metric's own input error); None when
    it can."""
    for needed in (*metric.required, NAMED_FOR.get(metric.name)):
        given = getattr(sample, needed) if needed is not None else True
        if not (given.strip() if isinstance(given, str) else given):
            return MISSING.get(str(needed), f"the case has no {needed}")
    instance = metric()
    try:
        instance.check_options(options)
    except InputError as exc:
        lacking = [name for name in metric.options if name in MISSING and name not in options]
        return MISSING[lacking[0]] if lacking else str(exc)
    try:
        instance.check_inputs(sample)
    except InputError as exc:
        return str(exc)
    return None
