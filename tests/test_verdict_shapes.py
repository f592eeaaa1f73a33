"""The verdict shapes of metrics/verdict_shapes.py build what a class declaration would have given.

A built verdict model replaces a class that several metrics once declared by hand; its JSON schema
(title, field order, descriptions) enters every cache key, so it must be that class's schema to the
byte, and it must belong to the module that builds it, as the class did.
"""

from __future__ import annotations

import json
import typing
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from pytest_rag.inputs import Sample
from pytest_rag.metrics.base import Scored
from pytest_rag.metrics.dual_rating import DualTemplateMetric, Wording, dual_rating_question, level_rating
from pytest_rag.metrics.judging import SingleJudgment
from pytest_rag.metrics.prompts import REASONING, SCORE_REASONING, SHORT_REASON, ReasonedVerdict, Template
from pytest_rag.metrics.statements import NumberedQuestion
from pytest_rag.metrics.verdict_shapes import (
    Asked,
    Decision,
    GradedFindings,
    graded_findings_question,
    numbered_verdicts_question,
    yes_no_question,
)
from pytest_rag.results import Evidence, Scale

KEPT = yes_no_question(
    module=__name__,
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
    module=__name__,
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
    score: Literal[1, 2, 3, 4, 5] = Field(description="the score on the 1-5 scale")


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


class PassageKept(SingleJudgment):
    name = "passage_kept"
    template = KEPT

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return sample.answer, {"answer": sample.answer}

    def scored(self, verdict: Any) -> Scored:
        return Scored(score=float(KEPT.read(verdict).yes))


def test_a_single_judgment_takes_its_verdict_from_a_template_that_carries_one() -> None:
    assert PassageKept.verdict is KEPT.verdict
    with pytest.raises(
        TypeError, match=r"Other names the verdict KeptVerdict, but its template test\.kept is read"
    ):

        class Other(PassageKept):
            template = KEPT
            verdict = KeptVerdict


def test_a_graded_findings_metric_with_a_plain_template_is_refused_when_declared() -> None:
    plain = Template(id="test.plain", version="1", task="Task: grade it.", fields=dict(CHECKED.fields))
    with pytest.raises(TypeError, match=r"test\.plain .*graded_findings_question"):

        class Unsaid(GradedFindings, SingleJudgment):
            name = "unsaid"
            template = plain  # type: ignore[assignment]


# -- a rating question in two wordings (metrics/dual_rating.py) ----------------------------------


class FourLevelRating(BaseModel):
    reasoning: str = Field(description=SHORT_REASON)
    score: Literal[0, 1, 2, 3] = Field(description="the rating: 0, 1, 2 or 3")


BUILT_FOUR = level_rating("FourLevelRating", (0, 1, 2, 3), module=__name__)


def test_a_level_rating_validates_with_the_schema_of_the_class_it_stands_for() -> None:
    built = json.dumps(BUILT_FOUR.model_json_schema(), sort_keys=False)
    assert built == json.dumps(FourLevelRating.model_json_schema(), sort_keys=False)
    assert BUILT_FOUR.__module__ == __name__
    assert BUILT_FOUR.levels == (0, 1, 2, 3)
    with pytest.raises(ValueError):
        BUILT_FOUR.model_validate({"reasoning": "r", "score": 4})


def wording(levels: tuple[int, ...], task: str = "Task: rate it.") -> Wording:
    return Wording(task=task, ratings={level: f"level {level}." for level in levels})


def test_a_dual_rating_question_names_its_templates_and_lists_each_wordings_levels_in_its_order() -> None:
    question = dual_rating_question(
        "fourfold", BUILT_FOUR, wording((3, 2, 1, 0)), wording((0, 1, 2, 3), "Task: say it again.")
    )
    first, second = question.templates
    assert (first.id, second.id) == ("fourfold.template1", "fourfold.template2")
    assert first.scale == "Ratings:\n3 - level 3.\n2 - level 2.\n1 - level 1.\n0 - level 0."
    assert second.scale.startswith("Ratings:\n0 - level 0.\n1 - level 1.")
    assert first.fields == {"reasoning": SHORT_REASON, "score": "0, 1, 2 or 3"} == second.fields
    assert "Task: say it again." in second.system_text()
    assert question.verdict is BUILT_FOUR
    assert question.scale == Scale(0, 3)


@pytest.mark.parametrize("levels", [(0, 1, 2), (0, 1, 2, 3, 4), (0, 1, 2, 4)])
def test_a_wording_that_misses_or_adds_a_level_is_refused_when_declared(levels: tuple[int, ...]) -> None:
    with pytest.raises(
        ValueError, match=r"fourfold\.template2 rates on .* FourLevelRating takes \[0, 1, 2, 3\]"
    ):
        dual_rating_question("fourfold", BUILT_FOUR, wording((0, 1, 2, 3)), wording(levels))


def test_a_dual_template_metric_takes_its_templates_verdict_and_scale_from_its_question() -> None:
    question = dual_rating_question("fourfold", BUILT_FOUR, wording((0, 1, 2, 3)), wording((3, 2, 1, 0)))

    class Fourfold(DualTemplateMetric):
        name = "fourfold"
        default_threshold = 2
        required = ("answer",)

        def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
            return sample.answer, {"answer": sample.answer}

    class Declared(Fourfold):
        question = dual_rating_question("fourfold", BUILT_FOUR, wording((0, 1, 2, 3)), wording((3, 2, 1, 0)))

    assert Declared.templates == question.templates
    assert Declared.verdict is BUILT_FOUR
    assert Declared.scale == Scale(0, 3)


# -- a numbered verdict list ---------------------------------------------------------------------

SEEN = numbered_verdicts_question(
    module=__name__,
    id="test.seen",
    version="1",
    task="Task: for each numbered fact, say whether the passage shows it.",
    item="fact",
    answers={
        "seen": Asked(bool, "true or false", "true when the passage shows the fact"),
        "line": Asked(int | None, "line number or null", "the line that shows it, or null"),
    },
    verdict="SeenFacts",
    item_verdict="SeenFact",
)


class SeenFact(BaseModel):
    index: int = Field(description="number of the fact this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    seen: bool = Field(description="true when the passage shows the fact")
    line: int | None = Field(description="the line that shows it, or null")


class SeenFacts(BaseModel):
    verdicts: list[SeenFact] = Field(description="one verdict per fact, in the order given")


def test_a_numbered_verdicts_question_validates_with_the_schema_of_the_classes_it_stands_for() -> None:
    built = json.dumps(SEEN.verdict.model_json_schema(), sort_keys=False)
    assert built == json.dumps(SeenFacts.model_json_schema(), sort_keys=False)
    assert SEEN.verdict.__module__ == __name__


def test_a_numbered_verdicts_question_describes_the_object_its_model_reads() -> None:
    assert SEEN.fields == {
        "verdicts": 'list with one object per fact, in order: {"index": fact number, "reasoning": one to '
        'three sentences, "seen": true or false, "line": line number or null}'
    }
    (item,) = typing.get_args(SEEN.verdict.model_fields["verdicts"].annotation)
    assert list(item.model_fields) == ["index", "reasoning", "seen", "line"]


def test_a_numbered_question_reads_its_reply_model_from_the_template_or_is_given_one() -> None:
    assert NumberedQuestion("m", SEEN, [], "fact", "facts").model is SEEN.verdict
    plain = Template(id="test.plain", version="1", task="Task: label them.", fields={"labels": "list"})
    assert NumberedQuestion("m", plain, [], "nugget", "nuggets", reply=SeenFacts).model is SeenFacts
    with pytest.raises(TypeError, match=r"test\.plain does not carry its reply model; pass reply="):
        _ = NumberedQuestion("m", plain, [], "nugget", "nuggets").model
