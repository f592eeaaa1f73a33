"""Named helpers for every catalog metric beyond the three core ones: a score form returning the typed
result, an ``assert_*`` form failing the test below the threshold, and ``a``-prefixed async twins.

Each is a one-line delegation to the generic ``score``/``assert_score``/``ascore``/``aassert_score`` of
:class:`~pytest_rag.rag_judge.RagJudge`, which inherits this mixin; inputs that are not part of a
sample (k values, citations, rubric levels, several answers) travel as metric options.
``overall_score`` is computed from results and records itself in the session results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .inputs import ContextLike
from .results import CheckRecord, MetricResult

if TYPE_CHECKING:
    from .session import RagSession


def _opts(**options: Any) -> dict[str, Any]:
    """The options that were given (None means 'use the metric's default')."""
    return {name: value for name, value in options.items() if value is not None}


class CatalogHelpers:
    """Mixin of :class:`~pytest_rag.rag_judge.RagJudge`; see docs/metrics.md for each metric."""

    if TYPE_CHECKING:
        _session: RagSession
        test_id: str

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
        ) -> MetricResult: ...

        def assert_score(
            self, metric: str, *, threshold: float | None = None, **kwargs: Any
        ) -> MetricResult: ...

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
        ) -> MetricResult: ...

        async def aassert_score(
            self, metric: str, *, threshold: float | None = None, **kwargs: Any
        ) -> MetricResult: ...

    def faithfulness_claims(
        self,
        output: str,
        context: ContextLike,
        *,
        batch_size: int | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Share of the answer's claims the context supports (claims extracted, verified in batches)."""
        return self.score(
            "faithfulness",
            mode="claims",
            answer=output,
            context=context,
            **_opts(batch_size=batch_size),
            threshold=threshold,
        )

    def assert_faithful_claims(
        self,
        output: str,
        context: ContextLike,
        *,
        batch_size: int | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "faithfulness",
            mode="claims",
            answer=output,
            context=context,
            **_opts(batch_size=batch_size),
            threshold=threshold,
        )

    async def afaithfulness_claims(
        self,
        output: str,
        context: ContextLike,
        *,
        batch_size: int | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "faithfulness",
            mode="claims",
            answer=output,
            context=context,
            **_opts(batch_size=batch_size),
            threshold=threshold,
        )

    async def aassert_faithful_claims(
        self,
        output: str,
        context: ContextLike,
        *,
        batch_size: int | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "faithfulness",
            mode="claims",
            answer=output,
            context=context,
            **_opts(batch_size=batch_size),
            threshold=threshold,
        )

    def answer_relevancy_questions(
        self,
        output: str,
        prompt: str,
        *,
        n_questions: int | None = None,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Mean cosine between the question and questions generated from the answer."""
        return self.score(
            "answer_relevancy",
            mode="questions",
            answer=output,
            question=prompt,
            **_opts(n_questions=n_questions, embedding_model=embedding_model),
            threshold=threshold,
        )

    def assert_relevant_questions(
        self,
        output: str,
        prompt: str,
        *,
        n_questions: int | None = None,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "answer_relevancy",
            mode="questions",
            answer=output,
            question=prompt,
            **_opts(n_questions=n_questions, embedding_model=embedding_model),
            threshold=threshold,
        )

    async def aanswer_relevancy_questions(
        self,
        output: str,
        prompt: str,
        *,
        n_questions: int | None = None,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "answer_relevancy",
            mode="questions",
            answer=output,
            question=prompt,
            **_opts(n_questions=n_questions, embedding_model=embedding_model),
            threshold=threshold,
        )

    async def aassert_relevant_questions(
        self,
        output: str,
        prompt: str,
        *,
        n_questions: int | None = None,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "answer_relevancy",
            mode="questions",
            answer=output,
            question=prompt,
            **_opts(n_questions=n_questions, embedding_model=embedding_model),
            threshold=threshold,
        )

    def context_recall_attribution(
        self, reference: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Share of the reference's facts found in the contexts, each with its 1-indexed source."""
        return self.score(
            "context_recall", mode="attribution", reference=reference, context=context, threshold=threshold
        )

    def assert_context_recall_attribution(
        self, reference: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "context_recall", mode="attribution", reference=reference, context=context, threshold=threshold
        )

    async def acontext_recall_attribution(
        self, reference: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "context_recall", mode="attribution", reference=reference, context=context, threshold=threshold
        )

    async def aassert_context_recall_attribution(
        self, reference: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "context_recall", mode="attribution", reference=reference, context=context, threshold=threshold
        )

    def context_precision(
        self,
        question: str,
        context: ContextLike,
        *,
        reference: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Average precision of the passages judged useful, over their ranks."""
        return self.score(
            "context_precision", question=question, context=context, reference=reference, threshold=threshold
        )

    def assert_context_precision(
        self,
        question: str,
        context: ContextLike,
        *,
        reference: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "context_precision", question=question, context=context, reference=reference, threshold=threshold
        )

    async def acontext_precision(
        self,
        question: str,
        context: ContextLike,
        *,
        reference: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "context_precision", question=question, context=context, reference=reference, threshold=threshold
        )

    async def aassert_context_precision(
        self,
        question: str,
        context: ContextLike,
        *,
        reference: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "context_precision", question=question, context=context, reference=reference, threshold=threshold
        )

    def umbrela(
        self,
        question: str,
        context: ContextLike,
        *,
        k_values: Sequence[int] | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """UMBRELA 0-3 grade per passage; mean grade, with P@k, AP@k and MRR in the details."""
        return self.score(
            "umbrela", question=question, context=context, **_opts(k_values=k_values), threshold=threshold
        )

    def assert_umbrela(
        self,
        question: str,
        context: ContextLike,
        *,
        k_values: Sequence[int] | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "umbrela", question=question, context=context, **_opts(k_values=k_values), threshold=threshold
        )

    async def aumbrela(
        self,
        question: str,
        context: ContextLike,
        *,
        k_values: Sequence[int] | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "umbrela", question=question, context=context, **_opts(k_values=k_values), threshold=threshold
        )

    async def aassert_umbrela(
        self,
        question: str,
        context: ContextLike,
        *,
        k_values: Sequence[int] | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "umbrela", question=question, context=context, **_opts(k_values=k_values), threshold=threshold
        )

    def retrieval_precision(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Share of retrieved passages relevant to the question."""
        return self.score("retrieval_precision", question=question, context=context, threshold=threshold)

    def assert_retrieval_precision(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "retrieval_precision", question=question, context=context, threshold=threshold
        )

    async def aretrieval_precision(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "retrieval_precision", question=question, context=context, threshold=threshold
        )

    async def aassert_retrieval_precision(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "retrieval_precision", question=question, context=context, threshold=threshold
        )

    def augmentation_precision(
        self, output: str, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Share of the relevant passages whose information appears in the answer."""
        return self.score(
            "augmentation_precision", answer=output, question=question, context=context, threshold=threshold
        )

    def assert_augmentation_precision(
        self, output: str, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "augmentation_precision", answer=output, question=question, context=context, threshold=threshold
        )

    async def aaugmentation_precision(
        self, output: str, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "augmentation_precision", answer=output, question=question, context=context, threshold=threshold
        )

    async def aassert_augmentation_precision(
        self, output: str, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "augmentation_precision", answer=output, question=question, context=context, threshold=threshold
        )

    def augmentation_accuracy(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Share of retrieved passages whose information appears in the answer."""
        return self.score("augmentation_accuracy", answer=output, context=context, threshold=threshold)

    def assert_augmentation_accuracy(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score("augmentation_accuracy", answer=output, context=context, threshold=threshold)

    async def aaugmentation_accuracy(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore("augmentation_accuracy", answer=output, context=context, threshold=threshold)

    async def aassert_augmentation_accuracy(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "augmentation_accuracy", answer=output, context=context, threshold=threshold
        )

    def answer_consistency(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Share of the answer's main points attributable to the contexts."""
        return self.score("answer_consistency", answer=output, context=context, threshold=threshold)

    def assert_answer_consistency(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score("answer_consistency", answer=output, context=context, threshold=threshold)

    async def aanswer_consistency(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore("answer_consistency", answer=output, context=context, threshold=threshold)

    async def aassert_answer_consistency(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "answer_consistency", answer=output, context=context, threshold=threshold
        )

    def answer_consistency_binary(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """1 when everything in the answer derives from the contexts, else 0."""
        return self.score("answer_consistency_binary", answer=output, context=context, threshold=threshold)

    def assert_answer_consistency_binary(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "answer_consistency_binary", answer=output, context=context, threshold=threshold
        )

    async def aanswer_consistency_binary(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "answer_consistency_binary", answer=output, context=context, threshold=threshold
        )

    async def aassert_answer_consistency_binary(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "answer_consistency_binary", answer=output, context=context, threshold=threshold
        )

    def answer_similarity(
        self, output: str, reference: str, *, question: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        """0-5 judgment of how well the answer matches the reference in meaning."""
        return self.score(
            "answer_similarity", answer=output, reference=reference, question=question, threshold=threshold
        )

    def assert_answer_similarity(
        self, output: str, reference: str, *, question: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "answer_similarity", answer=output, reference=reference, question=question, threshold=threshold
        )

    async def aanswer_similarity(
        self, output: str, reference: str, *, question: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "answer_similarity", answer=output, reference=reference, question=question, threshold=threshold
        )

    async def aassert_answer_similarity(
        self, output: str, reference: str, *, question: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "answer_similarity", answer=output, reference=reference, question=question, threshold=threshold
        )

    def semantic_similarity(
        self,
        output: str,
        reference: str,
        *,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Cosine of the answer's and reference's embeddings."""
        return self.score(
            "semantic_similarity",
            answer=output,
            reference=reference,
            **_opts(embedding_model=embedding_model),
            threshold=threshold,
        )

    def assert_semantic_similarity(
        self,
        output: str,
        reference: str,
        *,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "semantic_similarity",
            answer=output,
            reference=reference,
            **_opts(embedding_model=embedding_model),
            threshold=threshold,
        )

    async def asemantic_similarity(
        self,
        output: str,
        reference: str,
        *,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "semantic_similarity",
            answer=output,
            reference=reference,
            **_opts(embedding_model=embedding_model),
            threshold=threshold,
        )

    async def aassert_semantic_similarity(
        self,
        output: str,
        reference: str,
        *,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "semantic_similarity",
            answer=output,
            reference=reference,
            **_opts(embedding_model=embedding_model),
            threshold=threshold,
        )

    def factual_correctness(
        self, output: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        """F1 (or precision/recall) of the claims of answer and reference entailing each other."""
        return self.score(
            "factual_correctness",
            answer=output,
            reference=reference,
            **_opts(score=score),
            threshold=threshold,
        )

    def assert_factual_correctness(
        self, output: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "factual_correctness",
            answer=output,
            reference=reference,
            **_opts(score=score),
            threshold=threshold,
        )

    async def afactual_correctness(
        self, output: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "factual_correctness",
            answer=output,
            reference=reference,
            **_opts(score=score),
            threshold=threshold,
        )

    async def aassert_factual_correctness(
        self, output: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "factual_correctness",
            answer=output,
            reference=reference,
            **_opts(score=score),
            threshold=threshold,
        )

    def nuggets(
        self,
        output: str,
        question: str,
        context: ContextLike,
        *,
        umbrela_grades: Sequence[int] | None = None,
        score: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """AutoNuggetizer score: nuggets from the passages, labelled vital/okay, assigned to the answer."""
        return self.score(
            "nuggets",
            answer=output,
            question=question,
            context=context,
            **_opts(umbrela_grades=umbrela_grades, score=score),
            threshold=threshold,
        )

    def assert_nuggets(
        self,
        output: str,
        question: str,
        context: ContextLike,
        *,
        umbrela_grades: Sequence[int] | None = None,
        score: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "nuggets",
            answer=output,
            question=question,
            context=context,
            **_opts(umbrela_grades=umbrela_grades, score=score),
            threshold=threshold,
        )

    async def anuggets(
        self,
        output: str,
        question: str,
        context: ContextLike,
        *,
        umbrela_grades: Sequence[int] | None = None,
        score: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "nuggets",
            answer=output,
            question=question,
            context=context,
            **_opts(umbrela_grades=umbrela_grades, score=score),
            threshold=threshold,
        )

    async def aassert_nuggets(
        self,
        output: str,
        question: str,
        context: ContextLike,
        *,
        umbrela_grades: Sequence[int] | None = None,
        score: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "nuggets",
            answer=output,
            question=question,
            context=context,
            **_opts(umbrela_grades=umbrela_grades, score=score),
            threshold=threshold,
        )

    def citation(
        self,
        citations: Sequence[Any],
        context: ContextLike,
        *,
        output: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """F1 of the support the cited passages give the answer parts that cite them."""
        return self.score(
            "citation", answer=output, context=context, citations=citations, threshold=threshold
        )

    def assert_citations(
        self,
        citations: Sequence[Any],
        context: ContextLike,
        *,
        output: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "citation", answer=output, context=context, citations=citations, threshold=threshold
        )

    async def acitation(
        self,
        citations: Sequence[Any],
        context: ContextLike,
        *,
        output: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "citation", answer=output, context=context, citations=citations, threshold=threshold
        )

    async def aassert_citations(
        self,
        citations: Sequence[Any],
        context: ContextLike,
        *,
        output: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "citation", answer=output, context=context, citations=citations, threshold=threshold
        )

    def hallucination(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """0-1 factual consistency of the answer with the passages (HHEM-style; higher is better)."""
        return self.score("hallucination", answer=output, context=context, threshold=threshold)

    def assert_no_hallucination(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score("hallucination", answer=output, context=context, threshold=threshold)

    async def ahallucination(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore("hallucination", answer=output, context=context, threshold=threshold)

    async def aassert_no_hallucination(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score("hallucination", answer=output, context=context, threshold=threshold)

    def no_answer(self, output: str, question: str, threshold: float | None = None) -> MetricResult:
        """1 when the answer attempts the question, 0 when it declines."""
        return self.score("no_answer", answer=output, question=question, threshold=threshold)

    def assert_answered(self, output: str, question: str, threshold: float | None = None) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score("no_answer", answer=output, question=question, threshold=threshold)

    async def ano_answer(self, output: str, question: str, threshold: float | None = None) -> MetricResult:
        return await self.ascore("no_answer", answer=output, question=question, threshold=threshold)

    async def aassert_answered(
        self, output: str, question: str, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score("no_answer", answer=output, question=question, threshold=threshold)

    def answer_accuracy(
        self, output: str, reference: str, question: str, threshold: float | None = None
    ) -> MetricResult:
        """Two 0/2/4 judgments (roles swapped in the second), averaged."""
        return self.score(
            "answer_accuracy", answer=output, reference=reference, question=question, threshold=threshold
        )

    def assert_answer_accuracy(
        self, output: str, reference: str, question: str, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "answer_accuracy", answer=output, reference=reference, question=question, threshold=threshold
        )

    async def aanswer_accuracy(
        self, output: str, reference: str, question: str, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore(
            "answer_accuracy", answer=output, reference=reference, question=question, threshold=threshold
        )

    async def aassert_answer_accuracy(
        self, output: str, reference: str, question: str, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "answer_accuracy", answer=output, reference=reference, question=question, threshold=threshold
        )

    def context_relevance(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Two 0/1/2 judgments of the contexts' relevance to the question, averaged."""
        return self.score("context_relevance", question=question, context=context, threshold=threshold)

    def assert_context_relevance(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score("context_relevance", question=question, context=context, threshold=threshold)

    async def acontext_relevance(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore("context_relevance", question=question, context=context, threshold=threshold)

    async def aassert_context_relevance(
        self, question: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "context_relevance", question=question, context=context, threshold=threshold
        )

    def response_groundedness(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        """Two 0/1/2 judgments of the answer's grounding in the contexts, averaged."""
        return self.score("response_groundedness", answer=output, context=context, threshold=threshold)

    def assert_grounded(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score("response_groundedness", answer=output, context=context, threshold=threshold)

    async def aresponse_groundedness(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        return await self.ascore("response_groundedness", answer=output, context=context, threshold=threshold)

    async def aassert_grounded(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "response_groundedness", answer=output, context=context, threshold=threshold
        )

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
    ) -> MetricResult:
        """One judgment against the levels of a rubric the test writes."""
        return self.score(
            "rubric",
            answer=output,
            question=question,
            context=context,
            reference=reference,
            rubric=rubric,
            **_opts(criteria=criteria),
            threshold=threshold,
        )

    def assert_rubric(
        self,
        output: str,
        rubric: Mapping[int, str],
        *,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        criteria: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "rubric",
            answer=output,
            question=question,
            context=context,
            reference=reference,
            rubric=rubric,
            **_opts(criteria=criteria),
            threshold=threshold,
        )

    async def arubric(
        self,
        output: str,
        rubric: Mapping[int, str],
        *,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        criteria: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "rubric",
            answer=output,
            question=question,
            context=context,
            reference=reference,
            rubric=rubric,
            **_opts(criteria=criteria),
            threshold=threshold,
        )

    async def aassert_rubric(
        self,
        output: str,
        rubric: Mapping[int, str],
        *,
        question: str | None = None,
        context: ContextLike = None,
        reference: str | None = None,
        criteria: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "rubric",
            answer=output,
            question=question,
            context=context,
            reference=reference,
            rubric=rubric,
            **_opts(criteria=criteria),
            threshold=threshold,
        )

    def consistency(
        self,
        answers: Sequence[str],
        *,
        question: str | None = None,
        scores: Mapping[str, Sequence[Any]] | None = None,
        embedding_model: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        """Agreement of several answers to one question (pairwise ROUGE and embeddings) and the spread of their metric scores."""
        return self.score(
            "consistency",
            question=question,
            mode=mode,
            answers=answers,
            **_opts(scores=scores, embedding_model=embedding_model),
            threshold=threshold,
        )

    def assert_consistent(
        self,
        answers: Sequence[str],
        *,
        question: str | None = None,
        scores: Mapping[str, Sequence[Any]] | None = None,
        embedding_model: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return self.assert_score(
            "consistency",
            question=question,
            mode=mode,
            answers=answers,
            **_opts(scores=scores, embedding_model=embedding_model),
            threshold=threshold,
        )

    async def aconsistency(
        self,
        answers: Sequence[str],
        *,
        question: str | None = None,
        scores: Mapping[str, Sequence[Any]] | None = None,
        embedding_model: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        return await self.ascore(
            "consistency",
            question=question,
            mode=mode,
            answers=answers,
            **_opts(scores=scores, embedding_model=embedding_model),
            threshold=threshold,
        )

    async def aassert_consistent(
        self,
        answers: Sequence[str],
        *,
        question: str | None = None,
        scores: Mapping[str, Sequence[Any]] | None = None,
        embedding_model: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        __tracebackhide__ = True
        return await self.aassert_score(
            "consistency",
            question=question,
            mode=mode,
            answers=answers,
            **_opts(scores=scores, embedding_model=embedding_model),
            threshold=threshold,
        )

    # -- computed from results, not judged -------------------------------------------------------

    def overall_score(self, results: Sequence[MetricResult], threshold: float | None = None) -> MetricResult:
        """Tonic's overall score: the mean normalised score of the metrics that ran (no judge call);
        recorded in the session results like any check."""
        from .metrics.overall import NAME, overall_score

        result = overall_score(results, self._session.threshold_for(NAME, None, threshold))
        record = CheckRecord.from_result(self.test_id, result)
        self._session.results.add(record)
        self._session.config.hook.pytest_rag_check_recorded(record=record)
        return result

    def assert_overall_score(
        self, results: Sequence[MetricResult], threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        from .errors import InputError
        from .failures import RagAssertionError

        result = self.overall_score(results, threshold)
        if result.threshold is None:
            raise InputError("overall_score has no default threshold; pass threshold=... to assert on it")
        if not result.passed:
            raise RagAssertionError(result)
        return result
