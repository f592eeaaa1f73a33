"""The verdict shapes of metrics/verdict_shapes.py build what a class declaration would have given.

A built verdict model replaces a class that several metrics once declared by hand; its JSON schema
(title, field order, descriptions) enters every cache key, so it must be that class's schema to the
byte, and it must belong to the module that builds it, as the class did.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, Field

from pytest_rag.inputs import Sample
from pytest_rag.metrics.base import Scored
from pytest_rag.metrics.judging import SingleJudgment
from pytest_rag.metrics.prompts import REASONING, SCORE_REASONING, ReasonedVerdict, Template
from pytest_rag.metrics.verdict_shapes import (
    Decision,
    GradedFindings,
    graded_findings_question,
    yes_no_question,
)
from pytest_rag.results import Evidence, Scale

KEPT = yes_no_question(
    id="test.kept",
    version="1",
    task="Task: decide whether the passage was kept.",
    decision="kept",
    held="true when the passage was kept",
    verdict="KeptVerdict",
)


class KeptVerdict(ReasonedVerdict):
    kept: bool = Field(description="true when the passage was kept")


def test_a_yes_no_question_validates_with_the_schema_of_the_class_it_stands_for() -> None:
    built = json.dumps(KEPT.verdict.model_json_schema(), sort_keys=False)
    declared = json.dumps(KeptVerdict.model_json_schema(), sort_keys=False)
    assert built == declared
    assert KEPT.verdict.__name__ == "KeptVerdict"
    assert KEPT.verdict.__module__ == __name__


def test_a_yes_no_question_asks_for_the_reasons_then_its_decision() -> None:
    assert list(KEPT.fields.items()) == [("reasoning", REASONING), ("kept", "true or false")]
    assert list(KEPT.verdict.model_fields) == list(KEPT.fields)
    assert '- "kept": true or false' in KEPT.system_text()


def test_a_reply_is_read_as_its_decision_and_reasons() -> None:
    reply = KEPT.verdict.model_validate({"reasoning": "It is cited.", "kept": False})
    assert KEPT.read(reply) == Decision(yes=False, reasoning="It is cited.")
    assert KEPT.read(KEPT.verdict.model_validate({"reasoning": "r", "kept": True})).yes


class KeptPassage(ReasonedVerdict):
    kept: bool = Field(description="true when the passage was kept")


def test_the_same_verdict_under_another_name_has_that_name_and_the_same_fields() -> None:
    renamed = KEPT.verdict_named("KeptPassage")
    assert json.dumps(renamed.model_json_schema()) == json.dumps(KeptPassage.model_json_schema())
    assert renamed.__module__ == __name__
    assert KEPT.read(renamed.model_validate({"reasoning": "r", "kept": True})) == Decision(True, "r")


CHECKED = graded_findings_question(
    id="test.checked",
    version="1",
    task="Task: decide how well the passage was checked.",
    scale="Scale:\n5 - fully checked.\n1 - not checked.",
    findings="unchecked",
    asked="list of the unchecked parts",
    listed="parts of the passage nobody checked; empty if none",
    verdict="CheckedVerdict",
)


class CheckedVerdict(BaseModel):
    reasoning: str = Field(description=SCORE_REASONING)
    unchecked: list[str] = Field(description="parts of the passage nobody checked; empty if none")
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


def test_a_graded_findings_question_validates_with_the_schema_of_the_class_it_stands_for() -> None:
    built = json.dumps(CHECKED.verdict.model_json_schema(), sort_keys=False)
    declared = json.dumps(CheckedVerdict.model_json_schema(), sort_keys=False)
    assert built == declared
    assert CHECKED.verdict.__name__ == "CheckedVerdict"
    assert CHECKED.verdict.__module__ == __name__


def test_a_graded_findings_question_asks_for_reasons_findings_then_the_grade() -> None:
    assert list(CHECKED.fields) == ["reasoning", "unchecked", "score"] == list(CHECKED.verdict.model_fields)
    assert CHECKED.fields["unchecked"] == "list of the unchecked parts"
    assert '- "score": integer 1-5' in CHECKED.system_text()
    assert "5 - fully checked." in CHECKED.system_text()


class UncheckedParts(Evidence):
    parts: list[str] = Field(default_factory=list)


class PassageChecked(GradedFindings, SingleJudgment):
    name = "passage_checked"
    default_threshold = 3
    required = ("answer",)
    template = CHECKED
    evidence_model = UncheckedParts
    evidence_field = "parts"

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return sample.answer, {"answer": sample.answer}


def test_a_graded_findings_metric_takes_its_verdict_scale_and_findings_from_its_template() -> None:
    assert PassageChecked.verdict is CHECKED.verdict
    assert PassageChecked.scale == Scale(1, 5)
    reply = CHECKED.verdict.model_validate({"reasoning": "Half.", "unchecked": ["the date"], "score": 3})
    assert PassageChecked().scored(reply) == Scored(
        score=3, reasons="Half.", evidence=UncheckedParts(parts=["the date"])
    )


def test_a_graded_findings_metric_with_a_plain_template_is_refused_when_declared() -> None:
    plain = Template(id="test.plain", version="1", task="Task: grade it.", fields=dict(CHECKED.fields))
    with pytest.raises(TypeError, match=r"test\.plain .*graded_findings_question"):

        class Unsaid(GradedFindings, SingleJudgment):
            name = "unsaid"
            template = plain
