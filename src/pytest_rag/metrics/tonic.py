"""Tonic Validate's context-use metrics: retrieval precision, augmentation precision and
accuracy, answer consistency and its binary form.

* ``retrieval_precision``: share of retrieved passages relevant to the question (one call each).
* ``augmentation_accuracy``: share of retrieved passages whose information appears in the answer
  (one call each).
* ``augmentation_precision``: the same share, counted over the relevant passages only: relevance
  first (the retrieval-precision question, so its judgments are shared through the cache), then
  "used?" for each relevant passage. Undefined, and an input error, when no passage is relevant.
* ``answer_consistency``: the main points of the answer (one call), each checked for attribution to
  the contexts (one call per point); share attributable. An answer without points scores 1.0.
* ``answer_consistency_binary``: one call: does the answer hold anything not derived from the
  contexts? 1 when not, 0 when it does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError
from ..inputs import Chunk, Sample
from .base import Asker, Metric, Scale, Scored
from .evidence import AnswerConsistencyEvidence, AugmentationEvidence, PointAttribution, UnsupportedStatements
from .prompts import block, context_blocks
from .retrieval import judge_each_passage, passage_block, passage_evidence
from .templates import ATTRIBUTE_POINT, BINARY_CONSISTENCY, MAIN_POINTS, PASSAGE_RELEVANCE, PASSAGE_USED
from .toolkit import SingleJudgment, judge_request
from .verdicts import AttributableVerdict, BinaryConsistencyVerdict, ClaimList, RelevanceVerdict, UsedVerdict

FRACTION = Scale(0, 1)


async def judge_relevance(
    ask: Asker, metric: str, question: str, chunks: Sequence[Chunk]
) -> list[RelevanceVerdict]:
    return await judge_each_passage(ask, metric, PASSAGE_RELEVANCE, RelevanceVerdict, question, chunks)


async def judge_usage(
    ask: Asker, metric: str, answer: str, chunks: Sequence[tuple[int, Chunk]]
) -> list[UsedVerdict]:
    requests = [
        judge_request(
            metric,
            PASSAGE_USED,
            "\n\n".join([passage_block(chunk, i), block("answer", answer)]),
            UsedVerdict,
            {"answer": answer, "passage": chunk.text},
        )
        for i, chunk in chunks
    ]
    return await ask.gather(*(ask(r, UsedVerdict) for r in requests))


class RetrievalPrecision(Metric):
    """What share of the retrieved passages is relevant to the question?"""

    name = "retrieval_precision"
    scale = FRACTION
    default_threshold = 0.5
    required = ("question", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        verdicts = await judge_relevance(ask, self.name, sample.question, sample.contexts)
        flags = [v.relevant for v in verdicts]
        hits = sum(flags)
        return Scored(
            score=hits / len(flags),
            reasons=f"{hits} of {len(flags)} retrieved passages are relevant to the question.",
            evidence=passage_evidence(sample.contexts, flags, [v.reasoning for v in verdicts]),
            details={"relevant": float(hits), "passages": float(len(flags))},
        )


class AugmentationAccuracy(Metric):
    """What share of the retrieved passages does the answer draw on?"""

    name = "augmentation_accuracy"
    scale = FRACTION
    default_threshold = 0.5
    required = ("answer", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        ranked = list(enumerate(sample.contexts, start=1))
        verdicts = await judge_usage(ask, self.name, sample.answer, ranked)
        flags = [v.used for v in verdicts]
        hits = sum(flags)
        rows = [
            {"index": i, "id": c.id, "used": v.used, "reason": v.reasoning}
            for i, (c, v) in enumerate(zip(sample.contexts, verdicts, strict=True), start=1)
        ]
        return Scored(
            score=hits / len(flags),
            reasons=f"The answer draws on {hits} of {len(flags)} retrieved passages.",
            evidence=AugmentationEvidence(passages=rows),
            details={"used": float(hits), "passages": float(len(flags))},
        )


class AugmentationPrecision(Metric):
    """What share of the relevant retrieved passages does the answer draw on?"""

    name = "augmentation_precision"
    scale = FRACTION
    default_threshold = 0.5
    required = ("question", "answer", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        relevance = await judge_relevance(ask, self.name, sample.question, sample.contexts)
        relevant = [
            (i, c)
            for i, (c, v) in enumerate(zip(sample.contexts, relevance, strict=True), start=1)
            if v.relevant
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
                    "relevant": rel.relevant,
                    "used": None if use is None else use.used,
                    "reason": rel.reasoning if use is None else use.reasoning,
                }
            )
        hits = sum(1 for u in usage if u.used)
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


class AnswerConsistency(Metric):
    """What share of the answer's main points can be attributed to the contexts?"""

    name = "answer_consistency"
    scale = FRACTION
    default_threshold = 0.8
    required = ("answer", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        request = judge_request(
            self.name,
            MAIN_POINTS,
            block("answer", sample.answer),
            ClaimList,
            {"text": sample.answer},
            max_tokens=2048,
        )
        points = [p.strip() for p in (await ask(request, ClaimList)).claims if p.strip()]
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


class AnswerConsistencyBinary(SingleJudgment):
    """Is everything in the answer derived from the retrieved contexts?"""

    name = "answer_consistency_binary"
    scale = FRACTION
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
