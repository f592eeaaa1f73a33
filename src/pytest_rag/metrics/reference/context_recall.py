"""Context recall: how many of the reference's key facts the answer covers (one 1-5 judgment), or
which retrieved context states each of them (mode ``attribution``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ...errors import InputError
from ...helper_forms import Check, score_form
from ...inputs import ContextLike, Sample
from ...results import Evidence
from ..base import Asker, Metric, Scale, Scored
from ..judging import LIST_TOKENS, SingleJudgment
from ..prompts import (
    LENGTH_RULE,
    Template,
    block,
    context_blocks,
)
from ..statements import ItemCheck, NumberedQuestion, claim_list_fields, extract_statements
from ..verdict_shapes import (
    Asked,
    GradedFindings,
    Listed,
    graded_findings_question,
    numbered_verdicts_question,
)

# -- context recall ----------------------------------------------------------------------------

RECALL_TEMPLATE = graded_findings_question(
    module=__name__,
    id="context_recall.single",
    version="2",
    task=(
        "Task: decide how many of the key facts in the reference the answer covers. First list the "
        "reference's key facts (the facts a complete answer needs, one short sentence each) in "
        '"key_facts", then check each against the answer. Facts the answer adds beyond the reference '
        "neither help nor hurt."
    ),
    scale=(
        "Scale:\n"
        "5 - all key facts are covered.\n"
        "4 - most are covered; one or two minor facts are missing.\n"
        "3 - about half are covered.\n"
        "2 - only a few are covered.\n"
        "1 - none are covered."
    ),
    findings="missing_facts",
    asked="list of the reference's key facts that the answer does not cover",
    listed="key facts of the reference the answer does not cover; empty if none",
    verdict="RecallVerdict",
    length_rule=LENGTH_RULE,
    first=Listed(
        "key_facts",
        "list of the reference's key facts, written before the grade",
        "the key facts of the reference, each one short sentence, listed before the grade",
    ),
)
RecallVerdict = RECALL_TEMPLATE.verdict


class RecallEvidence(Evidence):
    missing_facts: list[str] = Field(default_factory=list)


class ContextRecall(GradedFindings, SingleJudgment):
    """Key facts of the reference covered by the answer; the reference falls back to the context.

    One judgment on 1-5 anchors with the judge's reasons and the facts that cost points, as the omk
    RAG metrics specification defines context recall.
    """

    name = "context_recall"
    default_threshold = 3
    required = ("answer",)
    template = RECALL_TEMPLATE
    evidence_model = RecallEvidence

    def check_inputs(self, sample: Sample) -> None:
        super().check_inputs(sample)
        if not (sample.reference and sample.reference.strip()) and not sample.contexts:
            raise InputError(
                "context_recall needs a reference (or, failing that, a context); pass reference=..."
            )

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        reference = sample.reference if sample.reference and sample.reference.strip() else None
        reference_text = reference if reference is not None else "\n\n".join(c.text for c in sample.contexts)
        user = "\n\n".join([block("reference", reference_text), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "reference": reference_text}


# -- context recall by fact attribution --------------------------------------------------------

EXTRACT_FACTS = Template(
    id="context_recall.attribution.extract",
    version="2",
    task=(
        "Task: list the distinct key facts stated in the reference answer, each as one short "
        "standalone sentence. Keep every fact a complete answer would need; do not add facts that "
        "the reference does not state."
    ),
    fields=claim_list_fields("list of fact strings"),
    length_rule="",
)


ATTRIBUTE_FACTS = numbered_verdicts_question(
    module=__name__,
    id="context_recall.attribution.attribute",
    version="2",
    task=(
        "Task: for each numbered fact, decide whether any of the numbered retrieved contexts states "
        "it, and if so which one. Give the number of the context that states it most completely; "
        "give null when no context does. Use only the contexts, not your own knowledge."
    ),
    item="fact",
    answers={
        "covered": Asked(bool, "true or false", "true when some context states the fact"),
        "source_context": Asked(
            int | None,
            "context number or null",
            "number of the context that states the fact (1-based), or null when none does",
        ),
    },
    verdict="FactAttributions",
    item_verdict="FactAttributionVerdict",
    length_rule="",
)


@dataclass(frozen=True)
class SourceAmong(ItemCheck):
    """A covered fact's source is one of the ``contexts`` numbered contexts."""

    contexts: int

    def __call__(self, verdict: Any) -> str | None:
        source = verdict.source_context
        if verdict.covered and source is not None and not 1 <= source <= self.contexts:
            return (
                f"fact {verdict.index} is attributed to context {source}, but there are {self.contexts} "
                f"contexts (1-{self.contexts})"
            )
        return None


class FactAttribution(BaseModel):
    fact: str
    covered: bool
    source_context: int | None = None
    reason: str = ""


class AttributionEvidence(Evidence):
    facts: list[FactAttribution] = Field(default_factory=list)
    missing_facts: list[str] = Field(default_factory=list)


class ContextRecallAttribution(Metric):
    """What share of the reference's facts can be found in the retrieved contexts?

    RAGAS-style, as llm4s specifies it: the reference's facts (one extraction call), each attributed
    to the context that states it (1-indexed, kept per fact); score = covered / total. A reference
    without facts has nothing to recall and is an input error.
    """

    name = "context_recall"
    mode = "attribution"
    scale = Scale(0, 1)
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
        attribution = NumberedQuestion(
            self.name,
            ATTRIBUTE_FACTS,
            [context_blocks(sample.contexts)],
            "statement",
            "facts",
            max_tokens=LIST_TOKENS,
            item_check=SourceAmong(k),
        )
        ordered = await attribution.judge(
            ask, facts, {"facts": facts, "contexts": [c.text for c in sample.contexts]}
        )
        attributions: list[FactAttribution] = []
        for fact, v in zip(facts, ordered, strict=True):
            source = v.source_context if v.covered else None  # within 1-k: checked as the reply was read
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


class ContextRecallHelpers:
    """The ``rag_judge`` helpers of context recall, in both modes."""

    @score_form("context_recall")
    def context_recall(
        self,
        answer: str,
        reference: str | None = None,
        threshold: float | None = None,
        *,
        contexts: ContextLike = None,
        mode: str | None = None,
    ) -> Check:
        """Does ``answer`` cover the key facts of ``reference`` (falling back to ``contexts``)? 1-5."""
        return Check(answer=answer, reference=reference, contexts=contexts, threshold=threshold, mode=mode)

    assert_context_recall, acontext_recall, aassert_context_recall = context_recall.other_forms()

    @score_form("context_recall", mode="attribution")
    def context_recall_attribution(
        self, reference: str, contexts: ContextLike, threshold: float | None = None
    ) -> Check:
        """Share of the reference's facts found in the contexts, each with its 1-indexed source."""
        return Check(reference=reference, contexts=contexts, threshold=threshold)

    assert_context_recall_attribution, acontext_recall_attribution, aassert_context_recall_attribution = (
        context_recall_attribution.other_forms()
    )
