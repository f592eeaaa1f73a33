"""Writing one case and checking it, as a metric the session scores like any other.

``pytest-rag generate`` hands every planned case to the session as a check of this metric, so
writing and checking go through the judgment engine exactly as judging does: the cache, the
concurrency limit, retries, ``--dry-run``, the budget and the batch rounds of ``score_many``. The
check's score is 1 when the case is kept and 0 when its check failed; its evidence is the case.

The check is the judge's (whichever judge the command uses):

* an answerable case is kept when ``faithfulness`` of its reference against its passages reaches
  the metric's default bar (4 of 5): the reference says only what the passages say;
* an unanswerable case is kept when ``context_precision`` finds no passage near its topic useful for
  answering it: the documents really do not answer it.

The metric is registered only in the generate command's session, never in a test run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field

from ...inputs import Chunk, Sample
from ...metrics.base import Asker, Metric, Scale, Scored
from ...metrics.grounding import Faithfulness
from ...metrics.retrieval import ContextPrecision
from ...results import Evidence
from .kinds import Target
from .llm import METRIC, GeneratedCase, GenerationTemplate, generation_request
from .offline import NOT_SAID, write_offline
from .passages import Passage


class GeneratedEvidence(Evidence):
    """The case that was written, and what its check found."""

    kind: str
    question: str = ""
    reference: str = ""
    template: str = ""
    support: float | None = None
    check: str = ""
    kept: bool = False
    passages: list[str] = Field(default_factory=list)


def passages_of(options: Mapping[str, Any], key: str) -> tuple[Passage, ...]:
    return tuple(Passage(**item) for item in options.get(key, ()))


def _contexts(passages: tuple[Passage, ...]) -> tuple[Chunk, ...]:
    return tuple(Chunk(p.text, id=p.id) for p in passages)


class CaseGeneration(Metric):
    """A case written from its passages (offline or by the judge) and kept when the judge's check holds."""

    name = METRIC
    scale = Scale(0, 1)
    options: ClassVar[tuple[str, ...]] = (
        "kind",
        "passages",
        "nearest",
        "generator",
        "pick",
        "absent",
        "names",
    )

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        kind = str(options["kind"])
        target = Target(
            kind,
            passages_of(options, "passages"),
            passages_of(options, "nearest"),
            int(options.get("pick", 0)),
        )
        evidence = GeneratedEvidence(kind=kind, passages=[p.id for p in target.passages])
        if options.get("generator") == "llm":
            reply = await ask(generation_request(kind, target.passages), GeneratedCase)
            written: tuple[str, str] | None = (reply.question.strip(), reply.reference.strip())
            template = GenerationTemplate(kind)
            evidence.template = f"{template.id} v{template.version}"
        else:
            written = write_offline(target, list(options.get("absent", ())), set(options.get("names", ())))
            evidence.template = f"offline.{kind}"
        if written is None or not written[0]:
            evidence.check = "no sentence of the passages could be asked about"
            return Scored(score=0.0, reasons=evidence.check, evidence=evidence)
        evidence.question, evidence.reference = written[0], NOT_SAID if kind == "unanswerable" else written[1]
        if kind == "unanswerable":
            found = await ContextPrecision().score(
                ask, Sample(question=evidence.question, contexts=_contexts(target.nearest)), {}
            )
            evidence.kept = found.score == 0
            evidence.check = (
                "no passage near its topic answers it"
                if evidence.kept
                else f"a passage answers it: {found.reasons}"
            )
        else:
            found = await Faithfulness().score(
                ask,
                Sample(
                    question=evidence.question, answer=evidence.reference, contexts=_contexts(target.passages)
                ),
                {},
            )
            bar = Faithfulness.default_threshold
            evidence.kept = bar is not None and found.score >= bar
            evidence.check = (
                f"faithfulness of the reference to its passages: {found.score:g} of 5 ({found.reasons})"
            )
        evidence.support = found.score
        return Scored(score=1.0 if evidence.kept else 0.0, reasons=evidence.check, evidence=evidence)
