"""Typed results: what a score form returns and what the session records for every check.

``MetricResult`` is what users hold; ``CheckRecord`` is its flat, JSON-friendly trace in the session
results, the single source that the summary, exports, snapshots and plots read from. Records travel
from pytest-xdist workers to the controller as JSON, so they hold only plain data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from .errors import cut_text

if TYPE_CHECKING:
    from .inputs import Sample


@dataclass(frozen=True)
class Scale:
    """The range a metric's raw score lives in; normalising maps it onto [0, 1]."""

    low: float
    high: float

    def normalize(self, raw: float) -> float:
        if self.high == self.low:
            return 0.0
        value = (raw - self.low) / (self.high - self.low)
        return min(1.0, max(0.0, value))

    def __str__(self) -> str:
        def fmt(x: float) -> str:
            return str(int(x)) if float(x).is_integer() else f"{x:g}"

        return f"{fmt(self.low)}-{fmt(self.high)}"


COMPUTED = "computed"
"""The judge of a result no judge gave: a metric computed from its inputs (``Metric.asks_judge``)."""


class CallTally(BaseModel):
    """Judge calls behind one result: how many were live or cached, what they cost, and what went
    wrong on the way (requests that failed, by kind, and how many were retried).

    ``live`` counts replies received from a live judge, ``attempts`` every request sent (replies,
    failures and repair requests alike), ``failures`` the requests or replies that did not give a
    usable verdict, by kind ("rate limit", "server error", "timeout", "connection", "unreadable",
    "refused", "cut off", "invalid", "too large", "rejected", "unavailable").

    ``batched`` counts replies of a provider batch (``--rag-batch``) used for the first time: they cost
    the batch price, included in ``cost_usd``; ``saved_usd`` is what the same calls would have cost
    more at live prices.

    ``schema_fallbacks`` counts requests sent without the strict schema of their verdict because the
    provider refused it (the reply was still validated against the verdict model), and
    ``refused_schemas`` says which, once each: judge label -> schema name (``*`` when the provider
    refused structured output for every schema) -> the provider's reason.
    """

    live: int = 0
    cached: int = 0
    offline: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 0
    retries: int = 0
    failures: dict[str, int] = Field(default_factory=dict)
    batched: int = 0
    saved_usd: float = 0.0
    schema_fallbacks: int = 0
    refused_schemas: dict[str, dict[str, str]] = Field(default_factory=dict)

    def add(self, other: CallTally) -> None:
        # Every cached check adds several tallies: the sums go straight into the field values (this
        # model validates no assignment), skipping pydantic's per-attribute __setattr__ and the zeros.
        mine, theirs = self.__dict__, other.__dict__
        for name in _SUMMED_COUNTS:
            value = theirs[name]
            if value:
                mine[name] += value
        for kind, count in other.failures.items():
            self.failures[kind] = self.failures.get(kind, 0) + count
        for judge, schemas in other.refused_schemas.items():
            for schema, reason in schemas.items():
                self.refused_schemas.setdefault(judge, {}).setdefault(schema, reason)

    @property
    def all_cached(self) -> bool:
        """True when every call behind these counts was served from the cache."""
        return self.live == 0 and self.offline == 0 and self.batched == 0 and self.cached > 0

    def failed(self, kind: str) -> None:
        """Count one request or reply that did not give a usable verdict."""
        self.failures[kind] = self.failures.get(kind, 0) + 1

    def unenforced(self, judge: str, schema: str | None, reason: str) -> None:
        """Count one request sent without its strict schema, which ``judge`` refused for ``reason``
        (``schema`` None: it refused structured output for every schema)."""
        self.schema_fallbacks += 1
        self.refused_schemas.setdefault(judge, {}).setdefault(schema or "*", reason)


_SUMMED_COUNTS = tuple(
    name for name, field in CallTally.model_fields.items() if field.annotation in (int, float)
)


class Highlights(BaseModel):
    """What a report marks for one check: the answer's statements the judge found unsupported, and
    a short grade per retrieved passage keyed by its 1-based rank ("relevant: yes", "grade: 3").

    A metric declares them through its evidence (:meth:`Evidence.highlights`); reports read these,
    never field names of the evidence, so a renamed evidence field cannot silently drop a mark.
    """

    statements: list[str] = Field(default_factory=list)
    passages: dict[int, str] = Field(default_factory=dict)


class Evidence(BaseModel):
    """Base of a metric's typed evidence. Override :meth:`highlights` to say which statements and
    passage grades a report should mark; evidence of other types is shown but marks nothing."""

    def highlights(self) -> Highlights:
        return Highlights()


