"""Writing one case and checking it, as a metric the session scores like any other.

``pytest-rag generate`` hands every planned case to the session as a check of this metric, so
writing and checking go through the judgment engine exactly as judging does: the cache, the
concurrency limit, retries, ``--dry-run``, the budget and the batch rounds of ``score_many``. The
check's score is 1 when the case is kept and 0 when a check failed; its evidence is the case, the
checks that kept it, or the one that dropped it.

An answerable case is kept when every one of these holds (the first is read without a judge, and a
case that fails it costs no call; the judge's checks are asked together, so that batches take one
round for them all):

1. **answer type** (no judge): the reference gives the kind of thing the question asks for, and the
   question does not already hold it (:mod:`.answer_types`);
2. **support**: the judge's ``faithfulness`` of the reference to its passages reaches 4 of 5. A
   reference copied word for word from its passages (the offline generator's always are) cannot
   fail that check, so it is not asked: the case says "copied from its passage" instead of a score;
3. **answerable**: the judge's ``context_precision`` finds every passage of the case useful for
   answering the question (a multi-hop question needs both);
4. **answer relevancy**: the judge's ``answer_relevancy`` of the reference to the question reaches
   4 of 5: a question-aware check that did not write the reference agrees that it answers it.

An unanswerable case is kept when the judge's ``context_precision`` finds no passage near its topic
useful for answering it. The offline judge reads a passage's topic, not whether it answers, so with
it that check is replaced by the one it stands for: no passage near the topic uses the words that
would state what is asked (the offline generator's questions name those words). The case records
each check that kept it, by name, score and judge.

The metric is registered only in the generate command's session, never in a test run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field

from ...inputs import Chunk, Sample
from ...metrics.base import Asker, Metric, Scale, Scored
from ...metrics.grounding import Faithfulness
from ...metrics.relevance import AnswerRelevancy
from ...metrics.retrieval import ContextPrecision
from ...results import Evidence
from ...scoring.text import split_sentences
from .answer_types import asked_kind, gives_what_is_asked
from .kinds import Target
from .llm import METRIC, GeneratedCase, GenerationTemplate, generation_request
from .offline import NOT_SAID, write_offline
from .passages import Passage
from .unanswerable import states_any

RELEVANCY_BAR = 4
"""Least ``answer_relevancy`` (of 5) of a kept case's reference to its question."""


class GeneratedEvidence(Evidence):
    """The case that was written, what its checks found, and which kept it."""

    kind: str
    question: str = ""
    reference: str = ""
    template: str = ""
    support: float | None = None
    check: str = ""
    """Why the case was dropped, or the checks that kept it, in one line."""
    checks: list[str] = Field(default_factory=list)
    """Each check that kept the case: its name, its finding, and who made it."""
    kept: bool = False
    passages: list[str] = Field(default_factory=list)


def passages_of(options: Mapping[str, Any], key: str) -> tuple[Passage, ...]:
    return tuple(Passage(**item) for item in options.get(key, ()))


def _contexts(passages: tuple[Passage, ...]) -> tuple[Chunk, ...]:
    return tuple(Chunk(p.text, id=p.id) for p in passages)


def copied(reference: str, passages: tuple[Passage, ...]) -> bool:
    """Whether every sentence of ``reference`` stands word for word in one of ``passages``."""
    texts = [" ".join(p.text.split()) for p in passages]
    sentences = split_sentences(reference)
    return bool(sentences) and all(any(" ".join(s.split()) in t for t in texts) for s in sentences)


