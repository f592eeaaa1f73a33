"""Nugget evaluation (Open RAG Eval's AutoNuggetizer of the TREC 2024 RAG track).

1. Passages are graded with UMBRELA (one call each, or ``umbrela_grades=[...]`` given by the
   caller); only passages graded >= 1 feed nugget creation.
2. Creation: the judge extracts atomic nuggets (1-12 words each) from those passages and refines the
   list over up to 5 rounds, stopping early when a round changes nothing; at most 30 are kept.
3. Importance: each nugget is labelled vital or okay, 10 per call; vital nuggets first, the top 20
   are kept.
4. Assignment: each kept nugget is labelled support / partial_support / not_support against the
   answer, 10 per call.

Scores (:func:`pytest_rag.scoring.nugget_scores`): all, vital, weighted and their strict forms; the
headline is chosen by ``score=`` (default ``vital``, Open RAG Eval's reported column; when there is
no vital nugget it falls back to ``all``). Creation needs text generation, so the offline judge
refuses this metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import InputError
from ..helper_forms import Check, given, score_form
from ..inputs import Chunk, ContextLike, Sample
from ..results import Evidence
from ..scoring import nugget_scores
from .base import Asker, Metric, Scale, Scored
from .judging import LABEL_TOKENS, LIST_TOKENS, judge_request
from .options import read_choice
from .prompts import Template, block, numbered_list, passage_block
from .retrieval import grade_passages
from .statements import NumberedQuestion

MAX_NUGGETS = 30
"""Most nuggets the nugget-creation template asks for (and the metric keeps)."""


NUGGET_CREATE = Template(
    id="nuggets.create",
    version="2",
    task=(
        "Task: build a list of information nuggets for the question from the passages. A nugget is "
        "one atomic fact of 1 to 12 words that helps answer the question. You get the current list; "
        "return the full updated list: keep the useful nuggets, add missing ones found in the "
        f"passages, merge duplicates. At most {MAX_NUGGETS} nuggets. If nothing needs changing, "
        "return the list unchanged."
    ),
    fields={"nuggets": "the full updated list of nugget strings"},
    length_rule="",
)


NUGGET_IMPORTANCE = Template(
    id="nuggets.importance",
    version="2",
    task=(
        "Task: label each numbered nugget for the question: 'vital' when a good answer must contain "
        "it, 'okay' when it is worth having but not essential."
    ),
    fields={
        "labels": 'list with one object per nugget, in order: {"index": number, "importance": "vital" | "okay"}'
    },
    length_rule="",
)


NUGGET_ASSIGN = Template(
    id="nuggets.assign",
    version="2",
    task=(
        "Task: for each numbered nugget, decide whether the answer contains it: 'support' when the "
        "answer fully states it, 'partial_support' when it states it only in part, 'not_support' "
        "otherwise."
    ),
    fields={
        "labels": 'list with one object per nugget, in order: {"index": number, "assignment": '
        '"support" | "partial_support" | "not_support"}'
    },
    length_rule="",
)


class NuggetList(BaseModel):
    nuggets: list[str] = Field(description="the full, updated list of nuggets (1-12 words each)")


class ImportanceLabel(BaseModel):
    index: int = Field(description="number of the nugget (1-based)")
    importance: Literal["vital", "okay"] = Field(description="vital or okay")


class ImportanceLabels(BaseModel):
    labels: list[ImportanceLabel] = Field(description="one label per nugget, in order")


class AssignmentLabel(BaseModel):
    index: int = Field(description="number of the nugget (1-based)")
    assignment: Literal["support", "partial_support", "not_support"] = Field(
        description="support, partial_support or not_support"
    )


class AssignmentLabels(BaseModel):
    labels: list[AssignmentLabel] = Field(description="one label per nugget, in order")


class Nugget(BaseModel):
    text: str
    importance: Literal["vital", "okay"]
    assignment: Literal["support", "partial_support", "not_support"]


class NuggetEvidence(Evidence):
    nuggets: list[Nugget] = Field(default_factory=list)
    creation_passages: list[int] = Field(default_factory=list)
    creation_rounds: int = 0


MAX_ROUNDS = 5
KEEP = 20
BATCH = 10
CREATION_GRADE = 1
HEADLINES = ("vital", "all", "weighted", "strict_vital", "strict_all", "strict_weighted")


def _read_grades(options: Mapping[str, Any], k: int) -> list[int] | None:
    raw = options.get("umbrela_grades")
    if raw is None:
        return None
    if not isinstance(raw, Sequence) or isinstance(raw, str) or len(raw) != k:
        raise InputError(
            f"nuggets: umbrela_grades must be a list of {k} grades (one per context), got {raw!r}"
        )
    if any(isinstance(g, bool) or g not in (0, 1, 2, 3) for g in raw):
        raise InputError(f"nuggets: umbrela_grades must each be 0, 1, 2 or 3, got {raw!r}")
    return [int(g) for g in raw]


class Nuggets(Metric):
    """How many of the essential information nuggets does the answer contain?

    Open RAG Eval's AutoNuggetizer, of the TREC 2024 RAG track (the module docstring has the steps).
    """

    name = "nuggets"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("question", "answer", "contexts")
    options = ("umbrela_grades", "score")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        headline = read_choice(options, "score", "vital", HEADLINES, metric=self.name)
        grades = _read_grades(options, len(sample.contexts))
        if grades is None:
            graded, _ = await grade_passages(ask, self.name, sample.question, sample.contexts)
            grades = [g.grade for g in graded]
        usable = [
            (i, c)
            for i, (c, g) in enumerate(zip(sample.contexts, grades, strict=True), start=1)
            if g >= CREATION_GRADE
        ]
        if not usable:
            raise InputError(
                "nuggets: no retrieved passage is even related to the question (UMBRELA grade >= 1), so "
                "there is nothing to build nuggets from; check the retrieval (umbrela) first"
            )
        nuggets, rounds = await self._create(ask, sample.question, usable)
        if not nuggets:
            raise InputError("nuggets: the judge found no nugget in the related passages; nothing to score")
        importance = await self._label(
            ask, NUGGET_IMPORTANCE, ImportanceLabels, sample.question, None, nuggets
        )
        ranked = sorted(zip(nuggets, importance, strict=True), key=lambda pair: pair[1] != "vital")[:KEEP]
        kept = [text for text, _ in ranked]
        assignment = await self._label(
            ask, NUGGET_ASSIGN, AssignmentLabels, sample.question, sample.answer, kept
        )
        rows = [
            Nugget(text=text, importance=imp, assignment=assigned)  # type: ignore[arg-type]
            for (text, imp), assigned in zip(ranked, assignment, strict=True)
        ]
        scores = nugget_scores((n.importance, n.assignment) for n in rows)
        values = {name: getattr(scores, name) for name in HEADLINES}
        chosen = values[headline]
        if chosen is None:  # no vital nugget: every nugget is okay, so 'all' is the honest stand-in
            chosen = values["strict_all" if headline.startswith("strict") else "all"]
        assert chosen is not None  # at least one nugget exists here
        details = {name: v for name, v in values.items() if v is not None}
        details.update({"vital_nuggets": float(scores.n_vital), "okay_nuggets": float(scores.n_okay)})
        supported = sum(1 for n in rows if n.assignment == "support")
        return Scored(
            score=chosen,
            reasons=f"{supported} of {len(rows)} nuggets fully supported by the answer ({scores.n_vital} "
            f"vital); {headline} score {chosen:.3f}.",
            evidence=NuggetEvidence(
                nuggets=rows, creation_passages=[i for i, _ in usable], creation_rounds=rounds
            ),
            details=details,
        )

    async def _create(
        self, ask: Asker, question: str, passages: Sequence[tuple[int, Chunk]]
    ) -> tuple[list[str], int]:
        current: list[str] = []
        body = "\n".join(passage_block(chunk, i) for i, chunk in passages)
        rounds = 0
        for _ in range(MAX_ROUNDS):
            rounds += 1
            listing = numbered_list("nuggets", current) if current else block("nuggets", "(empty list)")
            user = "\n\n".join([block("question", question), body, listing])
            request = judge_request(
                self.name,
                NUGGET_CREATE,
                user,
                NuggetList,
                {"question": question, "passages": [c.text for _, c in passages], "nuggets": current},
                max_tokens=LIST_TOKENS,
            )
            reply = await ask(request, NuggetList)
            updated = list(dict.fromkeys(n.strip() for n in reply.nuggets if n.strip()))[:MAX_NUGGETS]
            if updated == current:
                break
            current = updated
        return current, rounds

    async def _label(
        self,
        ask: Asker,
        template: Template,
        model: type[ImportanceLabels] | type[AssignmentLabels],
        question: str,
        answer: str | None,
        nuggets: Sequence[str],
    ) -> list[str]:
        head = [block("question", question)] + ([block("answer", answer)] if answer is not None else [])

        def inputs_of(start: int, chunk: Sequence[str]) -> dict[str, Any]:
            return {"question": question, "answer": answer, "nuggets": list(chunk)}

        labelling = NumberedQuestion(
            self.name, template, head, "nuggets", "nuggets", reply=model, item_tokens=LABEL_TOKENS
        )
        labels = await labelling.judge_in_batches(ask, nuggets, BATCH, inputs_of)
        return [
            str(getattr(label, "importance", None) or getattr(label, "assignment", "")) for label in labels
        ]


class NuggetsHelpers:
    """The ``rag_judge`` helpers of nugget evaluation (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("nuggets")
    def nuggets(
        self,
        answer: str,
        question: str,
        contexts: ContextLike,
        *,
        umbrela_grades: Sequence[int] | None = None,
        score: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """AutoNuggetizer score: nuggets from the passages, labelled vital/okay, assigned to the answer."""
        options = given(umbrela_grades=umbrela_grades, score=score)
        return Check(
            answer=answer, question=question, contexts=contexts, threshold=threshold, options=options
        )

    assert_nuggets, anuggets, aassert_nuggets = nuggets.other_forms()