def passage_labels(rows: Sequence[Any], field: str) -> dict[int, str]:
    """Grades of passages from evidence rows that carry their 1-based ``index`` (rows may cover
    some passages only): the row's ``field`` as ``"field: value"``, yes/no for booleans."""
    labels: dict[int, str] = {}
    for row in rows:
        value = getattr(row, field) if not isinstance(row, Mapping) else row.get(field)
        index = getattr(row, "index", None) if not isinstance(row, Mapping) else row.get("index")
        if isinstance(index, int) and value is not None:
            shown = ("yes" if value else "no") if isinstance(value, bool) else value
            labels[index] = f"{field}: {shown}"
    return labels


UNCERTAIN_BAND = (0.2, 0.8)
"""A check whose probability of reaching its bar lies in this band (both ends included) is
*uncertain*: a rerun, or another version of the judge, could well decide it the other way."""


def is_uncertain(pass_probability: float | None) -> bool:
    """True when a pass probability is known and lies in :data:`UNCERTAIN_BAND`."""
    low, high = UNCERTAIN_BAND
    return pass_probability is not None and low <= pass_probability <= high


class JudgeScore(BaseModel):
    """One judge's part of a result: its score (median of its repeats) and the repeats themselves,
    with the expected score and pass probability of its repeats when it reported its grades' odds."""

    judge: str
    score: float
    repeats: list[float]
    expected_score: float | None = None
    pass_probability: float | None = None


class MetricResult(BaseModel):
    """The typed outcome of one metric on one sample.

    ``expected_score`` and ``pass_probability`` are known when every judgment behind the result
    came with the odds of its grade (a judge that reports token log-probabilities): the
    probability-weighted score, and the probability that the score reaches the threshold. With
    repeats or several judges they are the means over all judgments. ``passed_on`` names what
    ``passed`` compared with the threshold: ``"score"``, or ``"expected_score"`` under
    ``--rag-pass-on=expected``.
    """

    model_config = ConfigDict(frozen=True)

    metric: str
    mode: str
    judge: str
    score: float
    scale_low: float
    scale_high: float
    normalized: float
    threshold: float | None = None
    passed: bool | None = None
    reasons: str = ""
    evidence: SerializeAsAny[BaseModel] | None = None
    details: dict[str, float] = Field(default_factory=dict)
    judges: list[JudgeScore] = Field(default_factory=list)
    calls: CallTally = Field(default_factory=CallTally)
    expected_score: float | None = None
    pass_probability: float | None = None
    passed_on: str = "score"

    @property
    def scale(self) -> str:
        return str(Scale(self.scale_low, self.scale_high))

    @property
    def uncertain(self) -> bool:
        """True when the probability of passing lies in :data:`UNCERTAIN_BAND`."""
        return is_uncertain(self.pass_probability)

    @property
    def cached(self) -> bool:
        """True when every judge call behind this result was served from the cache."""
        return self.calls.all_cached

    @property
    def spread(self) -> float:
        """Largest minus smallest score over all repeats of all judges (0 for a single judgment)."""
        values = [v for j in self.judges for v in j.repeats]
        return max(values) - min(values) if values else 0.0

    def evidence_dict(self) -> dict[str, Any]:
        return self.evidence.model_dump(mode="json") if self.evidence is not None else {}


#: What one check keeps of a judge's own words in records, reports and failure messages: its reasons,
#: each evidence string and the length of a list of strings. A runaway reply (a schema-valid verdict
#: with megabytes in one field) must not become a results file or an HTML report of that size.
REASONS_CHARS = 2000
EVIDENCE_CHARS = 500
EVIDENCE_ITEMS = 50


def bounded(value: Any, chars: int = EVIDENCE_CHARS) -> Any:
    """``value`` with every string cut to ``chars`` and every list of strings to
    :data:`EVIDENCE_ITEMS`, each cut saying what it left out. Lists of records (one per passage) are
    bounded by the inputs, not by the judge, and keep their length."""
    if isinstance(value, str):
        return cut_text(value, chars)
    if isinstance(value, list):
        items = [bounded(item, chars) for item in value]
        if len(items) > EVIDENCE_ITEMS and all(isinstance(item, str) for item in items):
            return [*items[:EVIDENCE_ITEMS], f"...[cut: {len(items) - EVIDENCE_ITEMS} more items]"]
        return items
    if isinstance(value, Mapping):
        return {key: bounded(item, chars) for key, item in value.items()}
    return value


def _bounded_highlights(evidence: Any) -> Highlights:
    if not isinstance(evidence, Evidence):
        return Highlights()
    found = evidence.highlights()
    return Highlights(statements=bounded(found.statements), passages=bounded(found.passages))


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit].rstrip() + "…", True)


