"""Agreement: does the answer say what the reference says, in meaning (judged 0-5, by embeddings,
or rated twice) or claim by claim?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...errors import InputError
from ...helper_forms import Check, given, score_form
from ...inputs import Sample
from ...results import Evidence, Highlights
from ...scoring import precision_recall_f1
from ...scoring.similarity import cosine
from ..base import Asker, Metric, Scale, Scored
from ..dual_rating import DualTemplateMetric, Wording, dual_rating_question, level_rating
from ..judging import LIST_TOKENS, SingleJudgment
from ..options import read_choice, read_text
from ..prompts import (
    LENGTH_RULE,
    REASONING,
    ReasonedVerdict,
    Template,
    block,
)
from ..statements import NumberedQuestion, claim_list_fields, extract_statements
from ..verdict_shapes import Asked, numbered_verdicts_question

# -- answer similarity -------------------------------------------------------------------------

ANSWER_SIMILARITY = Template(
    id="answer_similarity.score",
    version="2",
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
    length_rule=LENGTH_RULE,
)


class SimilarityVerdict(ReasonedVerdict):
    differences: list[str] = Field(
        description="meaningful differences between answer and reference; empty if none"
    )
    score: Literal[0, 1, 2, 3, 4, 5] = Field(description="the score on the 0-5 scale")


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


# -- answer accuracy ---------------------------------------------------------------------------

AccuracyRating = level_rating("AccuracyRating", (0, 2, 4), module=__name__)

ANSWER_ACCURACY = dual_rating_question(
    "answer_accuracy",
    AccuracyRating,
    Wording(
        task=(
            "Task: compare the response with the reference answer to the question and rate their "
            "agreement. Judge the facts and conclusions, not the wording."
        ),
        ratings={
            4: "the response agrees exactly with the reference.",
            2: "the response agrees with the reference only in part.",
            0: "the response is wrong, or does not answer the same question as the reference.",
        },
    ),
    Wording(
        task=(
            "Task: you are given a question, a candidate reply (in the response block) and a trusted "
            "answer (in the reference block). Say how closely the candidate matches the trusted answer "
            "in substance."
        ),
        ratings={
            0: "they disagree, or the candidate addresses a different question.",
            2: "they share part of their substance.",
            4: "they state the same thing.",
        },
    ),
)


class AnswerAccuracy(DualTemplateMetric):
    """Does the answer agree with the reference answer?

    The NVIDIA metric of RAGAS: two 0/2/4 ratings by two differently worded templates, averaged
    (:mod:`..dual_rating`); the second template swaps the roles, presenting the reference as the
    response under judgment and the answer as the reference.
    """

    name = "answer_accuracy"
    question = ANSWER_ACCURACY
    default_threshold = 2
    required = ("question", "answer", "reference")

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        reference = sample.reference or ""
        # Template 2 swaps the roles: the reference is judged against the answer.
        response, gold = (sample.answer, reference) if which == 0 else (reference, sample.answer)
        user = "\n\n".join(
            [block("question", sample.question), block("response", response), block("reference", gold)]
        )
        return user, {"question": sample.question, "response": response, "reference": gold}


# -- factual correctness -----------------------------------------------------------------------

FACTUAL_CLAIMS_EXTRACT = Template(
    id="factual_correctness.claims.extract",
    version="2",
    task=(
        "Task: break the text into atomic factual claims: short standalone sentences, one fact each, "
        "with pronouns resolved. Restate only what the text asserts. A text without factual content "
        "gives an empty list."
    ),
    fields=claim_list_fields("list of claim strings"),
    length_rule="",
)


Entailment = Literal["entailment", "neutral", "contradiction"]


FACTUAL_CLAIMS_VERIFY = numbered_verdicts_question(
    module=__name__,
    id="factual_correctness.claims.verify",
    version="2",
    task=(
        "Task: for each numbered claim, decide its relation to the premise text: 'entailment' when the "
        "premise states or directly implies it, 'contradiction' when the premise states the opposite "
        "or an incompatible fact, 'neutral' otherwise. Use only the premise, not your own knowledge."
    ),
    item="claim",
    answers={
        "verdict": Asked(
            Entailment, '"entailment" | "neutral" | "contradiction"', "entailment, neutral or contradiction"
        )
    },
    verdict="EntailmentChecks",
    item_verdict="EntailmentCheck",
    length_rule="",
)


class CheckedClaim(BaseModel):
    claim: str
    verdict: Entailment
    reason: str = ""


class FactualCorrectnessEvidence(Evidence):
    generated_claims: list[CheckedClaim] = Field(default_factory=list)
    expected_claims: list[CheckedClaim] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        """Claims the other text contradicts (a merely unsupported claim is not marked)."""
        claims = [*self.generated_claims, *self.expected_claims]
        return Highlights(statements=[c.claim for c in claims if c.verdict == "contradiction"])


async def verify_claims(
    ask: Asker, metric: str, claims: Sequence[str], premise: str, premise_tag: str
) -> list[CheckedClaim]:
    if not claims:
        return []
    if not premise.strip():
        return [
            CheckedClaim(claim=c, verdict="neutral", reason=f"the {premise_tag} is empty") for c in claims
        ]
    verification = NumberedQuestion(
        metric,
        FACTUAL_CLAIMS_VERIFY,
        [block(premise_tag, premise)],
        "claim",
        "claims",
        max_tokens=LIST_TOKENS,
    )
    ordered = await verification.judge(ask, claims, {"claims": list(claims), "premise": premise})
    return [
        CheckedClaim(claim=c, verdict=v.verdict, reason=v.reasoning)
        for c, v in zip(claims, ordered, strict=True)
    ]


class FactualCorrectness(Metric):
    """Do the answer's claims and the reference's claims entail each other?

    Open RAG Eval's factual correctness: claims of both texts (two extraction calls), each side's
    claims checked for entailment by the other text (up to two verification calls); precision =
    entailed answer claims / answer claims, recall = entailed reference claims / reference claims,
    F1 their harmonic mean (edge cases as in :mod:`pytest_rag.scoring.fscore`). Both claim lists are
    kept.
    """

    name = "factual_correctness"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("reference",)
    options = ("score",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        headline = read_choice(options, "score", "f1", ("f1", "precision", "recall"), metric=self.name)
        reference = sample.reference or ""

        async def extract(text: str, tag: str) -> list[str]:
            if not text.strip():
                return []  # an empty answer asserts nothing: no call needed
            return await extract_statements(ask, self.name, FACTUAL_CLAIMS_EXTRACT, tag, text)

        generated, expected = await ask.gather(
            extract(sample.answer, "answer"), extract(reference, "reference")
        )
        checked_generated, checked_expected = await ask.gather(
            verify_claims(ask, self.name, generated, reference, "reference"),
            verify_claims(ask, self.name, expected, sample.answer, "answer"),
        )
        tp_generated = sum(1 for c in checked_generated if c.verdict == "entailment")
        tp_expected = sum(1 for c in checked_expected if c.verdict == "entailment")
        prf = precision_recall_f1(tp_generated, len(generated), tp_expected, len(expected))
        value = {"f1": prf.f1, "precision": prf.precision, "recall": prf.recall}[headline]
        if value is None:
            raise InputError(
                f"factual_correctness: the {headline} is undefined here (answer claims: {len(generated)}, "
                f"reference claims: {len(expected)}); a reference with no factual claim cannot be checked "
                "against, give one that states the expected facts"
            )
        details = {
            name: v
            for name, v in (("precision", prf.precision), ("recall", prf.recall), ("f1", prf.f1))
            if v is not None
        }
        details.update({"generated_claims": float(len(generated)), "expected_claims": float(len(expected))})
        return Scored(
            score=value,
            reasons=f"{tp_generated} of {len(generated)} answer claims follow from the reference; "
            f"{tp_expected} of {len(expected)} reference claims follow from the answer.",
            evidence=FactualCorrectnessEvidence(
                generated_claims=checked_generated, expected_claims=checked_expected
            ),
            details=details,
        )


class AgreementHelpers:
    """The ``rag_judge`` helpers of answer similarity, semantic similarity, answer accuracy and
    factual correctness."""

    @score_form("answer_similarity")
    def answer_similarity(
        self, answer: str, reference: str, *, question: str | None = None, threshold: float | None = None
    ) -> Check:
        """0-5 judgment of how well the answer matches the reference in meaning."""
        return Check(answer=answer, reference=reference, question=question, threshold=threshold)

    assert_answer_similarity, aanswer_similarity, aassert_answer_similarity = answer_similarity.other_forms()

    @score_form("semantic_similarity")
    def semantic_similarity(
        self,
        answer: str,
        reference: str,
        *,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Cosine of the answer's and reference's embeddings."""
        options = given(embedding_model=embedding_model)
        return Check(answer=answer, reference=reference, threshold=threshold, options=options)

    assert_semantic_similarity, asemantic_similarity, aassert_semantic_similarity = (
        semantic_similarity.other_forms()
    )

    @score_form("answer_accuracy")
    def answer_accuracy(
        self, answer: str, reference: str, question: str, threshold: float | None = None
    ) -> Check:
        """Two 0/2/4 judgments (roles swapped in the second), averaged."""
        return Check(answer=answer, reference=reference, question=question, threshold=threshold)

    assert_answer_accuracy, aanswer_accuracy, aassert_answer_accuracy = answer_accuracy.other_forms()

    @score_form("factual_correctness")
    def factual_correctness(
        self, answer: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> Check:
        """F1 (or precision/recall) of the claims of answer and reference entailing each other."""
        return Check(answer=answer, reference=reference, threshold=threshold, options=given(score=score))

    assert_factual_correctness, afactual_correctness, aassert_factual_correctness = (
        factual_correctness.other_forms()
    )
