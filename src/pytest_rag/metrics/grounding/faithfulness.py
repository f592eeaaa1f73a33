"""Faithfulness: is the answer supported by the retrieved contexts, judged whole or claim by claim?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from ...helper_forms import Check, given, score_form
from ...inputs import ContextLike, Sample
from ...results import Evidence, Highlights
from ..base import Asker, Metric, Scale, Scored
from ..judging import SingleJudgment, batch_count, batches, judge_request
from ..options import read_int
from ..prompts import REASONING, SCORE_REASONING, Template, block, context_blocks, numbered_list
from ..statements import extract_statements, verdicts_in_order


class UnsupportedStatements(Evidence):
    """Evidence of the grounding metrics: the answer's statements the judge found unsupported."""

    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))


# -- faithfulness ------------------------------------------------------------------------------

FAITHFULNESS_TEMPLATE = Template(
    id="faithfulness.single",
    version="1",
    task=(
        "Task: decide how well the answer is supported by the retrieved context. Consider every factual "
        "statement the answer makes and check whether the context states it or clearly implies it. "
        "Use only the context, not your own knowledge: a true statement that the context does not "
        "support still counts as unsupported."
    ),
    scale=(
        "Scale:\n"
        "5 - every statement is supported by the context; nothing is invented.\n"
        "4 - nearly all statements are supported; one or two minor details are not.\n"
        "3 - roughly half of the statements are supported.\n"
        "2 - most statements are unsupported.\n"
        "1 - the answer is invented or contradicts the context."
    ),
    fields={
        "reasoning": SCORE_REASONING,
        "unsupported_statements": "list of the answer's statements that the context does not support",
        "score": "integer 1-5",
    },
)


class FaithfulnessVerdict(BaseModel):
    reasoning: str = Field(description=SCORE_REASONING)
    unsupported_statements: list[str] = Field(
        description="statements of the answer that the context does not support or contradicts; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


class Faithfulness(SingleJudgment):
    """Is the answer supported by the retrieved context?

    One judgment on 1-5 anchors with the judge's reasons and the statements that cost points, as the
    omk RAG metrics specification defines faithfulness.
    """

    name = "faithfulness"
    scale = Scale(1, 5)
    default_threshold = 4
    required = ("answer", "contexts")
    template = FAITHFULNESS_TEMPLATE
    verdict = FaithfulnessVerdict

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        inputs: dict[str, Any] = {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}
        if sample.question:
            # For judges that read inputs (the offline judge turns "yes"/"no" into the claim it
            # makes). The prompt does not show it: faithfulness is judged against the context
            # alone, and LLM prompts and cache keys stay as they were.
            inputs["question"] = sample.question
        return user, inputs

    def scored(self, verdict: FaithfulnessVerdict) -> Scored:
        evidence = UnsupportedStatements(unsupported_statements=verdict.unsupported_statements)
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)


# -- faithfulness by claims --------------------------------------------------------------------

EXTRACT_CLAIMS = Template(
    id="faithfulness.claims.extract",
    version="1",
    task=(
        "Task: break the answer into its atomic factual claims. A claim is one short standalone "
        "sentence stating a single fact, with pronouns replaced by what they refer to. Leave out "
        "greetings, opinions, questions and statements about the answer itself. Do not add, merge or "
        "correct anything; only restate what the answer asserts. An answer with no factual content "
        "gives an empty list."
    ),
    scale="",
    fields={"claims": "list of claim strings"},
)


VERIFY_CLAIMS = Template(
    id="faithfulness.claims.verify",
    version="1",
    task=(
        "Task: for each numbered claim, decide whether the retrieved context supports it: the "
        "context states it or it follows directly from what the context states. Use only the "
        "context, not your own knowledge; a true claim the context does not back is not supported, "
        "and a claim that contradicts the context is not supported."
    ),
    scale="",
    fields={
        "verdicts": 'list with one object per claim, in order: {"index": claim number, "reasoning": '
        'one to three sentences, "supported": true or false}'
    },
)


class ClaimCheck(BaseModel):
    index: int = Field(description="number of the claim this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    supported: bool = Field(description="true when the context states or clearly implies the claim")


class ClaimChecks(BaseModel):
    verdicts: list[ClaimCheck] = Field(description="one verdict per claim, in the order given")


class ClaimVerdict(BaseModel):
    claim: str
    supported: bool
    reason: str = ""


class ClaimsEvidence(Evidence):
    claims: list[ClaimVerdict] = Field(default_factory=list)
    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))


DEFAULT_BATCH = 5


class FaithfulnessClaims(Metric):
    """What share of the answer's claims does the retrieved context support?

    RAGAS-style, as llm4s specifies it: the answer's claims (one extraction call) are verified
    against the contexts in batches (default 5 per call); score = supported / total, every claim's
    verdict kept. An answer that makes no factual claim cannot contradict its context and scores 1.0
    (say so in relevancy instead).
    """

    name = "faithfulness"
    mode = "claims"
    scale = Scale(0, 1)
    default_threshold = 0.8
    required = ("answer", "contexts")
    options = ("batch_size",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        size = read_int(options, "batch_size", DEFAULT_BATCH, metric=self.name)
        contexts = [c.text for c in sample.contexts]
        claims = await extract_statements(
            ask, self.name, EXTRACT_CLAIMS, "answer", sample.answer, sample.question, contexts
        )
        if not claims:
            return Scored(
                score=1.0,
                reasons="The answer makes no factual claim, so nothing in it can be unsupported.",
                evidence=ClaimsEvidence(),
                details={"claims": 0.0, "supported": 0.0},
            )
        requests = []
        for start, chunk in batches(claims, size):
            user = "\n\n".join([context_blocks(sample.contexts), numbered_list("claim", list(chunk))])
            inputs: dict[str, Any] = {"claims": list(chunk), "contexts": contexts}
            if start == 0 and sample.question:
                # the offline judge checks a claim made of a bare "no" or a lone entity against the
                # sentence that answers the question (task inputs only: prompts and keys unchanged)
                inputs.update(question=sample.question, answer=sample.answer)
            requests.append(
                (start, chunk, judge_request(self.name, VERIFY_CLAIMS, user, ClaimChecks, inputs))
            )
        replies = await ask.gather(*(ask(r, ClaimChecks) for _, _, r in requests))
        verdicts: list[ClaimVerdict] = []
        for (_, chunk, _), reply in zip(requests, replies, strict=True):
            ordered = verdicts_in_order(self.name, ask.judge_label, reply.verdicts, len(chunk), "claims")
            verdicts.extend(
                ClaimVerdict(claim=claim, supported=v.supported, reason=v.reasoning)
                for claim, v in zip(chunk, ordered, strict=True)
            )
        supported = sum(1 for v in verdicts if v.supported)
        unsupported = [v.claim for v in verdicts if not v.supported]
        return Scored(
            score=supported / len(verdicts),
            reasons=f"{supported} of {len(verdicts)} claims are supported by the context "
            f"({batch_count(len(claims), size)} verification call(s)).",
            evidence=ClaimsEvidence(claims=verdicts, unsupported_statements=unsupported),
            details={"claims": float(len(verdicts)), "supported": float(supported)},
        )


class FaithfulnessHelpers:
    """The ``rag_judge`` helpers of faithfulness, in both modes."""

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
