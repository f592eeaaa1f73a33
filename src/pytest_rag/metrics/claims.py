"""Claim-based modes (RAGAS-style, as llm4s specifies them): faithfulness by claims and context recall by fact attribution.

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
from typing import Any

from ..errors import InputError, JudgeError
from ..inputs import Sample
from .base import Asker, Metric, Scale, Scored
from .evidence import AttributionEvidence, ClaimsEvidence, ClaimVerdict, FactAttribution
from .prompts import Template, block, context_blocks, numbered_list
from .templates import ATTRIBUTE_FACTS, EXTRACT_CLAIMS, EXTRACT_FACTS, VERIFY_CLAIMS
from .toolkit import batch_count, batches, judge_request, read_int
from .verdicts import ClaimChecks, ClaimList, FactAttributions

RATIO = Scale(0, 1)
DEFAULT_BATCH = 5


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
    ask: Asker,
    metric: str,
    template: Template,
    tag: str,
    text: str,
    question: str = "",
    contexts: Sequence[str] = (),
) -> list[str]:
    """One extraction call; blank items are dropped (they carry no statement). ``question`` and
    ``contexts`` go to the task inputs only (the offline judge reads a bare "yes" with the question
    and words its claim after the contexts), not into the prompt."""
    inputs: dict[str, Any] = {"text": text}
    if question:
        inputs.update(question=question, contexts=list(contexts))
    request = judge_request(metric, template, block(tag, text), ClaimList, inputs, max_tokens=2048)
    verdict = await ask(request, ClaimList)
    return [c.strip() for c in verdict.claims if c.strip()]


class FaithfulnessClaims(Metric):
    """What share of the answer's claims does the retrieved context support?"""

    name = "faithfulness"
    mode = "claims"
    scale = RATIO
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


class ContextRecallAttribution(Metric):
    """What share of the reference's facts can be found in the retrieved contexts?"""

    name = "context_recall"
    mode = "attribution"
    scale = RATIO
    default_threshold = 0.8
    required = ("reference", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
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