class SampleExcerpt(BaseModel):
    """The texts a check judged, cut to a bounded size, so a report can show the answer with its
    unsupported sentences marked and the context span they were matched against.

    The caps keep a session of ten thousand checks (and its JSON export) a few tens of megabytes
    at most; ``truncated`` says that some text was cut.
    """

    QUESTION_CHARS: ClassVar[int] = 400
    ANSWER_CHARS: ClassVar[int] = 1500
    REFERENCE_CHARS: ClassVar[int] = 600
    CONTEXT_CHARS: ClassVar[int] = 1000
    MAX_CONTEXTS: ClassVar[int] = 5

    question: str = ""
    answer: str = ""
    contexts: list[str] = Field(default_factory=list)
    reference: str = ""
    truncated: bool = False

    @classmethod
    def of(cls, sample: Any) -> SampleExcerpt:
        """Excerpt of a :class:`~pytest_rag.inputs.Sample` (question, answer, contexts, reference)."""
        question, cut_q = _cut(sample.question or "", cls.QUESTION_CHARS)
        answer, cut_a = _cut(sample.answer or "", cls.ANSWER_CHARS)
        reference, cut_r = _cut(sample.reference or "", cls.REFERENCE_CHARS)
        chunks = [_cut(chunk.text, cls.CONTEXT_CHARS) for chunk in sample.contexts[: cls.MAX_CONTEXTS]]
        cut = cut_q or cut_a or cut_r or len(sample.contexts) > cls.MAX_CONTEXTS or any(c for _, c in chunks)
        return cls(
            question=question,
            answer=answer,
            contexts=[text for text, _ in chunks],
            reference=reference,
            truncated=cut,
        )


@dataclass(frozen=True)
class CheckPlace:
    """Where a check stands in the run: its test, the sample it judged and that sample's position in
    its ``rag_judge.evaluate`` call. These three say which check a record is (:mod:`~pytest_rag.check_keys`),
    so they travel together from the plan to the record, whether the check was scored or failed."""

    test_id: str
    sample: Sample | None = None
    """The judged texts (None: a check computed from other results, such as ``overall_score``)."""
    sample_index: int | None = None
    """The sample's position in its ``evaluate`` call (None: the check's test judged one sample)."""

    @property
    def sample_id(self) -> str | None:
        return self.sample.id if self.sample is not None else None

    def excerpt(self) -> SampleExcerpt | None:
        """The judged texts, cut to the size a record keeps."""
        return SampleExcerpt.of(self.sample) if self.sample is not None else None


#: Error kinds of checks that were counted instead of judged: nothing went wrong, nothing was learnt.
NOT_JUDGED_KINDS = frozenset({"NotJudgedError", "WaitingForBatchError"})


class CheckRecord(BaseModel):
    """One judged check as the session keeps it (also the row of JSON/CSV exports)."""

    test_id: str
    metric: str
    mode: str = "default"
    judge: str
    score: float | None = None
    normalized: float | None = None
    scale_low: float | None = None
    scale_high: float | None = None
    threshold: float | None = None
    passed: bool | None = None
    error: str | None = None
    error_kind: str | None = None
    reasons: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)
    details: dict[str, float] = Field(default_factory=dict)
    judges: list[JudgeScore] = Field(default_factory=list)
    calls: CallTally = Field(default_factory=CallTally)
    sample_id: str | None = None
    texts: SampleExcerpt | None = None
    highlights: Highlights = Field(default_factory=Highlights)
    expected_score: float | None = None
    pass_probability: float | None = None
    passed_on: str = "score"
    sample_index: int | None = None
    """The sample's position in its ``rag_judge.evaluate`` call (from 0); it tells apart the checks
    of samples that have no id (:func:`~pytest_rag.check_keys.sample_tag`)."""

    @classmethod
    def from_result(cls, result: MetricResult, place: CheckPlace) -> CheckRecord:
        """The record of a scored check, at its place in the run."""
        return cls(
            test_id=place.test_id,
            metric=result.metric,
            mode=result.mode,
            judge=result.judge,
            score=result.score,
            normalized=result.normalized,
            scale_low=result.scale_low,
            scale_high=result.scale_high,
            threshold=result.threshold,
            passed=result.passed,
            reasons=cut_text(result.reasons, REASONS_CHARS),
            evidence=bounded(result.evidence_dict()),
            details=dict(result.details),
            judges=list(result.judges),
            calls=result.calls.model_copy(),
            sample_id=place.sample_id,
            texts=place.excerpt(),
            highlights=_bounded_highlights(result.evidence),
            expected_score=result.expected_score,
            pass_probability=result.pass_probability,
            passed_on=result.passed_on,
            sample_index=place.sample_index,
        )

    @property
    def cached(self) -> bool:
        return self.calls.all_cached

    @property
    def uncertain(self) -> bool:
        """True when the probability of passing lies in :data:`UNCERTAIN_BAND`."""
        return is_uncertain(self.pass_probability)

    @property
    def not_judged(self) -> bool:
        """True for a check counted instead of judged (``--rag-dry-run``) or waiting for a provider
        batch (``--rag-batch``): not a judge error."""
        return self.error_kind in NOT_JUDGED_KINDS
