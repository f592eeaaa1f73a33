"""The built-in prompts grade what they claim to grade.

What each request says (not the bytes: tests/test_prompt_stability.py pins those): faithfulness and
claim extraction see the question, as something to read the answer by and never as evidence; the
grounding prompts share one meaning of "supported" and a scale on which an invented central fact
cannot pass; every whole-number grade is an enum of its scale in the schema; context recall has a
field for the facts it lists before it grades; the rubric is judged by its own levels; the length
paragraph stands only where an answer is graded, worded for what is graded; UMBRELA asks what the
paper asked.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.grounding import FaithfulnessClaims
from pytest_rag.metrics.prompts import LENGTH_RULE, RELEVANCE_LENGTH_RULE, SUPPORT_LENGTH_RULE
from pytest_rag.metrics.support_wording import SUPPORT_RULE
from pytest_rag.metrics.verdict_shapes import GradedFindings, graded_findings_question
from pytest_rag.results import Scale
from stand_in_asker import StandInAsker, V
from test_prompt_stability import VARIANTS, asked

SHIPPING = Sample(
    question="Are shipping fees refundable?",
    answer="Yes, always.",
    contexts=(Chunk("Shipping fees are refunded only when the item arrived damaged."),),
)


def system(request: JudgeRequest) -> str:
    return request.messages[0].content


def user(request: JudgeRequest) -> str:
    return request.messages[-1].content


def every_request() -> list[tuple[str, JudgeRequest]]:
    return [(label, r) for label, name, mode, options in VARIANTS for r in asked(name, mode, options)]


def test_faithfulness_shows_the_question_only_to_read_what_the_answer_asserts() -> None:
    (request,) = asked("faithfulness", "default", {})
    assert user(request).startswith("<question>\nHow long do refunds take, and where is the money sent?")
    assert "never evidence" in system(request)
    assert "'Are shipping fees refundable?' asserts that shipping fees are always refundable" in system(
        request
    )
    assert "(a refusal, 'I don't know') has nothing unsupported and scores 5" in system(request)


class ShippingClaims(StandInAsker):
    """The claim a judge reads in "Yes, always." with its question, then contradicted by the context."""

    def answer(self, request: JudgeRequest, model: type[V]) -> V:
        if "claims" in model.model_fields:
            return model.model_validate({"claims": ["Shipping fees are always refundable."]})
        rows: list[dict[str, Any]] = [
            {"index": 1, "reasoning": "Only when damaged.", "support": "contradicted"}
        ]
        return model.model_validate({"verdicts": rows})


def test_claim_extraction_sees_the_question_and_a_contradicted_claim_is_labelled_so() -> None:
    judge = ShippingClaims()
    scored = asyncio.run(FaithfulnessClaims().score(judge, SHIPPING, {}))
    extract, verify = judge.requests
    assert (
        user(extract)
        == "<question>\nAre shipping fees refundable?\n</question>\n\n<answer>\nYes, always.\n</answer>"
    )
    assert "makes the claim 'Shipping fees are always refundable.'" in system(extract)
    assert "gives an empty list" in system(extract)
    assert scored.score == 0.0
    (claim,) = scored.evidence.claims  # type: ignore[union-attr]
    assert (claim.support, claim.supported) == ("contradicted", False)
    schema = verify.response_schema()
    item = schema["properties"]["verdicts"]["items"]
    if "$ref" in item:  # however the schema is written: a definition referred to, or inlined
        item = schema["$defs"][item["$ref"].rsplit("/", 1)[-1]]
    assert item["properties"]["support"]["enum"] == ["supported", "not_in_context", "contradicted"]


def test_the_grounding_prompts_share_one_meaning_of_supported_and_the_severity_scale() -> None:
    single = system(asked("faithfulness", "default", {})[0])
    verify = system(asked("faithfulness", "claims", {})[1])
    turn = system(asked("turn_faithfulness", "default", {"history": [{"role": "user", "content": "Hi."}]})[0])
    for text in (single, verify, turn):
        assert SUPPORT_RULE in text
        assert "'may', 'usually', 'about'" in text  # hedged claims are covered
    for text in (single, turn):
        assert "4 - every central statement is supported; one or two peripheral details are not." in text
        assert "2 - a central statement is not in the context or is contradicted by it" in text
        assert "however much else is supported" in text


#: The grades of each built-in template whose grade is a whole number on a range.
GRADE_RANGES = {
    "faithfulness.single": (1, 5),
    "answer_relevancy.single": (1, 5),
    "context_recall.single": (1, 5),
    "turn_faithfulness.single": (1, 5),
    "turn_relevancy.single": (1, 5),
    "umbrela.grade": (0, 3),
    "answer_similarity.score": (0, 5),
}


def test_every_whole_number_grade_is_an_enum_of_its_scale() -> None:
    """No integer grade is sent as a bare integer with bounds (constrained decoding then allows 0
    or 6-9 on a 1-5 scale): each is an enum, of exactly its scale's grades where it has a range."""
    graded = set()
    for label, request in every_request():
        node = request.response_schema()["properties"].get("score")
        if node is None or node.get("type") != "integer":
            continue
        assert node.get("enum"), f"{label}: {request.template_id} sends an integer grade without an enum"
        assert "minimum" not in str(node) and "maximum" not in str(node), label
        if request.template_id in GRADE_RANGES:
            low, high = GRADE_RANGES[request.template_id]
            assert node["enum"] == list(range(low, high + 1)), (label, node["enum"])
            assert f"integer {low}-{high}" in system(request)
        graded.add(request.template_id)
    assert set(GRADE_RANGES) | {"rubric.score", "answer_accuracy.template1"} <= graded


