"""Metrics that compare the answer with a reference (gold) answer.

* ``answer_similarity`` (Tonic Validate): one judgment, 0-5, of how well the answer matches the
  reference in meaning.
* ``semantic_similarity`` (Open RAG Eval): cosine of the two texts' embeddings, no judge call; the
  embedder is the judge's (see :mod:`pytest_rag.engine.embeddings`). Negative cosines count as 0.
* ``factual_correctness`` (Open RAG Eval): claims of both texts (two extraction calls), each side's claims
  checked for entailment by the other text (up to two verification calls); precision = entailed
  answer claims / answer claims, recall = entailed reference claims / reference claims, F1 their
  harmonic mean (edge cases as in :mod:`pytest_rag.scoring.fscore`). Both claim lists are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError
from ..inputs import Sample
from ..scoring import precision_recall_f1
from ..scoring.similarity import cosine
from .base import Asker, Metric, Scale, Scored
from .claims import verdicts_in_order
from .evidence import CheckedClaim, FactualCorrectnessEvidence, SemanticSimilarityEvidence, SimilarityEvidence
from .prompts import block, numbered_list
from .templates import ANSWER_SIMILARITY, FACTUAL_CLAIMS_EXTRACT, FACTUAL_CLAIMS_VERIFY
from .toolkit import SingleJudgment, judge_request, read_choice, read_text
from .verdicts import ClaimList, EntailmentChecks, SimilarityVerdict


class AnswerSimilarity(SingleJudgment):
    """Does the answer mean the same as the reference answer?"""

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


class SemanticSimilarity(Metric):
    """How close in meaning are the answer and the reference, by embeddings?"""

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


async def verify_claims(
    ask: Asker, metric: str, claims: Sequence[str], premise: str, premise_tag: str
) -> list[CheckedClaim]:
    if not claims:
        return []
    if not premise.strip():
        return [
            CheckedClaim(claim=c, verdict="neutral", reason=f"the {premise_tag} is empty") for c in claims
        ]
    user = "\n\n".join([block(premise_tag, premise), numbered_list("claim", list(claims))])
    request = judge_request(
        metric,
        FACTUAL_CLAIMS_VERIFY,
        user,
        EntailmentChecks,
        {"claims": list(claims), "premise": premise},
        max_tokens=2048,
    )
    reply = await ask(request, EntailmentChecks)
    ordered = verdicts_in_order(metric, ask.judge_label, reply.verdicts, len(claims), "claims")
    return [
        CheckedClaim(claim=c, verdict=v.verdict, reason=v.reasoning)
        for c, v in zip(claims, ordered, strict=True)
    ]


class FactualCorrectness(Metric):
    """Do the answer's claims and the reference's claims entail each other?"""

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
            request = judge_request(
                self.name,
                FACTUAL_CLAIMS_EXTRACT,
                block(tag, text),
                ClaimList,
                {"text": text},
                max_tokens=2048,
            )
            return [c.strip() for c in (await ask(request, ClaimList)).claims if c.strip()]

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
