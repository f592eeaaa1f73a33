"""Context use: does the answer draw on the passages it was given?

* ``augmentation_accuracy``: the share of retrieved passages whose information appears in the answer.
* ``augmentation_precision``: the same share, counted over the passages relevant to the question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from ..errors import InputError
from ..helper_forms import Check, answer_and_contexts, score_form, shared_form
from ..inputs import Chunk, ContextLike, Sample
from ..results import Evidence, Highlights, passage_labels
from .base import Asker, Metric, Scale, Scored
from .prompts import block, passage_block
from .retrieval import judge_relevance
from .verdict_shapes import Decision, yes_no_question

PASSAGE_USED = yes_no_question(
    module=__name__,
    id="augmentation.context_used",
    version="2",
    task=(
        "Task: decide whether information from the retrieved passage appears in the answer, stated "
        "or paraphrased. It does not matter whether the answer is correct, only whether it draws on "
        "this passage."
    ),
    decision="used",
    held="true when information from the passage appears in the answer",
    verdict="UsedVerdict",
    length_rule="",
)


class AugmentationEvidence(Evidence):
    passages: list[dict[str, Any]] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        """Each passage's relevance where it was judged (precision), else whether the answer used it."""
        judged = "relevant" if any("relevant" in row for row in self.passages) else "used"
        return Highlights(passages=passage_labels(self.passages, judged))


async def judge_usage(
    ask: Asker, metric: str, answer: str, chunks: Sequence[tuple[int, Chunk]]
) -> list[Decision]:
    questions = [
        (
            "\n\n".join([passage_block(chunk, i), block("answer", answer)]),
            {"answer": answer, "passage": chunk.text},
        )
        for i, chunk in chunks
    ]
    return await PASSAGE_USED.decide_each(ask, metric, questions)


class AugmentationAccuracy(Metric):
    """What share of the retrieved passages does the answer draw on?

    Tonic Validate's augmentation accuracy: one judgment per passage of whether its information
    appears in the answer.
    """

    name = "augmentation_accuracy"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("answer", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        ranked = list(enumerate(sample.contexts, start=1))
        decisions = await judge_usage(ask, self.name, sample.answer, ranked)
        flags = [d.yes for d in decisions]
        hits = sum(flags)
        rows = [
            {"index": i, "id": c.id, "used": d.yes, "reason": d.reasoning}
            for i, (c, d) in enumerate(zip(sample.contexts, decisions, strict=True), start=1)
        ]
        return Scored(
            score=hits / len(flags),
            reasons=f"The answer draws on {hits} of {len(flags)} retrieved passages.",
            evidence=AugmentationEvidence(passages=rows),
            details={"used": float(hits), "passages": float(len(flags))},
        )


class AugmentationPrecision(Metric):
    """What share of the relevant retrieved passages does the answer draw on?

    Tonic Validate's augmentation precision: relevance first (retrieval precision's question, so its
    judgments are shared through the cache), then "used?" for each relevant passage. Undefined, and
    an input error, when no passage is relevant.
    """

    name = "augmentation_precision"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("question", "answer", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        relevance = await judge_relevance(ask, self.name, sample.question, sample.contexts)
        relevant = [
            (i, c) for i, (c, v) in enumerate(zip(sample.contexts, relevance, strict=True), start=1) if v.yes
        ]
        if not relevant:
            raise InputError(
                "augmentation_precision: no retrieved passage was judged relevant to the question, so there "
                "is no relevant passage the answer could use; check retrieval_precision instead"
            )
        usage = await judge_usage(ask, self.name, sample.answer, relevant)
        used_by_rank = {i: u for (i, _), u in zip(relevant, usage, strict=True)}
        rows: list[dict[str, Any]] = []
        for i, (chunk, rel) in enumerate(zip(sample.contexts, relevance, strict=True), start=1):
            use = used_by_rank.get(i)
            rows.append(
                {
                    "index": i,
                    "id": chunk.id,
                    "relevant": rel.yes,
                    "used": None if use is None else use.yes,
                    "reason": rel.reasoning if use is None else use.reasoning,
                }
            )
        hits = sum(1 for u in usage if u.yes)
        return Scored(
            score=hits / len(relevant),
            reasons=f"The answer draws on {hits} of the {len(relevant)} relevant passages.",
            evidence=AugmentationEvidence(passages=rows),
            details={
                "used": float(hits),
                "relevant": float(len(relevant)),
                "passages": float(len(relevance)),
            },
        )


class ContextUseHelpers:
    """The ``rag_judge`` helpers of the context-use metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("augmentation_precision")
    def augmentation_precision(
        self, answer: str, question: str, contexts: ContextLike, threshold: float | None = None
    ) -> Check:
        """Share of the relevant passages whose information appears in the answer."""
        return Check(answer=answer, question=question, contexts=contexts, threshold=threshold)

    assert_augmentation_precision, aaugmentation_precision, aassert_augmentation_precision = (
        augmentation_precision.other_forms()
    )

    augmentation_accuracy = shared_form(
        answer_and_contexts,
        "augmentation_accuracy",
        "Share of retrieved passages whose information appears in the answer.",
    )

    assert_augmentation_accuracy, aaugmentation_accuracy, aassert_augmentation_accuracy = (
        augmentation_accuracy.other_forms()
    )
