"""Context precision (seed 001): are the useful passages ranked at the top?

One judge call per retrieved passage decides whether it is useful for answering the question (and,
when a reference answer is given, for arriving at that reference). The score is the average
precision of those decisions over the ranks: the mean of precision@i at every useful rank i
(:func:`pytest_rag.scoring.average_precision`), 0.0 when no passage is useful.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ..inputs import Chunk, Sample
from ..prompts import Template, block
from ..scoring import average_precision
from .base import Asker, Metric, Scale, Scored
from .toolkit import REASONING, check_options, judge_request


class UsefulnessVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    useful: bool = Field(description="true when the passage helps answer the question")


class PassageJudgment(BaseModel):
    """One ranked passage's verdict; ``index`` is its 1-based rank."""

    index: int
    id: str | None = None
    relevant: bool
    reason: str = ""


class PassageEvidence(BaseModel):
    passages: list[PassageJudgment] = Field(default_factory=list)


USEFULNESS = Template(
    id="context_precision.usefulness",
    version="1",
    task=(
        "Task: decide whether the retrieved passage is useful for answering the question: it contains "
        "information that a correct answer relies on. When a reference answer is given, the passage is "
        "useful if it supports any part of that reference. A passage that only shares words or the "
        "topic with the question is not useful."
    ),
    scale="",
    fields={"reasoning": REASONING, "useful": "true or false"},
)


def passage_block(chunk: Chunk, index: int) -> str:
    return block("passage", chunk.text, index=index, id=chunk.id)


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
    name: ClassVar[str] = "context_precision"
    scale: ClassVar[Scale] = Scale(0, 1)
    default_threshold: ClassVar[float | None] = 0.5
    required: ClassVar[tuple[str, ...]] = ("question", "contexts")
    question: ClassVar[str] = "Are the passages that help answer the question ranked first?"

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        check_options(self.name, options, ())
        reference = sample.reference if sample.reference and sample.reference.strip() else None
        head = [block("question", sample.question)]
        if reference is not None:
            head.append(block("reference", reference))
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
        flags = [v.useful for v in verdicts]
        score = average_precision(flags)
        useful_ranks = [i for i, f in enumerate(flags, start=1) if f]
        return Scored(
            score=score,
            reasons=f"Useful passages at ranks {useful_ranks or 'none'} of {len(flags)}; average precision "
            f"{score:.3f}.",
            evidence=passage_evidence(sample.contexts, flags, [v.reasoning for v in verdicts]),
            details={"useful": float(len(useful_ranks)), "passages": float(len(flags))},
        )


RETRIEVAL_METRICS: tuple[type[Metric], ...] = (ContextPrecision,)
