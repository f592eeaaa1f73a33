"""Claim-based modes (seed 001): faithfulness by claims and context recall by fact attribution.

Both split a text into atomic statements with one judge call and then check the statements with
more calls, so a low score names the statements that cost it:

* ``faithfulness`` mode ``claims``: claims of the answer, verified against the contexts in batches
  (default 5 per call); score = supported / total, every claim's verdict kept. An answer that makes
  no factual claim cannot contradict its context and scores 1.0 (say so in relevancy instead).
* ``context_recall`` mode ``attribution``: facts of the reference, each attributed to the context
  that states it (1-indexed, kept per fact); score = covered / total. A reference without facts has
  nothing to recall and is an input error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ..errors import InputError, JudgeError
from ..inputs import Sample
from .base import Asker, Metric, Scale, Scored
from .prompts import Template, block, context_blocks, numbered_list
from .toolkit import REASONING, batch_count, batches, check_options, judge_request, read_int

RATIO = Scale(0, 1)
DEFAULT_BATCH = 5


class ClaimList(BaseModel):
    claims: list[str] = Field(description="the atomic factual claims, each a standalone sentence")


class ClaimCheck(BaseModel):
    index: int = Field(description="number of the claim this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    supported: bool = Field(description="true when the context states or clearly implies the claim")


class ClaimChecks(BaseModel):
    verdicts: list[ClaimCheck] = Field(description="one verdict per claim, in the order given")


class FactAttributionVerdict(BaseModel):
    index: int = Field(description="number of the fact this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    covered: bool = Field(description="true when some context states the fact")
    source_context: int | None = Field(
        description="number of the context that states the fact (1-based), or null when none does"
    )


class FactAttributions(BaseModel):
    verdicts: list[FactAttributionVerdict] = Field(description="one verdict per fact, in the order given")


class ClaimVerdict(BaseModel):
    claim: str
    supported: bool
    reason: str = ""


class ClaimsEvidence(BaseModel):
    claims: list[ClaimVerdict] = Field(default_factory=list)
    unsupported_statements: list[str] = Field(default_factory=list)


class FactAttribution(BaseModel):
    fact: str
    covered: bool
    source_context: int | None = None
    reason: str = ""


class AttributionEvidence(BaseModel):
    facts: list[FactAttribution] = Field(default_factory=list)
    missing_facts: list[str] = Field(default_factory=list)


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

EXTRACT_FACTS = Template(
    id="context_recall.attribution.extract",
    version="1",
    task=(
        "Task: list the distinct key facts stated in the reference answer, each as one short "
        "standalone sentence. Keep every fact a complete answer would need; do not add facts that "
        "the reference does not state."
    ),
    scale="",
    fields={"claims": "list of fact strings"},
)

ATTRIBUTE_FACTS = Template(
    id="context_recall.attribution.attribute",
    version="1",
    task=(
        "Task: for each numbered fact, decide whether any of the numbered retrieved contexts states "
        "it, and if so which one. Give the number of the context that states it most completely; "
        "give null when no context does. Use only the contexts, not your own knowledge."
    ),
    scale="",
    fields={
        "verdicts": 'list with one object per fact, in order: {"index": fact number, "reasoning": one '
        'to three sentences, "covered": true or false, "source_context": context number or null}'
    },
)


def verdicts_in_order(metric: str, judge: str, verdicts: Sequence[Any], n: int, what: str) -> list[Any]:
    """Verdicts sorted by their 1-based index, which must name each item exactly once."""
    ordered = sorted(verdicts, key=lambda v: int(v.index))
    if [int(v.index) for v in ordered] != list(range(1, n + 1)):
        raise JudgeError(
            f"the judge's verdicts are numbered {[int(v.index) for v in verdicts]} but there are {n} {what} "
            f"(1-{n}); every one needs exactly one verdict",
            judge=judge,
            metric=metric,
        )
    return ordered


async def extract_statements(
    ask: Asker, metric: str, template: Template, tag: str, text: str, question: str = ""
) -> list[str]:
    """One extraction call; blank items are dropped (they carry no statement). ``question`` goes
    to the task inputs only (the offline judge reads a bare "yes" with it), not into the prompt."""
    inputs = {"text": text, "question": question} if question else {"text": text}
    request = judge_request(metric, template, block(tag, text), ClaimList, inputs, max_tokens=2048)
    verdict = await ask(request, ClaimList)
    return [c.strip() for c in verdict.claims if c.strip()]


class FaithfulnessClaims(Metric):
    name: ClassVar[str] = "faithfulness"
    mode: ClassVar[str] = "claims"
    scale: ClassVar[Scale] = RATIO
    default_threshold: ClassVar[float | None] = 0.8
    required: ClassVar[tuple[str, ...]] = ("answer", "contexts")
    question: ClassVar[str] = "What share of the answer's claims does the retrieved context support?"

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        check_options(self.name, options, ("batch_size",))
        size = read_int(options, "batch_size", DEFAULT_BATCH, metric=self.name)
        claims = await extract_statements(
            ask, self.name, EXTRACT_CLAIMS, "answer", sample.answer, sample.question
        )
        if not claims:
            return Scored(
                score=1.0,
                reasons="The answer makes no factual claim, so nothing in it can be unsupported.",
                evidence=ClaimsEvidence(),
                details={"claims": 0.0, "supported": 0.0},
            )
        contexts = [c.text for c in sample.contexts]
        requests = []
        for start, chunk in batches(claims, size):
            user = "\n\n".join([context_blocks(sample.contexts), numbered_list("claim", list(chunk))])
            requests.append(
                (
                    start,
                    chunk,
                    judge_request(
                        self.name,
                        VERIFY_CLAIMS,
                        user,
                        ClaimChecks,
                        {"claims": list(chunk), "contexts": contexts},
                    ),
                )
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


class ContextRecallAttribution(Metric):
    name: ClassVar[str] = "context_recall"
    mode: ClassVar[str] = "attribution"
    scale: ClassVar[Scale] = RATIO
    default_threshold: ClassVar[float | None] = 0.8
    required: ClassVar[tuple[str, ...]] = ("reference", "contexts")
    question: ClassVar[str] = "What share of the reference's facts can be found in the retrieved contexts?"

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        check_options(self.name, options, ())
        reference = sample.reference or ""
        facts = await extract_statements(ask, self.name, EXTRACT_FACTS, "reference", reference)
        if not facts:
            raise InputError(
                "context_recall (attribution mode): the judge found no fact in the reference, so there is "
                "nothing to recall; give a reference that states the expected facts"
            )
        k = len(sample.contexts)
        user = "\n\n".join([context_blocks(sample.contexts), numbered_list("statement", facts)])
        request = judge_request(
            self.name,
            ATTRIBUTE_FACTS,
            user,
            FactAttributions,
            {"facts": facts, "contexts": [c.text for c in sample.contexts]},
            max_tokens=2048,
        )
        reply = await ask(request, FactAttributions)
        ordered = verdicts_in_order(self.name, ask.judge_label, reply.verdicts, len(facts), "facts")
        attributions: list[FactAttribution] = []
        for fact, v in zip(facts, ordered, strict=True):
            source = v.source_context if v.covered else None
            if source is not None and not 1 <= source <= k:
                raise JudgeError(
                    f"the judge attributed fact {v.index} to context {source}, but there are {k} contexts",
                    judge=ask.judge_label,
                    metric=self.name,
                )
            attributions.append(
                FactAttribution(fact=fact, covered=v.covered, source_context=source, reason=v.reasoning)
            )
        covered = sum(1 for a in attributions if a.covered)
        return Scored(
            score=covered / len(attributions),
            reasons=f"{covered} of {len(attributions)} reference facts are found in the retrieved contexts.",
            evidence=AttributionEvidence(
                facts=attributions, missing_facts=[a.fact for a in attributions if not a.covered]
            ),
            details={"facts": float(len(attributions)), "covered": float(covered)},
        )


CLAIM_METRICS: tuple[type[Metric], ...] = (FaithfulnessClaims, ContextRecallAttribution)
