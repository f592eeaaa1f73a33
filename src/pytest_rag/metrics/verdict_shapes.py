"""The verdict shapes many templates share, each declared once: the fields a template asks for and
the pydantic model that validates the reply come from the same words, so they cannot drift apart.

* a **graded finding list** (the omk-style 1-5 judgments: faithfulness, answer relevancy, context
  recall and their per-turn versions): the reasons, the items that cost points, the grade, one of
  the scale's whole numbers (an enum in the schema, so constrained decoding cannot write 0 or 7 on
  a 1-5 scale); optionally a list the judge writes first (context recall's key facts);
* a **check with findings** (the conversation checks, binary answer consistency): the reasons, the
  items that break the check, then whether it holds;
* a **numbered verdict list**: one verdict per numbered item (its number, reasons and answers), in a
  single ``verdicts`` field; the object the template describes and the item model are one declaration;
* a **yes/no question** about one item (a passage, a statement, an answer): the reasons, then one
  true/false decision; its template and its verdict model are one declaration.

A model's name, field names, descriptions and field order enter every cache key (see
``tests/test_prompt_stability.py``); the builders take the name and the wording from the metric, so
the schemas are exactly those the metrics declared as classes before. A built model belongs to the
family module that calls the builder (its ``__module__``), as a class declared there would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, create_model

from ..results import Evidence, Scale
from .base import Asker, Scored
from .judging import judge_each
from .prompts import LENGTH_RULE, REASONING, SCORE_REASONING, ReasonedVerdict, Template

GRADES = Scale(1, 5)
"""The grades of a graded finding list unless its template names others."""


def grade_field(grades: Scale, description: str) -> Any:
    """The type and field of a whole-number grade on ``grades``: a ``Literal`` of every grade, so the
    schema holds them as an enum (constrained decoding can write no other) and pydantic refuses any
    other as the reply is read."""
    levels: Any = Literal.__getitem__(tuple(range(int(grades.low), int(grades.high) + 1)))
    return (levels, Field(description=description))


@dataclass(frozen=True)
class Listed:
    """A list the judge writes before it grades (its name, how the template asks for it, how the
    reply model describes it): the steps of a judgment a model without hidden reasoning can only
    take in its output. It may be left out of a reply (an empty list), so a judge that computes the
    grade directly need not write it."""

    name: str
    asked: str
    described: str


@dataclass(frozen=True, kw_only=True)
class GradedFindingsQuestion(Template):
    """A template that asks for a grade and the items that cost points, with the model of its
    reply (:attr:`verdict`), whose list field :attr:`findings` the template names. Built by
    :func:`graded_findings_question`; a :class:`GradedFindings` metric reads its verdict model, its
    findings and its scale (:attr:`grades`) from here instead of naming them again."""

    findings: str
    verdict: type[BaseModel] = field(repr=False, compare=False)
    grades: Scale = GRADES


def graded_findings_question(
    *,
    module: str,
    id: str,
    version: str,
    task: str,
    scale: str,
    findings: str,
    asked: str,
    listed: str,
    verdict: str,
    length_rule: str = LENGTH_RULE,
    grades: Scale = GRADES,
    first: Listed | None = None,
) -> GradedFindingsQuestion:
    """The template ``id`` asking for the reasons, the ``findings`` list (``asked`` says what it
    holds, ``listed`` describes it in the reply model) and the grade, one of the whole numbers of
    ``grades`` (``scale`` anchors each grade), with its reply model named ``verdict``; ``first``
    is a list the judge writes before all of them."""
    fields: dict[str, Any] = {}
    template_fields: dict[str, str] = {}
    if first is not None:
        fields[first.name] = (list[str], Field(default_factory=list, description=first.described))
        template_fields[first.name] = first.asked
    fields.update(
        {
            "reasoning": (str, Field(description=SCORE_REASONING)),
            findings: (list[str], Field(description=listed)),
            "score": grade_field(grades, f"the score on the {grades} scale"),
        }
    )
    template_fields.update({"reasoning": SCORE_REASONING, findings: asked, "score": f"integer {grades}"})
    return GradedFindingsQuestion(
        id=id,
        version=version,
        task=task,
        scale=scale,
        fields=template_fields,
        length_rule=length_rule,
        findings=findings,
        verdict=create_model(verdict, __module__=module, **fields),
        grades=grades,
    )


class GradedFindings:
    """Scoring of a graded finding list, mixed into a metric whose :attr:`template` is a
    :class:`GradedFindingsQuestion`: the metric's scale is the template's (set when the class is
    declared, as its verdict model is by :class:`~.judging.SingleJudgment`), the grade is the score, the
    reasons are the judge's, the findings become the evidence (:attr:`evidence_model`, in its field
    :attr:`evidence_field`, by default the template's findings name)."""

    template: ClassVar[GradedFindingsQuestion]
    verdict: ClassVar[type[BaseModel]]
    scale: ClassVar[Scale]
    evidence_model: ClassVar[type[Evidence]]
    evidence_field: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        question = cls.__dict__.get("template")
        if question is None:
            return
        if not isinstance(question, GradedFindingsQuestion):
            raise TypeError(
                f"{cls.__name__} scores a graded finding list, but its template {question.id} does not "
                "say which field lists the findings; declare it with graded_findings_question(...)"
            )
        cls.scale = question.grades

    def scored(self, verdict: Any) -> Scored:
        findings = self.template.findings
        listed = list(getattr(verdict, findings))
        evidence = self.evidence_model(**{self.evidence_field or findings: listed})
        return Scored(score=verdict.score, reasons=verdict.reasoning, evidence=evidence)


