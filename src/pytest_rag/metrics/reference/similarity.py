"""Similarity: how closely does the answer match the reference in meaning, judged, embedded or rated twice?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...helper_forms import Check, given, score_form
from ...inputs import Sample
from ...results import Evidence
from ...scoring.similarity import cosine
from ..base import Asker, Metric, Scale, Scored
from ..dual_rating import DualTemplateMetric
from ..judging import SingleJudgment
from ..options import read_text
from ..prompts import REASONING, SHORT_REASON, Template, block

ANSWER_SIMILARITY = Template(
    id="answer_similarity.score",
    version="1",
    task=(
        "Task: rate how well the answer matches the reference answer in meaning, as a reply to the "
        "question. Wording does not matter; the facts and conclusions do. Missing, extra or "
        "conflicting facts lower the rating."
    ),
    scale=(
        "Scale:\n"
        "5 - same meaning: every fact of the reference is there and nothing conflicts.\n"
        "4 - nearly the same; a minor detail is missing or added.\n"
        "3 - the main point agrees but several details are missing or differ.\n"
        "2 - only a small part agrees.\n"
        "1 - barely related to the reference.\n"
        "0 - unrelated to, or contradicting, the reference."
    ),
    fields={
        "reasoning": REASONING,
        "differences": "list of meaningful differences",
        "score": "integer 0-5",
    },
)


class SimilarityVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    differences: list[str] = Field(
        description="meaningful differences between answer and reference; empty if none"
    )
    score: int = Field(ge=0, le=5, description="the score on the 0-5 scale")


class SimilarityEvidence(Evidence):
    differences: list[str] = Field(default_factory=list)


class AnswerSimilarity(SingleJudgment):
    """Does the answer mean the same as the reference answer?

    Tonic Validate's answer similarity: one judgment, 0-5, of how well the answer matches the
    reference in meaning.
    """

    name = "answer_similarity"
    scale = Scale(0, 5)
    default_threshold = 3
    required = ("answer", "reference")
    template = ANSWER_SIMILARITY
    verdict = SimilarityVerdict

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        parts = [block("question", sample.question)] if sample.question.strip() else []
        parts += [block("reference", sample.reference or ""), block("answer", sample.answer)]
        inputs = {"question": sample.question, "answer": sample.answer, "reference": sample.reference}
        return "\n\n".join(parts), inputs

    def scored(self, verdict: SimilarityVerdict) -> Scored:
        evidence = SimilarityEvidence(differences=verdict.differences)
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)


# -- semantic similarity -----------------------------------------------------------------------


class SemanticSimilarityEvidence(Evidence):
    cosine: float
    embedding_model: str = ""


class SemanticSimilarity(Metric):
    """How close in meaning are the answer and the reference, by embeddings?

    Open RAG Eval's semantic similarity: the cosine of the two texts' embeddings, no judge call; the
    embedder is the judge's (see :mod:`pytest_rag.engine.embeddings`). Negative cosines count as 0.
    """

    name = "semantic_similarity"
    scale = Scale(0, 1)
    default_threshold = None
    required = ("answer", "reference")
    options = ("embedding_model",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        model = read_text(options, "embedding_model", metric=self.name)
        vectors = await ask.embed([sample.answer, sample.reference or ""], model)
        value = cosine(vectors[0], vectors[1])
        return Scored(
            score=max(0.0, value),
            reasons=f"Cosine similarity of the answer and reference embeddings: {value:.3f}.",
            evidence=SemanticSimilarityEvidence(cosine=value, embedding_model=model or ""),
            details={"cosine": value},
        )


ACCURACY_1 = Template(
    id="answer_accuracy.template1",
    version="1",
    task=(
        "Task: compare the response with the reference answer to the question and rate their "
        "agreement. Judge the facts and conclusions, not the wording."
    ),
    scale=(
        "Ratings:\n"
        "4 - the response agrees exactly with the reference.\n"
        "2 - the response agrees with the reference only in part.\n"
        "0 - the response is wrong, or does not answer the same question as the reference."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 2 or 4"},
)


ACCURACY_2 = Template(
    id="answer_accuracy.template2",
    version="1",
    task=(
        "Task: you are given a question, a candidate reply (in the response block) and a trusted "
        "answer (in the reference block). Say how closely the candidate matches the trusted answer "
        "in substance."
    ),
    scale=(
        "Ratings:\n"
        "0 - they disagree, or the candidate addresses a different question.\n"
        "2 - they share part of their substance.\n"
        "4 - they state the same thing."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 2 or 4"},
)


class AccuracyRating(BaseModel):
    reasoning: str = Field(description=SHORT_REASON)
    score: Literal[0, 2, 4] = Field(description="the rating: 0, 2 or 4")


class AnswerAccuracy(DualTemplateMetric):
    """Does the answer agree with the reference answer?

    The NVIDIA metric of RAGAS: two 0/2/4 ratings by two differently worded templates, averaged
    (:mod:`..dual_rating`); the second template swaps the roles, presenting the reference as the
    response under judgment and the answer as the reference.
    """

    name = "answer_accuracy"
    scale = Scale(0, 4)
    default_threshold = 2
    required = ("question", "answer", "reference")
    templates = (ACCURACY_1, ACCURACY_2)
    verdict = AccuracyRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        reference = sample.reference or ""
        # Template 2 swaps the roles: the reference is judged against the answer.
        response, gold = (sample.answer, reference) if which == 0 else (reference, sample.answer)
        user = "\n\n".join(
            [block("question", sample.question), block("response", response), block("reference", gold)]
        )
        return user, {"question": sample.question, "response": response, "reference": gold}


class SimilarityHelpers:
    """The ``rag_judge`` helpers of answer similarity, semantic similarity and answer accuracy."""

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

    @score_form("answer_accuracy")
    def answer_accuracy(
        self, output: str, reference: str, question: str, threshold: float | None = None
    ) -> Check:
        """Two 0/2/4 judgments (roles swapped in the second), averaged."""
        return Check(answer=output, reference=reference, question=question, threshold=threshold)

    assert_answer_accuracy, aanswer_accuracy, aassert_answer_accuracy = answer_accuracy.other_forms()
