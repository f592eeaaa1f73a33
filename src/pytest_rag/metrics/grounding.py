"""Grounding: is what the answer says backed by its retrieved contexts?

* ``faithfulness``: one 1-5 judgment of the answer against the contexts; in mode ``claims``, the
  answer's claims verified against the contexts, scored supported / total.
* ``hallucination``: a 0-1 factual-consistency score.
* ``answer_consistency`` and ``answer_consistency_binary``: the share of the answer's main points
  attributable to the contexts; whether anything in it is not derived from them.
* ``response_groundedness``: two 0/1/2 ratings, averaged.

Where a judge names the answer's unsupported statements, the evidence keeps them
(:class:`UnsupportedStatements`) and the HTML report marks them in the answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..helper_forms import Check, answer_and_contexts, given, score_form, shared_form
from ..inputs import ContextLike, Sample, check_answer_kind
from ..results import Evidence, Highlights
from .base import Asker, Metric, Scale, Scored
from .dual_rating import DualTemplateMetric, ThreeLevelRating, Wording, dual_rating_question
from .judging import SingleJudgment, batch_count
from .options import read_int
from .prompts import (
    REASONING,
    SUPPORT_LENGTH_RULE,
    ReasonedVerdict,
    Template,
    block,
    context_blocks,
)
from .statements import NumberedQuestion, claim_list_fields, extract_statements
from .support_wording import NOTHING_ASSERTED, QUESTION_RULE, SEVERITY_SCALE, SUPPORT_RULE
from .verdict_shapes import (
    Asked,
    GradedFindings,
    check_fields,
    check_verdict,
    graded_findings_question,
    numbered_verdicts_question,
    yes_no_question,
)


class UnsupportedStatements(Evidence):
    """Evidence of the grounding metrics: the answer's statements the judge found unsupported."""

    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))


def answer_after_contexts(sample: Sample, context_tag: str = "context") -> tuple[str, dict[str, Any]]:
    """The message of a whole-answer grounding judgment: the numbered contexts, then the answer
    judged against them; with the task inputs of both."""
    user = "\n\n".join([context_blocks(sample.contexts, tag=context_tag), block("answer", sample.answer)])
    return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}


# -- faithfulness ------------------------------------------------------------------------------

FAITHFULNESS_TEMPLATE = graded_findings_question(
    module=__name__,
    id="faithfulness.single",
    version="2",
    task=(
        "Task: decide how well the answer is supported by the retrieved context. Check every "
        f"statement the answer makes against the context. {SUPPORT_RULE} {QUESTION_RULE} "
        f"{NOTHING_ASSERTED}"
    ),
    scale=SEVERITY_SCALE,
    findings="unsupported_statements",
    asked="list of the answer's statements that the context does not support",
    listed="statements of the answer that the context does not support or contradicts; empty if none",
    verdict="FaithfulnessVerdict",
    length_rule=SUPPORT_LENGTH_RULE,
)
FaithfulnessVerdict = FAITHFULNESS_TEMPLATE.verdict


class Faithfulness(GradedFindings, SingleJudgment):
    """Is the answer supported by the retrieved context?

    One judgment on 1-5 anchors with the judge's reasons and the statements that cost points, as the
    omk RAG metrics specification defines faithfulness.
    """

    name = "faithfulness"
    default_threshold = 4
    required = ("answer", "contexts")
    options = ("answer_kind",)
    template = FAITHFULNESS_TEMPLATE
    evidence_model = UnsupportedStatements

    def check_options(self, options: Mapping[str, Any]) -> None:
        super().check_options(options)
        check_answer_kind(options.get("answer_kind"), self.name)

    def task_hints(self, options: Mapping[str, Any]) -> dict[str, Any]:
        # The kind of answer sets the offline judge's pass mark (short answer, summary,
        # conversational reply); only given when the user names it, so requests without it,
        # and every LLM prompt and cache key, stay as they were.
        kind = check_answer_kind(options.get("answer_kind"), self.name)
        return {} if kind is None else {"answer_kind": kind}

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        user, inputs = answer_after_contexts(sample)
        if sample.question:
            # Shown so the judge reads what a bare "Yes, always." asserts (the instructions say it is
            # never evidence); the offline judge reads it from the inputs to the same end.
            user = "\n\n".join([block("question", sample.question), user])
            inputs["question"] = sample.question
        return user, inputs