class CaseGeneration(Metric):
    """A case written from its passages (offline or by the judge) and kept when its checks hold."""

    name = METRIC
    scale = Scale(0, 1)
    options: ClassVar[tuple[str, ...]] = (
        "kind",
        "passages",
        "nearest",
        "generator",
        "pick",
        "facts",
        "names",
        "offline_judge",
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
        absent: list[str] = []
        if options.get("generator") == "llm":
            reply = await ask(generation_request(kind, target.passages), GeneratedCase)
            question, reference = reply.question.strip(), reply.reference.strip()
            template = GenerationTemplate(kind)
            evidence.template = f"{template.id} v{template.version}"
        else:
            written = write_offline(target, dict(options.get("facts", {})), set(options.get("names", ())))
            evidence.template = f"offline.{kind}"
            question, reference, absent = written if written is not None else ("", "", [])
        if not question:
            return _drop(evidence, "no sentence of the passages could be asked about")
        evidence.question = question
        if kind == "unanswerable":
            evidence.reference = NOT_SAID
            return await self._unanswerable(ask, evidence, target, absent, bool(options.get("offline_judge")))
        evidence.reference = reference
        return await self._answerable(ask, evidence, target)

    async def _answerable(self, ask: Asker, evidence: GeneratedEvidence, target: Target) -> Scored:
        judge = ask.judge_label
        question, reference = evidence.question, evidence.reference
        wrong_type = gives_what_is_asked(question, reference)
        if wrong_type is not None:
            return _drop(evidence, f"wrong answer type: {wrong_type}")
        evidence.checks.append(f'answer type: the reference gives what "{asked_kind(question)}" asks for')
        contexts = _contexts(target.passages)
        is_copy = copied(reference, target.passages)
        # the judge's checks are asked together: one batch round for all of them, not one each
        useful, relevancy, *support = await ask.gather(
            ContextPrecision().score(ask, Sample(question=question, contexts=contexts), {}),
            AnswerRelevancy().score(ask, Sample(question=question, answer=reference), {}),
            *(
                []
                if is_copy
                else [
                    Faithfulness().score(
                        ask, Sample(question=question, answer=reference, contexts=contexts), {}
                    )
                ]
            ),
        )
        if is_copy:
            evidence.checks.append("support: copied from its passage, not judged")
        else:
            evidence.support = support[0].score
            if support[0].score < (Faithfulness.default_threshold or 4):
                return _drop(
                    evidence,
                    f"unsupported reference: faithfulness {support[0].score:g} of 5",
                    support[0].reasons,
                )
            evidence.checks.append(f"support: faithfulness {support[0].score:g}/5 ({judge})")
        held, total = int(useful.details.get("useful", 0)), len(target.passages)
        if held < total:
            return _drop(
                evidence, f"not answerable from its passages: {held} of {total} useful", useful.reasons
            )
        evidence.checks.append(f"answerable: {held} of {total} passage(s) useful ({judge})")
        if relevancy.score < RELEVANCY_BAR:
            return _drop(
                evidence,
                f"the reference does not answer it: answer relevancy {relevancy.score:g} of 5",
                relevancy.reasons,
            )
        evidence.checks.append(f"answer relevancy: {relevancy.score:g}/5 ({judge})")
        return _keep(evidence)

    async def _unanswerable(
        self, ask: Asker, evidence: GeneratedEvidence, target: Target, absent: list[str], offline_judge: bool
    ) -> Scored:
        near = target.nearest or target.passages
        if offline_judge and absent:
            used = states_any((p.text for p in near), absent)
            if used:
                return _drop(evidence, f"a passage near its topic uses {', '.join(used[:3])}")
            evidence.checks.append(
                f"unanswerable: no passage near its topic uses {', '.join(absent[:4])} "
                "(the offline judge reads topic, not answers: not judged)"
            )
            return _keep(evidence)
        found = await ContextPrecision().score(
            ask, Sample(question=evidence.question, contexts=_contexts(near)), {}
        )
        if found.score != 0:
            return _drop(evidence, "a passage near its topic answers it", found.reasons)
        evidence.checks.append(f"unanswerable: no passage near its topic answers it ({ask.judge_label})")
        return _keep(evidence)


def _keep(evidence: GeneratedEvidence) -> Scored:
    evidence.kept = True
    evidence.check = "; ".join(evidence.checks)
    return Scored(score=1.0, reasons=evidence.check, evidence=evidence)


def _drop(evidence: GeneratedEvidence, reason: str, details: str = "") -> Scored:
    """A dropped case: ``reason`` is what the command counts; ``details`` the judge's own words."""
    evidence.check = reason
    return Scored(score=0.0, reasons=f"{reason} ({details})" if details else reason, evidence=evidence)
