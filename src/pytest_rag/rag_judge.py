"""``RagJudge``: the object behind the ``rag_judge`` fixture.

For every metric there is a score form that returns a typed :class:`~pytest_rag.results.MetricResult`,
an ``assert_*`` form that raises a readable failure below the threshold, and ``a``-prefixed async
variants for async tests. ``score``/``assert_score`` reach any registered metric by name, including
those added by other plugins, and ``evaluate`` scores many samples concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .catalog_helpers import CatalogHelpers
from .errors import InputError, RagError
from .failures import RagAssertionError
from .inputs import ContextLike, Sample, coerce_sample, normalize_contexts, require_text
from .results import MetricResult
from .table import ResultsTable, Row

if TYPE_CHECKING:
    from .session import RagSession


def _sample(
    *,
    answer: str | None = None,
    question: str | None = None,
    context: ContextLike = None,
    reference: str | None = None,
    sample_id: str | None = None,
) -> Sample:
    return Sample(
        question=require_text(question, "question") if question is not None else "",
        answer=require_text(answer, "answer", allow_empty=True) if answer is not None else "",
        contexts=normalize_contexts(context),
        reference=reference,
        id=sample_id,
    )


def _require_threshold(session: RagSession, metric: str, mode: str | None, threshold: float | None) -> None:
    """Refuse an assertion that has no threshold before any judge is paid or any check recorded."""
    if session.threshold_of(metric, mode, threshold) is None:
        raise InputError(f"{metric} has no default threshold; pass threshold=... to assert on it")


def _enforce(result: MetricResult) -> MetricResult:
    __tracebackhide__ = True
    if result.threshold is None:
        raise InputError(f"{result.metric} has no default threshold; pass threshold=... to assert on it")
    if not result.passed:
        raise RagAssertionError(result)
    return result


class RagJudge(CatalogHelpers):
    """Judged assertions for one test. Obtain it through the ``rag_judge`` fixture."""

    def __init__(self, session: RagSession, test_id: str) -> None:
        self._session = session
        self.test_id = test_id

    @property
    def judges(self) -> list[str]:
        return [judge.spec.label for judge in self._session.judges()]

    # -- generic forms --------------------------------------------------------------------------

    def score(
        self,
        metric: str,
        *,
        answer: str | None = None,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
        **options: Any,
    ) -> MetricResult:
        """Score any registered metric by name and return the typed result (never asserts)."""
        sample = _sample(answer=answer, question=question, context=context, reference=reference)
        return self._session.score(
            self.test_id, metric, sample, mode=mode, options=options, threshold=threshold
        )

    def assert_score(self, metric: str, *, threshold: float | None = None, **kwargs: Any) -> MetricResult:
        """Score any registered metric and fail the test when it is below the threshold."""
        __tracebackhide__ = True
        _require_threshold(self._session, metric, kwargs.get("mode"), threshold)
        return _enforce(self.score(metric, threshold=threshold, **kwargs))

    async def ascore(
        self,
        metric: str,
        *,
        answer: str | None = None,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
        **options: Any,
    ) -> MetricResult:
        sample = _sample(answer=answer, question=question, context=context, reference=reference)
        return await self._session.ascore(
            self.test_id, metric, sample, mode=mode, options=options, threshold=threshold
        )

    async def aassert_score(
        self, metric: str, *, threshold: float | None = None, **kwargs: Any
    ) -> MetricResult:
        __tracebackhide__ = True
        _require_threshold(self._session, metric, kwargs.get("mode"), threshold)
        return _enforce(await self.ascore(metric, threshold=threshold, **kwargs))

    # -- the three core metrics (seed 000) ------------------------------------------------------

    def faithfulness(
        self,
        output: str,
        context: ContextLike,
        *,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Is ``output`` supported by ``context``? 1-5 (single mode) or supported/total (claims mode)."""
        return self.score("faithfulness", answer=output, context=context, mode=mode, threshold=threshold)

    def assert_faithful(
        self,
        output: str,
        context: ContextLike,
        threshold: float | None = None,
        *,
        mode: str | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return _enforce(self.faithfulness(output, context, mode=mode, threshold=threshold))

    async def afaithfulness(
        self,
        output: str,
        context: ContextLike,
        *,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "faithfulness", answer=output, context=context, mode=mode, threshold=threshold
        )

    async def aassert_faithful(
        self,
        output: str,
        context: ContextLike,
        threshold: float | None = None,
        *,
        mode: str | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return _enforce(await self.afaithfulness(output, context, mode=mode, threshold=threshold))

    def answer_relevancy(
        self, output: str, prompt: str, *, mode: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        """Does ``output`` address ``prompt``? 1-5."""
        return self.score("answer_relevancy", answer=output, question=prompt, mode=mode, threshold=threshold)

    def assert_relevant(
        self, output: str, prompt: str, threshold: float | None = None, *, mode: str | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return _enforce(self.answer_relevancy(output, prompt, mode=mode, threshold=threshold))

    async def aanswer_relevancy(
        self, output: str, prompt: str, *, mode: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "answer_relevancy", answer=output, question=prompt, mode=mode, threshold=threshold
        )

    async def aassert_relevant(
        self, output: str, prompt: str, threshold: float | None = None, *, mode: str | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return _enforce(await self.aanswer_relevancy(output, prompt, mode=mode, threshold=threshold))

    def context_recall(
        self,
        output: str,
        reference: str | None = None,
        *,
        context: ContextLike = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Does ``output`` cover the key facts of ``reference`` (falling back to ``context``)? 1-5."""
        return self.score(
            "context_recall",
            answer=output,
            reference=reference,
            context=context,
            mode=mode,
            threshold=threshold,
        )

    def assert_context_recall(
        self,
        output: str,
        reference: str | None = None,
        threshold: float | None = None,
        *,
        context: ContextLike = None,
        mode: str | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return _enforce(
            self.context_recall(output, reference, context=context, mode=mode, threshold=threshold)
        )

    async def acontext_recall(
        self,
        output: str,
        reference: str | None = None,
        *,
        context: ContextLike = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "context_recall",
            answer=output,
            reference=reference,
            context=context,
            mode=mode,
            threshold=threshold,
        )

    async def aassert_context_recall(
        self,
        output: str,
        reference: str | None = None,
        threshold: float | None = None,
        *,
        context: ContextLike = None,
        mode: str | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return _enforce(
            await self.acontext_recall(output, reference, context=context, mode=mode, threshold=threshold)
        )

    # -- several at once -------------------------------------------------------------------------

    def evaluate(
        self,
        samples: Sequence[Sample | Mapping[str, Any]],
        metrics: Sequence[str],
        *,
        thresholds: Mapping[str, float] | None = None,
    ) -> ResultsTable:
        """Score every sample on every metric, all judgments concurrently; never raises for a judge
        error (it is a row of the table, counted in the summary)."""
        if not metrics:
            raise InputError("evaluate() needs at least one metric name, e.g. metrics=['faithfulness']")
        prepared = [coerce_sample(s) for s in samples]
        jobs: list[tuple[str, str | None, Sample, Mapping[str, Any], float | None]] = [
            (name, None, sample, {}, (thresholds or {}).get(name)) for sample in prepared for name in metrics
        ]
        outcomes = self._session.score_many(self.test_id, jobs)
        rows = []
        for (name, _, sample, _, _), outcome, index in zip(
            jobs, outcomes, [i for i in range(len(prepared)) for _ in metrics], strict=True
        ):
            if isinstance(outcome, RagError):
                rows.append(Row(index, sample.id, name, None, outcome))
            else:
                rows.append(Row(index, sample.id, name, outcome, None))
        return ResultsTable(rows)

    def assert_rag(self, sample: Sample | Mapping[str, Any], **thresholds: float) -> list[MetricResult]:
        """Score one sample on several metrics at once (concurrently) and fail with every metric that
        fell short, e.g. ``assert_rag(sample, faithfulness=4, answer_relevancy=3)``."""
        if not thresholds:
            raise InputError("assert_rag() needs at least one METRIC=THRESHOLD, e.g. faithfulness=4")
        prepared = coerce_sample(sample)
        jobs: list[tuple[str, str | None, Sample, Mapping[str, Any], float | None]] = [
            (name, None, prepared, {}, float(bar)) for name, bar in thresholds.items()
        ]
        outcomes = self._session.score_many(self.test_id, jobs)
        errors = [o for o in outcomes if isinstance(o, RagError)]
        if errors:
            raise errors[0]
        results = [o for o in outcomes if isinstance(o, MetricResult)]
        failed = [r for r in results if not r.passed]
        if failed:
            if len(failed) == 1:
                raise RagAssertionError(failed[0])
            from .failures import describe

            raise AssertionError("\n\n".join(describe(r) for r in failed))
        return results

    async def aevaluate(
        self,
        samples: Sequence[Sample | Mapping[str, Any]],
        metrics: Sequence[str],
        *,
        thresholds: Mapping[str, float] | None = None,
    ) -> ResultsTable:
        """:meth:`evaluate` for async tests: the batch runs on a worker thread (its judgments still run
        concurrently on pytest-rag's own loop), so the test's event loop keeps running meanwhile."""
        return await asyncio.to_thread(self.evaluate, samples, metrics, thresholds=thresholds)

    async def aassert_rag(
        self, sample: Sample | Mapping[str, Any], **thresholds: float
    ) -> list[MetricResult]:
        """:meth:`assert_rag` for async tests (see :meth:`aevaluate`)."""
        __tracebackhide__ = True
        return await asyncio.to_thread(self.assert_rag, sample, **thresholds)
