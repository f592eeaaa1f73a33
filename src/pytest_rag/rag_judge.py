"""``RagJudge``: the object behind the ``rag_judge`` fixture.

Every metric has four helpers: a score form returning the typed
:class:`~pytest_rag.results.MetricResult` (``rag_judge.faithfulness(...)``), an assert form that fails
the test below the threshold (``assert_faithful``), and ``a``-prefixed async twins of both. Each
metric's score form is written once below, as a builder of a :class:`~pytest_rag.helper_forms.Check`; the
other three are derived from it (:mod:`pytest_rag.helper_forms`), so all four take the same parameters.
``score``/``assert_score`` reach any registered metric by name, plugin metrics included;
``evaluate`` and ``assert_rag`` score many checks concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import InputError, RagError
from .failures import RagAssertionError, describe
from .helper_forms import Check, given, score_form
from .inputs import ContextLike, Sample, coerce_sample
from .results import MetricResult
from .table import ResultsTable, Row

if TYPE_CHECKING:
    from .session import RagSession


def require_pass(result: MetricResult) -> MetricResult:
    """Fail the test with the result's explanation when it is below its threshold."""
    __tracebackhide__ = True
    if result.threshold is None:
        raise InputError(f"{result.metric} has no default threshold; pass threshold=... to assert on it")
    if not result.passed:
        raise RagAssertionError(result)
    return result


