"""Context precision (RAGAS-style, as llm4s specifies it): are the useful passages ranked at the top?

The judge decides for every retrieved passage whether it is useful for answering the question (and,
when a reference answer is given, for arriving at that reference). By default all passages are graded
in one request (one call per sample, the fixed instructions first so prompt caching applies); with the
option ``per_passage=True`` each passage gets its own request, for contexts too long for one prompt.
The score is the average precision of those decisions over the ranks: the mean of precision@i at
every useful rank i (:func:`pytest_rag.scoring.average_precision`), 0.0 when no passage is useful.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, create_model

from ..inputs import Chunk, Sample
from ..results import Evidence, Highlights, passage_labels
from ..scoring import average_precision
from .base import Asker, Metric, Scale, Scored
from .prompts import Template, block
from .toolkit import REASONING, judge_request


class UsefulnessVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    useful: bool = Field(description="true when the passage helps answer the question")


class PassageUsefulness(BaseModel):
    reasoning: str = Field(description=REASONING)
    useful: bool = Field(description="true when the passage helps answer the question")


@functools.lru_cache(maxsize=64)
def usefulness_list_model(k: int) -> type[BaseModel]:
    """The verdict for k passages graded at once: one required field per passage (``passage_1`` ...),
    so the schema itself makes the judge answer every passage exactly once, by its index."""
    fields: dict[str, Any] = {
        f"passage_{i}": (PassageUsefulness, Field(description=f"the verdict on passage {i}"))
        for i in range(1, k + 1)
    }
    model: type[BaseModel] = create_model("UsefulnessListVerdict", **fields)
    return model


class PassageJudgment(BaseModel):
    """One ranked passage's verdict; ``index`` is its 1-based rank."""

    index: int
    id: str | None = None
    relevant: bool
    reason: str = ""


class PassageEvidence(Evidence):
    passages: list[PassageJudgment] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages=passage_labels(self.passages, "relevant"))


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


USEFULNESS_ALL = Template(
    id="context_precision.usefulness_all",
    version="2",
    task=(
        "Task: for every retrieved passage, decide whether it is useful for answering the question: it "
        "contains information that a correct answer relies on. When a reference answer is given, a "
        "passage is useful if it supports any part of that reference. A passage that only shares words "
        "or the topic with the question is not useful. Judge each passage on its own and give one "
        "verdict per passage, under the key passage_N for the passage with index N."
    ),
    scale="",
    fields={"passage_N": "for each passage N given, an object {reasoning, useful (true or false)}"},
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
    name = "context_precision"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("question", "contexts")
    question = "Are the passages that help answer the question ranked first?"
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