def check_fields(findings: str, asked: str, holds: str) -> dict[str, str]:
    """The template fields of a check with findings: reasons, the ``findings`` list (``asked`` says
    what it holds), then the true/false ``holds``."""
    return {"reasoning": REASONING, findings: asked, holds: "true or false"}


def check_verdict(
    name: str, findings: str, listed: str, holds: str, held: str, *, module: str
) -> type[BaseModel]:
    """The verdict model ``name`` of a check with findings: :class:`ReasonedVerdict`'s reasons, the
    ``findings`` list (``listed`` describes it), the bool ``holds`` (``held`` says when it is true).
    ``module`` is the declaring family's ``__name__``, as for every builder here: the model belongs
    to the module that asks for it."""
    fields: dict[str, Any] = {
        findings: (list[str], Field(description=listed)),
        holds: (bool, Field(description=held)),
    }
    return create_model(name, __base__=ReasonedVerdict, __module__=module, **fields)


NUMBERED_FIELD = "verdicts"
"""The one field of a numbered verdict list."""


@dataclass(frozen=True)
class Asked:
    """One field of the verdict on a numbered item: its type, how the template asks for it, and how
    the reply model describes it."""

    type: Any
    asked: str
    described: str


@dataclass(frozen=True, kw_only=True)
class NumberedVerdictsQuestion(Template):
    """A template that asks for one verdict per numbered :attr:`item` (claim, fact), all in one
    ``verdicts`` list, with the model of its reply (:attr:`verdict`). Built by
    :func:`numbered_verdicts_question`, so the object the template describes and the model that reads
    it are the same fields."""

    item: str
    verdict: type[BaseModel] = field(repr=False, compare=False)


def numbered_verdicts_question(
    *,
    module: str,
    id: str,
    version: str,
    task: str,
    item: str,
    answers: Mapping[str, Asked],
    verdict: str,
    item_verdict: str,
    length_rule: str = LENGTH_RULE,
) -> NumberedVerdictsQuestion:
    """The template ``id`` asking, for each numbered ``item``, for its number, the reasons and the
    ``answers``, with its reply model named ``verdict`` (a ``verdicts`` list of ``item_verdict``
    objects)."""
    asked = ", ".join(f'"{name}": {answer.asked}' for name, answer in answers.items())
    item_fields: dict[str, Any] = {
        "index": (int, Field(description=f"number of the {item} this verdict is about (1-based)")),
        "reasoning": (str, Field(description=REASONING)),
        **{name: (answer.type, Field(description=answer.described)) for name, answer in answers.items()},
    }
    one = create_model(item_verdict, __module__=module, **item_fields)
    listed: dict[str, Any] = {
        NUMBERED_FIELD: (list[one], Field(description=f"one verdict per {item}, in the order given"))  # type: ignore[valid-type]
    }
    return NumberedVerdictsQuestion(
        id=id,
        version=version,
        task=task,
        fields={
            NUMBERED_FIELD: f'list with one object per {item}, in order: {{"index": {item} number, '
            f'"reasoning": one to three sentences, {asked}}}'
        },
        length_rule=length_rule,
        item=item,
        verdict=create_model(verdict, __module__=module, **listed),
    )


@dataclass(frozen=True)
class Decision:
    """One yes/no verdict as its metric reads it, whatever its model calls the decision field."""

    yes: bool
    reasoning: str


@dataclass(frozen=True, kw_only=True)
class YesNoQuestion(Template):
    """A template that asks one yes/no question about one item, with the model of its reply
    (:attr:`verdict`), whose bool field :attr:`decision` the template names. Built by
    :func:`yes_no_question`; a metric reads the replies as :class:`Decision` values."""

    decision: str
    verdict: type[BaseModel] = field(repr=False, compare=False)

    def verdict_named(self, name: str) -> type[BaseModel]:
        """:attr:`verdict` under another ``name``, for a template that asks the same question of
        several items in one reply: the name is part of the schema (and so of every cache key), the
        fields and their wording stay this question's."""
        return create_model(name, __base__=self.verdict, __module__=self.verdict.__module__)

    def read(self, verdict: Any) -> Decision:
        """The decision and the reasons of a reply validated by :attr:`verdict`."""
        return Decision(yes=bool(getattr(verdict, self.decision)), reasoning=verdict.reasoning)

    async def decide_each(
        self, ask: Asker, metric: str, questions: Iterable[tuple[str, Mapping[str, Any]]]
    ) -> list[Decision]:
        """The question asked of many items at once (:func:`~.judging.judge_each`): one decision
        per (user message, task inputs), in their order."""
        return [self.read(v) for v in await judge_each(ask, metric, self, self.verdict, questions)]


def yes_no_question(
    *,
    module: str,
    id: str,
    version: str,
    task: str,
    decision: str,
    held: str,
    verdict: str,
    length_rule: str = LENGTH_RULE,
) -> YesNoQuestion:
    """The template ``id`` asking for the reasons, then ``decision`` as true or false, with its reply
    model named ``verdict`` (``held`` says when the decision is true)."""
    fields: dict[str, Any] = {decision: (bool, Field(description=held))}
    model = create_model(verdict, __base__=ReasonedVerdict, __module__=module, **fields)
    return YesNoQuestion(
        id=id,
        version=version,
        task=task,
        fields={"reasoning": REASONING, decision: "true or false"},
        length_rule=length_rule,
        decision=decision,
        verdict=model,
    )
