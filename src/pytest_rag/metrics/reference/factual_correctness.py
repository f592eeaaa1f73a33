"""Factual correctness: do the claims of the answer and of the reference entail each other?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...errors import InputError
from ...helper_forms import Check, given, score_form
from ...inputs import Sample
from ...results import Evidence, Highlights
from ...scoring import precision_recall_f1
from ..base import Asker, Metric, Scale, Scored
from ..judging import judge_request
from ..options import read_choice
from ..prompts import REASONING, Template, block, numbered_list
from ..statements import extract_statements, verdicts_in_order

FACTUAL_CLAIMS_EXTRACT = Template(
    id="factual_correctness.claims.extract",
    version="1",
    task=(
        "Task: break the text into atomic factual claims: short standalone sentences, one fact each, "
        "with pronouns resolved. Restate only what the text asserts. A text without factual content "
        "gives an empty list."
    ),
    scale="",
    fields={"claims": "list of claim strings"},
)


FACTUAL_CLAIMS_VERIFY = Template(
    id="factual_correctness.claims.verify",
    version="1",
    task=(
        "Task: for each numbered claim, decide its relation to the premise text: 'entailment' when the "
        "premise states or directly implies it, 'contradiction' when the premise states the opposite "
        "or an incompatible fact, 'neutral' otherwise. Use only the premise, not your own knowledge."
    ),
    scale="",
    fields={
        "verdicts": 'list with one object per claim, in order: {"index": claim number, "reasoning": '
        'one to three sentences, "verdict": "entailment" | "neutral" | "contradiction"}'
    },
)


Entailment = Literal["entailment", "neutral", "contradiction"]


class EntailmentCheck(BaseModel):
    index: int = Field(description="number of the claim this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    verdict: Entailment = Field(description="entailment, neutral or contradiction")


class EntailmentChecks(BaseModel):
    verdicts: list[EntailmentCheck] = Field(description="one verdict per claim, in the order given")


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


class FactualCorrectnessHelpers:
    """The ``rag_judge`` helpers of factual correctness."""

    @score_form("factual_correctness")
    def factual_correctness(
        self, output: str, reference: str, *, score: str | None = None, threshold: float | None = None
    ) -> Check:
        """F1 (or precision/recall) of the claims of answer and reference entailing each other."""
        return Check(answer=output, reference=reference, threshold=threshold, options=given(score=score))

    assert_factual_correctness, afactual_correctness, aassert_factual_correctness = (
        factual_correctness.other_forms()
    )
