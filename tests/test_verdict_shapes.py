"""The verdict shapes of metrics/verdict_shapes.py build what a class declaration would have given.

A built verdict model replaces a class that several metrics once declared by hand; its JSON schema
(title, field order, descriptions) enters every cache key, so it must be that class's schema to the
byte, and it must belong to the module that builds it, as the class did.
"""

from __future__ import annotations

import json

from pydantic import Field

from pytest_rag.metrics.prompts import REASONING, ReasonedVerdict
from pytest_rag.metrics.verdict_shapes import Decision, yes_no_question

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
