"""Context precision (RAGAS-style, as llm4s specifies it): are the useful passages ranked at the top?

The judge decides for every retrieved passage whether it is useful for answering the question (and,
when a reference answer is given, for arriving at that reference). By default all passages are graded
in one request (one call per sample, the fixed instructions first so prompt caching applies); with the
option ``per_passage=True`` each passage gets its own request, for contexts too long for one prompt.
The score is the average precision of those decisions over the ranks: the mean of precision@i at
every useful rank i (:func:`pytest_rag.scoring.average_precision`), 0.0 when no passage is useful.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ..inputs import Chunk, Sample
from ..scoring import average_precision
from .base import Asker, Metric, Scale, Scored
from .evidence import PassageEvidence, PassageJudgment
from .prompts import Template, block
from .templates import USEFULNESS, USEFULNESS_ALL
from .toolkit import judge_request
from .verdicts import UsefulnessVerdict, usefulness_list_model

V = TypeVar("V", bound=BaseModel)


def passage_block(chunk: Chunk, index: int) -> str:
    return block("passage", chunk.text, index=index, id=chunk.id)


async def judge_each_passage(
    ask: Asker, metric: str, template: Template, verdict: type[V], question: str, chunks: Sequence[Chunk]
) -> list[V]:
    """One judgment of every passage against the question, concurrently, in rank order (the
    relevance checks of the Tonic metrics and UMBRELA's grades ask it this way)."""
    requests = [
        judge_request(
            metric,
            template,
            "\n\n".join([block("question", question), passage_block(chunk, i)]),
            verdict,
            {"question": question, "passage": chunk.text},
        )
        for i, chunk in enumerate(chunks, start=1)
    ]
    return await ask.gather(*(ask(r, verdict) for r in requests))


def passage_evidence(
    chunks: Sequence[Chunk], flags: Sequence[bool], reasons: Sequence[str]
) -> PassageEvidence:
    return PassageEvidence(
        passages=[
            PassageJudgment(index=i, id=c.id, relevant=f, reason=r)
            for i, (c, f, r) in enumerate(zip(chunks, flags, reasons, strict=True), start=1)
        ]
    )


class ContextPrecision(Metric):
    """Are the passages that help answer the question ranked first?"""

    name = "context_precision"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("question", "contexts")
    options = ("per_passage",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        reference = sample.reference if sample.reference and sample.reference.strip() else None
        head = [block("question", sample.question)]
        if reference is not None:
            head.append(block("reference", reference))
        if options.get("per_passage", False):
            flags, reasons = await self._per_passage(ask, sample, head, reference)
        else:
            flags, reasons = await self._all_at_once(ask, sample, head, reference)
        score = average_precision(flags)
        useful_ranks = [i for i, f in enumerate(flags, start=1) if f]
        return Scored(
            score=score,
            reasons=f"Useful passages at ranks {useful_ranks or 'none'} of {len(flags)}; average precision "
            f"{score:.3f}.",
            evidence=passage_evidence(sample.contexts, flags, reasons),
            details={"useful": float(len(useful_ranks)), "passages": float(len(flags))},
        )

    async def _all_at_once(
        self, ask: Asker, sample: Sample, head: list[str], reference: str | None
    ) -> tuple[list[bool], list[str]]:
        passages = [passage_block(chunk, i) for i, chunk in enumerate(sample.contexts, start=1)]
        model = usefulness_list_model(len(sample.contexts))
        request = judge_request(
            self.name,
            USEFULNESS_ALL,
            "\n\n".join([*head, *passages]),
            model,
            {
                "question": sample.question,
                "reference": reference,
                "passages": [chunk.text for chunk in sample.contexts],
            },
        )
        verdict = await ask(request, model)
        entries = [getattr(verdict, f"passage_{i}") for i in range(1, len(sample.contexts) + 1)]
        return [e.useful for e in entries], [e.reasoning for e in entries]

    async def _per_passage(
        self, ask: Asker, sample: Sample, head: list[str], reference: str | None
    ) -> tuple[list[bool], list[str]]:
        requests = [
            judge_request(
                self.name,
                USEFULNESS,
                "\n\n".join([*head, passage_block(chunk, i)]),
                UsefulnessVerdict,
                {"question": sample.question, "reference": reference, "passage": chunk.text},
            )
            for i, chunk in enumerate(sample.contexts, start=1)
        ]
        verdicts = await ask.gather(*(ask(r, UsefulnessVerdict) for r in requests))
        return [v.useful for v in verdicts], [v.reasoning for v in verdicts]