class RagJudge:
    """Judged assertions for one test. Obtain it through the ``rag_judge`` fixture."""

    def __init__(self, session: RagSession, test_id: str) -> None:
        self._session = session
        self.test_id = test_id

    @property
    def judges(self) -> list[str]:
        return [judge.spec.label for judge in self._session.judges()]

    # -- the one path every form takes ---------------------------------------------------------

    def _prepare(self, check: Check, *, enforce: bool) -> Sample:
        """Read the inputs and, for an assertion, make sure a threshold exists: both before any
        judge is paid or any check recorded."""
        __tracebackhide__ = True
        assert check.metric is not None  # filled in by the form
        sample = check.sample()
        if enforce and self._session.threshold_of(check.metric, check.mode, check.threshold) is None:
            raise InputError(f"{check.metric} has no default threshold; pass threshold=... to assert on it")
        return sample

    def run_check(self, check: Check, *, enforce: bool) -> MetricResult:
        __tracebackhide__ = True
        sample = self._prepare(check, enforce=enforce)
        result = self._session.score(self.test_id, check, sample)
        return require_pass(result) if enforce else result

    async def arun_check(self, check: Check, *, enforce: bool) -> MetricResult:
        __tracebackhide__ = True
        sample = self._prepare(check, enforce=enforce)
        result = await self._session.ascore(self.test_id, check, sample)
        return require_pass(result) if enforce else result

    # -- any metric by name --------------------------------------------------------------------

    @score_form()
    def score(
        self,
        /,
        metric: str,
        *,
        answer: str | None = None,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
        **options: Any,
    ) -> Check:
        """Score any registered metric by name (plugin metrics too); its options as keywords."""
        return Check(
            answer=answer,
            question=question,
            context=context,
            reference=reference,
            mode=mode,
            threshold=threshold,
            options=options,
            metric=metric,
        )

    assert_score, ascore, aassert_score = score.other_forms()

    # -- single judgments on 1-5 anchors -------------------------------------------------------

    @score_form("faithfulness")
    def faithfulness(
        self,
        output: str,
        context: ContextLike,
        threshold: float | None = None,
        *,
        mode: str | None = None,
        question: str | None = None,
    ) -> Check:
        """Is ``output`` supported by ``context``? 1-5 (single mode) or supported/total (claims mode).
        ``question`` lets a judge that reads inputs (the offline one) check a bare "yes" or a lone
        entity as the claim it makes; LLM prompts do not show it."""
        return Check(answer=output, context=context, threshold=threshold, mode=mode, question=question)

    assert_faithful, afaithfulness, aassert_faithful = faithfulness.other_forms()

    @score_form("answer_relevancy")
    def answer_relevancy(
        self, output: str, prompt: str, threshold: float | None = None, *, mode: str | None = None
    ) -> Check:
        """Does ``output`` address ``prompt``? 1-5."""
        return Check(answer=output, question=prompt, threshold=threshold, mode=mode)

    assert_relevant, aanswer_relevancy, aassert_relevant = answer_relevancy.other_forms()

    @score_form("context_recall")
    def context_recall(
        self,
        output: str,
        reference: str | None = None,
        threshold: float | None = None,
        *,
        context: ContextLike = None,
        mode: str | None = None,
    ) -> Check:
        """Does ``output`` cover the key facts of ``reference`` (falling back to ``context``)? 1-5."""
        return Check(answer=output, reference=reference, context=context, threshold=threshold, mode=mode)

    assert_context_recall, acontext_recall, aassert_context_recall = context_recall.other_forms()

    # -- claim-based and generated-question modes ----------------------------------------------

    @score_form("faithfulness", mode="claims")
    def faithfulness_claims(
        self,
        output: str,
        context: ContextLike,
        *,
        batch_size: int | None = None,
        threshold: float | None = None,
        question: str | None = None,
    ) -> Check:
        """Share of the answer's claims the context supports (claims extracted, verified in batches).
        ``question``, as for :meth:`faithfulness`, reaches judges that read inputs only."""
        return Check(
            answer=output,
            context=context,
            threshold=threshold,
            question=question,
            options=given(batch_size=batch_size),
        )

    assert_faithful_claims, afaithfulness_claims, aassert_faithful_claims = faithfulness_claims.other_forms()

    @score_form("answer_relevancy", mode="questions")
    def answer_relevancy_questions(
        self,
        output: str,
        prompt: str,
        *,
        n_questions: int | None = None,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Mean cosine between the question and questions generated from the answer."""
        options = given(n_questions=n_questions, embedding_model=embedding_model)
        return Check(answer=output, question=prompt, threshold=threshold, options=options)

    assert_relevant_questions, aanswer_relevancy_questions, aassert_relevant_questions = (
        answer_relevancy_questions.other_forms()
    )

    @score_form("context_recall", mode="attribution")
    def context_recall_attribution(
        self, reference: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """Share of the reference's facts found in the contexts, each with its 1-indexed source."""
        return Check(reference=reference, context=context, threshold=threshold)

    assert_context_recall_attribution, acontext_recall_attribution, aassert_context_recall_attribution = (
        context_recall_attribution.other_forms()
    )

    # -- retrieval -----------------------------------------------------------------------------

    @score_form("context_precision")
    def context_precision(
        self,
        question: str,
        context: ContextLike,
        *,
        reference: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Average precision of the passages judged useful, over their ranks."""
        return Check(question=question, context=context, reference=reference, threshold=threshold)

    assert_context_precision, acontext_precision, aassert_context_precision = context_precision.other_forms()

    @score_form("umbrela")
    def umbrela(
        self,
        question: str,
        context: ContextLike,
        *,
        k_values: Sequence[int] | None = None,
        threshold: float | None = None,
    ) -> Check:
        """UMBRELA 0-3 grade per passage; mean grade, with P@k, AP@k and MRR in the details."""
        return Check(
            question=question, context=context, threshold=threshold, options=given(k_values=k_values)
        )

    assert_umbrela, aumbrela, aassert_umbrela = umbrela.other_forms()

    @score_form("retrieval_precision")
    def retrieval_precision(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """Share of retrieved passages relevant to the question."""
        return Check(question=question, context=context, threshold=threshold)

    assert_retrieval_precision, aretrieval_precision, aassert_retrieval_precision = (
        retrieval_precision.other_forms()
    )

    # -- how the answer uses its contexts ------------------------------------------------------

    @score_form("augmentation_precision")
    def augmentation_precision(
        self, output: str, question: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """Share of the relevant passages whose information appears in the answer."""
        return Check(answer=output, question=question, context=context, threshold=threshold)

    assert_augmentation_precision, aaugmentation_precision, aassert_augmentation_precision = (
        augmentation_precision.other_forms()
    )

    @score_form("augmentation_accuracy")
    def augmentation_accuracy(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """Share of retrieved passages whose information appears in the answer."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_augmentation_accuracy, aaugmentation_accuracy, aassert_augmentation_accuracy = (
        augmentation_accuracy.other_forms()
    )

    @score_form("answer_consistency")
    def answer_consistency(self, output: str, context: ContextLike, threshold: float | None = None) -> Check:
        """Share of the answer's main points attributable to the contexts."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_answer_consistency, aanswer_consistency, aassert_answer_consistency = (
        answer_consistency.other_forms()
    )

    @score_form("answer_consistency_binary")
    def answer_consistency_binary(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """1 when everything in the answer derives from the contexts, else 0."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_answer_consistency_binary, aanswer_consistency_binary, aassert_answer_consistency_binary = (
        answer_consistency_binary.other_forms()
    )

    # -- against a reference answer ------------------------------------------------------------

    @score_form("answer_similarity")
    def answer_similarity(
        self, output: str, reference: str, *, question: str | None = None, threshold: float | None = None
    ) -> Check:
        """0-5 judgment of how well the answer matches the reference in meaning."""
        return Check(answer=output, reference=reference, question=question, threshold=threshold)

    assert_answer_similarity, aanswer_similarity, aassert_answer_similarity = answer_similarity.other_forms()

    @score_form("semantic_similarity")
    def semantic_similarity(
        self,
        output: str,
        reference: str,
        *,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Cosine of the answer's and reference's embeddings."""
        options = given(embedding_model=embedding_model)
        return Check(answer=output, reference=reference, threshold=threshold, options=options)

    assert_semantic_similarity, asemantic_similarity, aassert_semantic_similarity = (
        semantic_similarity.other_forms()
    )

    @score_form("factual_correctness")
    def factual_correctness(
        self, output: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> Check:
        """F1 (or precision/recall) of the claims of answer and reference entailing each other."""
        return Check(answer=output, reference=reference, threshold=threshold, options=given(score=score))

    assert_factual_correctness, afactual_correctness, aassert_factual_correctness = (
        factual_correctness.other_forms()
    )

    # -- TREC-style generation checks ----------------------------------------------------------

    @score_form("nuggets")
    def nuggets(
        self,
        output: str,
        question: str,
        context: ContextLike,
        *,
        umbrela_grades: Sequence[int] | None = None,
        score: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """AutoNuggetizer score: nuggets from the passages, labelled vital/okay, assigned to the answer."""
        options = given(umbrela_grades=umbrela_grades, score=score)
        return Check(answer=output, question=question, context=context, threshold=threshold, options=options)

    assert_nuggets, anuggets, aassert_nuggets = nuggets.other_forms()

    @score_form("citation")
    def citation(
        self,
        citations: Sequence[Any],
        context: ContextLike,
        *,
        output: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """F1 of the support the cited passages give the answer parts that cite them."""
        return Check(answer=output, context=context, threshold=threshold, options={"citations": citations})

    assert_citations, acitation, aassert_citations = citation.other_forms()

    @score_form("hallucination")
    def hallucination(self, output: str, context: ContextLike, threshold: float | None = None) -> Check:
        """0-1 factual consistency of the answer with the passages (HHEM-style; higher is better)."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_no_hallucination, ahallucination, aassert_no_hallucination = hallucination.other_forms()

    @score_form("no_answer")
    def no_answer(self, output: str, question: str, threshold: float | None = None) -> Check:
        """1 when the answer attempts the question, 0 when it declines."""
        return Check(answer=output, question=question, threshold=threshold)

    assert_answered, ano_answer, aassert_answered = no_answer.other_forms()

    # -- two templates, averaged ---------------------------------------------------------------

    @score_form("answer_accuracy")
    def answer_accuracy(
        self, output: str, reference: str, question: str, threshold: float | None = None
    ) -> Check:
        """Two 0/2/4 judgments (roles swapped in the second), averaged."""
        return Check(answer=output, reference=reference, question=question, threshold=threshold)

    assert_answer_accuracy, aanswer_accuracy, aassert_answer_accuracy = answer_accuracy.other_forms()

    @score_form("context_relevance")
    def context_relevance(self, question: str, context: ContextLike, threshold: float | None = None) -> Check:
        """Two 0/1/2 judgments of the contexts' relevance to the question, averaged."""
        return Check(question=question, context=context, threshold=threshold)

    assert_context_relevance, acontext_relevance, aassert_context_relevance = context_relevance.other_forms()

    @score_form("response_groundedness")
    def response_groundedness(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """Two 0/1/2 judgments of the answer's grounding in the contexts, averaged."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_grounded, aresponse_groundedness, aassert_grounded = response_groundedness.other_forms()

    # -- the test's own rubric, and repeated runs ----------------------------------------------

    @score_form("rubric")
    def rubric(
        self,
        output: str,
        rubric: Mapping[int, str],
        *,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        criteria: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """One judgment against the levels of a rubric the test writes."""
        return Check(
            answer=output,
            question=question,
            context=context,
            reference=reference,
            threshold=threshold,
            options={"rubric": rubric, **given(criteria=criteria)},
        )

    assert_rubric, arubric, aassert_rubric = rubric.other_forms()

    @score_form("consistency")
    def consistency(
        self,
        answers: Sequence[str],
        *,
        question: str | None = None,
        scores: Mapping[str, Sequence[Any]] | None = None,
        embedding_model: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Agreement of several answers to one question (pairwise ROUGE and embeddings) and the spread
        of their metric scores."""
        options = {"answers": answers, **given(scores=scores, embedding_model=embedding_model)}
        return Check(question=question, mode=mode, threshold=threshold, options=options)

    assert_consistent, aconsistency, aassert_consistent = consistency.other_forms()

    # -- computed from results, not judged -----------------------------------------------------

    def overall_score(self, results: Sequence[MetricResult], threshold: float | None = None) -> MetricResult:
        """Tonic's overall score: the mean normalised score of the metrics that ran (no judge call);
        recorded in the session results like any check."""
        from .metrics.overall import NAME, overall_score

        result = overall_score(results, self._session.threshold_for(NAME, None, threshold))
        return self._session.record(self.test_id, result)

    def assert_overall_score(
        self, results: Sequence[MetricResult], threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return require_pass(self.overall_score(results, threshold))

    # -- several at once -----------------------------------------------------------------------

    def evaluate(
        self,
        samples: Sequence[Sample | Mapping[str, Any]],
        metrics: Sequence[str],
        *,
        thresholds: Mapping[str, float] | None = None,
        batch: bool = False,
    ) -> ResultsTable:
        """Score every sample on every metric, all judgments concurrently; never raises for a judge
        error (it is a row of the table, counted in the summary).

        With ``batch=True`` the judgments that are not cached go to the providers' batch APIs at half
        price: the call submits its batches, waits for them (round after round for multi-step
        metrics) and returns the judged table."""
        if not metrics:
            raise InputError("evaluate() needs at least one metric name, e.g. metrics=['faithfulness']")
        prepared = [coerce_sample(s) for s in samples]
        jobs = [
            (Check(metric=name, threshold=(thresholds or {}).get(name)), sample)
            for sample in prepared
            for name in metrics
        ]
        outcomes = self._session.score_many(self.test_id, jobs, batch=batch)
        rows = []
        for (check, sample), outcome, index in zip(
            jobs, outcomes, [i for i in range(len(prepared)) for _ in metrics], strict=True
        ):
            name = check.metric or ""
            if isinstance(outcome, RagError):
                rows.append(Row(index, sample.id, name, None, outcome))
            else:
                rows.append(Row(index, sample.id, name, outcome, None))
        return ResultsTable(rows)

    def assert_rag(self, sample: Sample | Mapping[str, Any], **thresholds: float) -> list[MetricResult]:
        """Score one sample on several metrics at once (concurrently) and fail with every metric that
        fell short, e.g. ``assert_rag(sample, faithfulness=4, answer_relevancy=3)``."""
        __tracebackhide__ = True
        if not thresholds:
            raise InputError("assert_rag() needs at least one METRIC=THRESHOLD, e.g. faithfulness=4")
        prepared = coerce_sample(sample)
        jobs = [(Check(metric=name, threshold=float(bar)), prepared) for name, bar in thresholds.items()]
        outcomes = self._session.score_many(self.test_id, jobs)
        errors = [o for o in outcomes if isinstance(o, RagError)]
        if errors:
            raise errors[0]
        results = [o for o in outcomes if isinstance(o, MetricResult)]
        failed = [r for r in results if not r.passed]
        if failed:
            if len(failed) == 1:
                raise RagAssertionError(failed[0])
            raise AssertionError("\n\n".join(describe(r) for r in failed))
        return results

    async def aevaluate(
        self,
        samples: Sequence[Sample | Mapping[str, Any]],
        metrics: Sequence[str],
        *,
        thresholds: Mapping[str, float] | None = None,
        batch: bool = False,
    ) -> ResultsTable:
        """:meth:`evaluate` for async tests: the batch runs on a worker thread (its judgments still run
        concurrently on pytest-rag's own loop), so the test's event loop keeps running meanwhile."""
        return await asyncio.to_thread(self.evaluate, samples, metrics, thresholds=thresholds, batch=batch)

    async def aassert_rag(
        self, sample: Sample | Mapping[str, Any], **thresholds: float
    ) -> list[MetricResult]:
        """:meth:`assert_rag` for async tests (see :meth:`aevaluate`)."""
        __tracebackhide__ = True
        return await asyncio.to_thread(self.assert_rag, sample, **thresholds)
