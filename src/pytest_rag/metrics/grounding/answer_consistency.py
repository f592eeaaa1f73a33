"""Answer consistency: can the answer's main points, or everything it says, be traced to the contexts?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from ...helper_forms import Check, score_form
from ...inputs import ContextLike, Sample
from ...results import Evidence, Highlights
from ..base import Asker, Metric, Scale, Scored
from ..judging import SingleJudgment, judge_request
from ..prompts import REASONING, Template, block, context_blocks
from ..statements import extract_statements
from .faithfulness import UnsupportedStatements

MAIN_POINTS = Template(
    id="answer_consistency.points",
    version="1",
    task=(
        "Task: list the main points the answer makes, as a bulleted list would: one short standalone "
        "sentence per point, in the answer's order. Do not add points the answer does not make. An "
        "answer with no substantive point gives an empty list."
    ),
    scale="",
    fields={"claims": "list of main points"},
)


ATTRIBUTE_POINT = Template(
    id="answer_consistency.attribute",
    version="1",
    task=(
        "Task: decide whether the statement can be attributed to the retrieved contexts: they state "
        "it or it follows directly from them. Use only the contexts, not your own knowledge."
    ),
    scale="",
    fields={"reasoning": REASONING, "attributable": "true or false"},
)


class AttributableVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    attributable: bool = Field(description="true when the point can be attributed to the contexts")


class PointAttribution(BaseModel):
    point: str
    attributable: bool
    reason: str = ""


class AnswerConsistencyEvidence(Evidence):
    points: list[PointAttribution] = Field(default_factory=list)
    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))


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
        requests = [
            judge_request(
                self.name,
                ATTRIBUTE_POINT,
                "\n\n".join([context_blocks(sample.contexts), block("statement", point)]),
                AttributableVerdict,
                {"point": point, "contexts": contexts},
            )
            for point in points
        ]
        verdicts = await ask.gather(*(ask(r, AttributableVerdict) for r in requests))
        rows = [
            PointAttribution(point=p, attributable=v.attributable, reason=v.reasoning)
            for p, v in zip(points, verdicts, strict=True)
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
    version="1",
    task=(
        "Task: decide whether the answer contains any information that is not derived from the "
        "retrieved contexts. Restating, summarising or combining what the contexts say is derived; "
        "facts, numbers or names that the contexts do not provide are not."
    ),
    scale="",
    fields={
        "reasoning": REASONING,
        "unsupported_information": "list of the answer's information not found in the contexts",
        "has_unsupported_information": "true or false",
    },
)


class BinaryConsistencyVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    unsupported_information: list[str] = Field(
        description="pieces of information in the answer that the contexts do not provide; empty if none"
    )
    has_unsupported_information: bool = Field(
        description="true when the answer contains information not derived from the contexts"
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
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}

    def scored(self, verdict: BinaryConsistencyVerdict) -> Scored:
        return Scored(
            score=0.0 if verdict.has_unsupported_information else 1.0,
            reasons=verdict.reasoning,
            evidence=UnsupportedStatements(unsupported_statements=verdict.unsupported_information),
        )


class AnswerConsistencyHelpers:
    """The ``rag_judge`` helpers of answer consistency and its binary form."""

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