def test_the_graded_findings_builder_works_for_any_scale() -> None:
    question = graded_findings_question(
        module=__name__,
        id="test.graded",
        version="1",
        task="Task: grade the passage.",
        scale="Scale:\n3 - all.\n0 - none.",
        findings="gaps",
        asked="list of gaps",
        listed="gaps; empty if none",
        verdict="GapsVerdict",
        grades=Scale(0, 3),
    )
    schema = question.verdict.model_json_schema()["properties"]["score"]
    assert schema["enum"] == [0, 1, 2, 3]
    assert '- "score": integer 0-3' in question.system_text()

    class Gaps(GradedFindings):
        template = question

    assert Gaps.scale == Scale(0, 3)
    with pytest.raises(ValueError):
        question.verdict.model_validate({"reasoning": "r", "gaps": [], "score": 4})


def test_context_recall_lists_the_key_facts_before_it_grades() -> None:
    (request,) = asked("context_recall", "default", {})
    assert list(request.response_schema()["properties"]) == [
        "key_facts",
        "reasoning",
        "missing_facts",
        "score",
    ]
    assert '- "key_facts": ' in system(request) and "to yourself" not in system(request)


def test_the_rubric_is_judged_by_its_levels_alone() -> None:
    (request,) = asked("rubric", "default", {"rubric": {1: "wrong", 5: "right"}})
    assert "Judge by the rubric alone" in system(request)
    assert "Length is not" not in system(request)  # a criterion of our own, which the rubric overrides


#: Templates whose grade is about correctness or coverage: the "correct and complete" paragraph.
CORRECTNESS = {
    "context_recall.single",
    "answer_similarity.score",
    "answer_accuracy.template1",
    "answer_accuracy.template2",
}
#: Templates that grade an answer's support by the contexts.
SUPPORT = {
    "faithfulness.single",
    "turn_faithfulness.single",
    "hallucination.consistency",
    "answer_consistency_binary.check",
    "response_groundedness.template1",
    "response_groundedness.template2",
}
RELEVANCE = {"answer_relevancy.single", "turn_relevancy.single"}


def test_the_length_paragraph_stands_only_where_an_answer_is_graded_and_fits_what_is_graded() -> None:
    for _, request in every_request():
        text, tid = system(request), request.template_id
        assert (LENGTH_RULE in text) == (tid in CORRECTNESS), tid
        assert (SUPPORT_LENGTH_RULE in text) == (tid in SUPPORT), tid
        assert (RELEVANCE_LENGTH_RULE in text) == (tid in RELEVANCE), tid
        if tid not in CORRECTNESS | SUPPORT | RELEVANCE:
            assert "Length is not" not in text, tid  # extraction, generation, passages, statements


def test_umbrela_asks_what_the_paper_asked() -> None:
    request = asked("umbrela", "default", {})[0]
    text = system(request)
    assert "Important Instruction: Assign category 1 if the passage is somewhat related to the topic" in text
    assert "Measure how well the content matches a likely intent of the query (M)." in text
    assert "Measure how trustworthy the passage is (T)." in text
    assert "3 = the passage is dedicated to the query and contains the exact answer." in text