# -- faithfulness by claims --------------------------------------------------------------------

EXTRACT_CLAIMS = Template(
    id="faithfulness.claims.extract",
    version="2",
    task=(
        "Task: break the answer into its atomic factual claims. A claim is one short standalone "
        "sentence stating a single fact, with pronouns and references replaced by what they refer to. "
        "The question, when given, is shown only so that you understand what the answer asserts: to "
        "'Are shipping fees refundable?', the answer 'Yes, always.' makes the claim 'Shipping fees are "
        "always refundable.'; never take a claim from the question that the answer does not make. "
        "Keep a claim's hedges and conditions ('Refunds usually take five days.'). Leave out "
        "greetings, opinions, questions and statements about the answer itself. Do not add, merge or "
        "correct anything; only restate what the answer asserts. An answer that asserts nothing (a "
        "refusal, 'I don't know', a greeting) gives an empty list."
    ),
    fields=claim_list_fields("list of claim strings"),
    length_rule="",
)


Support = Literal["supported", "not_in_context", "contradicted"]


VERIFY_CLAIMS = numbered_verdicts_question(
    module=__name__,
    id="faithfulness.claims.verify",
    version="2",
    task=(
        "Task: for each numbered claim, decide whether the retrieved context supports it, does not "
        f"mention it, or contradicts it. {SUPPORT_RULE}"
    ),
    item="claim",
    answers={
        "support": Asked(
            Support,
            '"supported" | "not_in_context" | "contradicted"',
            "supported, not_in_context or contradicted",
        )
    },
    verdict="ClaimChecks",
    item_verdict="ClaimCheck",
    length_rule="",
)


class ClaimVerdict(BaseModel):
    claim: str
    supported: bool
    support: Support | None = None
    """The judge's label: supported, not in the context, or contradicted (None in records written
    before claims were labelled three ways)."""
    reason: str = ""


class ClaimsEvidence(UnsupportedStatements):
    """The unsupported claims (marked in the answer), with every claim's verdict."""

    claims: list[ClaimVerdict] = Field(default_factory=list)


MOST_CLAIMS_PER_CALL = 25
"""The most claims one verification request holds when ``batch_size`` is not given: every claim of
a usual answer in one request, so the contexts are sent once per check (they are most of each
request's tokens), while the reply stays well within the room :func:`~.judging.room_for` gives it."""


def even_batch(claims: int) -> int:
    """Claims per verification request when ``batch_size`` is not given: all of them, or, past
    :data:`MOST_CLAIMS_PER_CALL`, the fewest requests with the claims split evenly among them."""
    return math.ceil(claims / batch_count(claims, MOST_CLAIMS_PER_CALL)) if claims else 1


class FaithfulnessClaims(Metric):
    """What share of the answer's claims does the retrieved context support?

    RAGAS-style, as llm4s specifies it: the answer's claims (one extraction call) are verified
    against the contexts, all in one call (the contexts sent once) up to 25 claims, in even batches
    beyond, or ``batch_size`` per call when given; score = supported / total, every claim's verdict
    kept. An answer that makes no factual claim cannot contradict its context and scores 1.0
    (say so in relevancy instead).
    """

    name = "faithfulness"
    mode = "claims"
    scale = Scale(0, 1)
    default_threshold = 0.8
    required = ("answer", "contexts")
    options = ("batch_size",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        given = options.get("batch_size") is not None
        size = read_int(options, "batch_size", MOST_CLAIMS_PER_CALL, metric=self.name) if given else 0
        contexts = [c.text for c in sample.contexts]
        claims = await extract_statements(
            ask,
            self.name,
            EXTRACT_CLAIMS,
            "answer",
            sample.answer,
            sample.question,
            contexts,
            show_question=True,
        )
        if not claims:
            return Scored(
                score=1.0,
                reasons="The answer makes no factual claim, so nothing in it can be unsupported.",
                evidence=ClaimsEvidence(),
                details={"claims": 0.0, "supported": 0.0},
            )

        def inputs_of(start: int, chunk: Sequence[str]) -> dict[str, Any]:
            inputs: dict[str, Any] = {"claims": list(chunk), "contexts": contexts}
            if start == 0 and sample.question:
                # the offline judge checks a claim made of a bare "no" or a lone entity against the
                # sentence that answers the question (task inputs only: a claim stands alone when verified)
                inputs.update(question=sample.question, answer=sample.answer)
            return inputs

        verification = NumberedQuestion(
            self.name, VERIFY_CLAIMS, [context_blocks(sample.contexts)], "claim", "claims"
        )
        size = size or even_batch(len(claims))
        checks = await verification.judge_in_batches(ask, claims, size, inputs_of)
        verdicts = [
            ClaimVerdict(
                claim=claim, supported=v.support == "supported", support=v.support, reason=v.reasoning
            )
            for claim, v in zip(claims, checks, strict=True)
        ]
        supported = sum(1 for v in verdicts if v.supported)
        unsupported = [v.claim for v in verdicts if not v.supported]
        return Scored(
            score=supported / len(verdicts),
            reasons=f"{supported} of {len(verdicts)} claims are supported by the context "
            f"({batch_count(len(claims), size)} verification call(s)).",
            evidence=ClaimsEvidence(claims=verdicts, unsupported_statements=unsupported),
            details={"claims": float(len(verdicts)), "supported": float(supported)},
        )


# -- hallucination -----------------------------------------------------------------------------

HALLUCINATION_CONSISTENCY = Template(
    id="hallucination.consistency",
    version="2",
    task=(
        "Task: estimate how factually consistent the answer is with the source passages, as a "
        "number from 0 to 1: the probability that a careful reader holding only the passages would "
        "accept everything the answer states. Statements the passages do not back count against the "
        "answer even if they are true."
    ),
    scale=(
        "Anchors:\n"
        "1.0 - everything is stated in or follows from the passages.\n"
        "0.75 - one minor detail is not backed.\n"
        "0.5 - a substantial part is not backed.\n"
        "0.25 - most of the answer is not backed.\n"
        "0.0 - the answer contradicts the passages or is invented."
    ),
    fields={
        "reasoning": REASONING,
        "unsupported_statements": "list of the answer's unsupported statements",
        "score": "number from 0 to 1",
    },
    length_rule=SUPPORT_LENGTH_RULE,
)


class ConsistencyScore(ReasonedVerdict):
    unsupported_statements: list[str] = Field(
        description="statements of the answer that the contexts do not support; empty if none"
    )
    score: float = Field(ge=0, le=1, description="factual consistency from 0 to 1")


class Hallucination(SingleJudgment):
    """How factually consistent is the answer with the retrieved passages (0-1)?

    Open RAG Eval computes it with Vectara's HHEM classifier. Here the two kinds of judge reach the
    same kind of number by different means, and results from one are not comparable with the other:
    the offline judge answers with its calibrated probability that the whole answer is supported by
    the contexts (:meth:`~pytest_rag.judges.local.scorer.LocalScorer.support`), a classifier score in the
    HHEM sense that needs no generation; an LLM judge is asked directly for a 0-1 consistency score
    with anchors, in one call. Higher is better (more consistent, less hallucination), as in HHEM.
    """

    name = "hallucination"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("answer", "contexts")
    template = HALLUCINATION_CONSISTENCY
    verdict = ConsistencyScore

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return answer_after_contexts(sample, context_tag="passage")

    def scored(self, verdict: ConsistencyScore) -> Scored:
        evidence = UnsupportedStatements(unsupported_statements=verdict.unsupported_statements)
        return Scored(score=float(verdict.score), reasons=verdict.reasoning, evidence=evidence)


# -- answer consistency ------------------------------------------------------------------------

MAIN_POINTS = Template(
    id="answer_consistency.points",
    version="2",
    task=(
        "Task: list the main points the answer makes, as a bulleted list would: one short standalone "
        "sentence per point, in the answer's order. Do not add points the answer does not make. An "
        "answer with no substantive point gives an empty list."
    ),
    fields=claim_list_fields("list of main points"),
    length_rule="",
)


ATTRIBUTE_POINT = yes_no_question(
    module=__name__,
    id="answer_consistency.attribute",
    version="2",
    task=(
        "Task: decide whether the statement can be attributed to the retrieved contexts: they state "
        "it or it follows directly from them. Use only the contexts, not your own knowledge."
    ),
    decision="attributable",
    held="true when the point can be attributed to the contexts",
    verdict="AttributableVerdict",
    length_rule="",
)


class PointAttribution(BaseModel):
    point: str
    attributable: bool
    reason: str = ""


class AnswerConsistencyEvidence(UnsupportedStatements):
    """The unattributable main points (marked in the answer), with every point's attribution."""

    points: list[PointAttribution] = Field(default_factory=list)


class AnswerConsistency(Metric):
    """What share of the answer's main points can be attributed to the contexts?

    Tonic Validate's answer consistency: the main points of the answer (one call), each checked for
    attribution to the contexts (one call per point); the share attributable. An answer without
    points scores 1.0.
    """

    name = "answer_consistency"
    scale = Scale(0, 1)
    default_threshold = 0.8
    required = ("answer", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        points = await extract_statements(ask, self.name, MAIN_POINTS, "answer", sample.answer)
        if not points:
            return Scored(
                score=1.0,
                reasons="The answer makes no substantive point, so none can be unattributable.",
                evidence=AnswerConsistencyEvidence(),
                details={"points": 0.0, "attributable": 0.0},
            )
        contexts = [c.text for c in sample.contexts]
        questions = [
            (
                "\n\n".join([context_blocks(sample.contexts), block("statement", point)]),
                {"point": point, "contexts": contexts},
            )
            for point in points
        ]
        decisions = await ATTRIBUTE_POINT.decide_each(ask, self.name, questions)
        rows = [
            PointAttribution(point=p, attributable=d.yes, reason=d.reasoning)
            for p, d in zip(points, decisions, strict=True)
        ]
        hits = sum(1 for r in rows if r.attributable)
        return Scored(
            score=hits / len(rows),
            reasons=f"{hits} of {len(rows)} main points of the answer can be attributed to the contexts.",
            evidence=AnswerConsistencyEvidence(
                points=rows, unsupported_statements=[r.point for r in rows if not r.attributable]
            ),
            details={"points": float(len(rows)), "attributable": float(hits)},
        )


BINARY_CONSISTENCY = Template(
    id="answer_consistency_binary.check",
    version="2",
    task=(
        "Task: decide whether the answer contains any information that is not derived from the "
        "retrieved contexts. Restating, summarising or combining what the contexts say is derived; "
        "facts, numbers or names that the contexts do not provide are not."
    ),
    fields=check_fields(
        "unsupported_information",
        "list of the answer's information not found in the contexts",
        "has_unsupported_information",
    ),
    length_rule=SUPPORT_LENGTH_RULE,
)


BinaryConsistencyVerdict = check_verdict(
    "BinaryConsistencyVerdict",
    "unsupported_information",
    "pieces of information in the answer that the contexts do not provide; empty if none",
    "has_unsupported_information",
    "true when the answer contains information not derived from the contexts",
    module=__name__,
)


class AnswerConsistencyBinary(SingleJudgment):
    """Is everything in the answer derived from the retrieved contexts?

    Tonic Validate's binary answer consistency: one call asks whether the answer holds anything not
    derived from the contexts; 1 when not, 0 when it does.
    """

    name = "answer_consistency_binary"
    scale = Scale(0, 1)
    default_threshold = 1
    required = ("answer", "contexts")
    template = BINARY_CONSISTENCY
    verdict = BinaryConsistencyVerdict

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return answer_after_contexts(sample)

    def scored(self, verdict: Any) -> Scored:
        return Scored(
            score=0.0 if verdict.has_unsupported_information else 1.0,
            reasons=verdict.reasoning,
            evidence=UnsupportedStatements(unsupported_statements=verdict.unsupported_information),
        )


# -- response groundedness ---------------------------------------------------------------------

RESPONSE_GROUNDEDNESS = dual_rating_question(
    "response_groundedness",
    ThreeLevelRating,
    Wording(
        task=(
            "Task: rate how well the answer is grounded in the retrieved contexts: whether each of its "
            "statements can be found in, or inferred from, the contexts."
        ),
        ratings={
            2: "fully grounded: every statement is found in or inferred from the contexts.",
            1: "partly grounded.",
            0: "not grounded in the contexts at all.",
        },
    ),
    Wording(
        task=(
            "Task: check the answer against the source passages. Could a reader who has only these "
            "passages confirm what the answer says? Use only the passages, not your own knowledge."
        ),
        ratings={
            0: "no statement of the answer can be confirmed from the passages.",
            1: "some statements can be confirmed, others cannot.",
            2: "every statement can be confirmed.",
        },
    ),
    version="2",
    length_rule=SUPPORT_LENGTH_RULE,
)


class ResponseGroundedness(DualTemplateMetric):
    """Is the answer grounded in the retrieved contexts?

    The NVIDIA metric of RAGAS: two 0/1/2 ratings of the answer against the contexts by two
    differently worded templates, averaged (:mod:`.dual_rating`).
    """

    name = "response_groundedness"
    question = RESPONSE_GROUNDEDNESS
    default_threshold = 1
    required = ("answer", "contexts")

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        return answer_after_contexts(sample)


class GroundingHelpers:
    """The ``rag_judge`` helpers of the grounding metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("faithfulness")
    def faithfulness(
        self,
        answer: str,
        contexts: ContextLike,
        threshold: float | None = None,
        *,
        mode: str | None = None,
        question: str | None = None,
        answer_kind: str | None = None,
    ) -> Check:
        """Is ``answer`` supported by ``contexts``? 1-5 (single mode) or supported/total (claims mode).
        ``question`` lets the judge read a bare "yes" or a lone entity as the claim it makes (an LLM
        judge is shown it as such, never as evidence; the offline judge rewrites the answer with
        it). ``answer_kind`` ("short", "summary" or "conversational") names the kind of answer,
        whose pass mark the offline judge uses; left out, it reads the kind from the answer. LLM
        prompts do not show it."""
        return Check(
            answer=answer,
            contexts=contexts,
            threshold=threshold,
            mode=mode,
            question=question,
            options=given(answer_kind=check_answer_kind(answer_kind, "faithfulness()")),
        )

    assert_faithful, afaithfulness, aassert_faithful = faithfulness.other_forms()

    @score_form("faithfulness", mode="claims")
    def faithfulness_claims(
        self,
        answer: str,
        contexts: ContextLike,
        *,
        batch_size: int | None = None,
        threshold: float | None = None,
        question: str | None = None,
    ) -> Check:
        """Share of the answer's claims the contexts support (claims extracted, verified in batches).
        ``question``, as for :meth:`faithfulness`, reaches judges that read inputs only."""
        return Check(
            answer=answer,
            contexts=contexts,
            threshold=threshold,
            question=question,
            options=given(batch_size=batch_size),
        )

    assert_faithful_claims, afaithfulness_claims, aassert_faithful_claims = faithfulness_claims.other_forms()

    hallucination = shared_form(
        answer_and_contexts,
        "hallucination",
        "0-1 factual consistency of the answer with the passages (HHEM-style; higher is better).",
    )

    assert_no_hallucination, ahallucination, aassert_no_hallucination = hallucination.other_forms()

    answer_consistency = shared_form(
        answer_and_contexts,
        "answer_consistency",
        "Share of the answer's main points attributable to the contexts.",
    )

    assert_answer_consistency, aanswer_consistency, aassert_answer_consistency = (
        answer_consistency.other_forms()
    )

    answer_consistency_binary = shared_form(
        answer_and_contexts,
        "answer_consistency_binary",
        "1 when everything in the answer derives from the contexts, else 0.",
    )

    assert_answer_consistency_binary, aanswer_consistency_binary, aassert_answer_consistency_binary = (
        answer_consistency_binary.other_forms()
    )

    response_groundedness = shared_form(
        answer_and_contexts,
        "response_groundedness",
        "Two 0/1/2 judgments of the answer's grounding in the contexts, averaged.",
    )

    assert_grounded, aresponse_groundedness, aassert_grounded = response_groundedness.other_forms()
