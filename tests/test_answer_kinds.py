"""A pass mark per kind of answer (short answer, summary, conversational reply): how the offline
judge reads the kind, where a user names it (``answer_kind=``) and what a wrong name says, and what
a calibration without per-kind marks falls back to. Sentences written for these tests."""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_rag.cases.files import CaseFileError, read_cases
from pytest_rag.errors import InputError
from pytest_rag.inputs import ANSWER_KINDS, Sample, check_answer_kind, normalize_contexts
from pytest_rag.judges.local.answer_kind import CALIBRATION_KEY, KindCuts, PassMark, read_answer_kind
from pytest_rag.judges.local.scorer import GroundingReport, LocalScorer, SentenceSupport, load_calibration
from pytest_rag.judges.local.tasks import faithfulness_single, grade_fraction
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.grounding import Faithfulness, FaithfulnessClaims
from stand_in_asker import StandInAsker, V

pytest_plugins = ["pytester"]


def packaged_calibration() -> dict[str, Any]:
    text = resources.files("pytest_rag.judges.local").joinpath("calibration.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


# -- reading the kind --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("The depot opens at 06:30 on weekdays.", "short"),
        ("The depot opens at 06:30. It closes at 22:00.", "short"),
        ("Yes, anyone can.", "short"),  # a bare yes with its echo: read with the question, not chat
        ("Oh nice, the depot opens at half six on weekdays.", "conversational"),
        ("We went there last year, it opens early.", "conversational"),
        ("It opens at 06:30!", "conversational"),
        ("The depot opens at 06:30. Buses leave every ten minutes. Tickets are sold on board.", "summary"),
        ("A bus leaves at six. Another at seven. A third at eight. Honestly I love it!", "summary"),
    ],
)
def test_the_kind_is_read_from_the_answer(answer: str, kind: str) -> None:
    assert read_answer_kind(answer) == kind


# -- marks stored in the calibration, and the fallback -------------------------------------------


def test_a_calibration_without_per_kind_marks_falls_back_to_the_single_cut() -> None:
    cuts = KindCuts.from_calibration({"version": "v1", "models": {}})
    for kind in ANSWER_KINDS:
        assert cuts.mark(kind, 0.42, "v1") == PassMark(0.42)


def test_the_scorer_loads_a_calibration_with_or_without_per_kind_marks() -> None:
    data = packaged_calibration()
    without = {key: value for key, value in data.items() if key != CALIBRATION_KEY}
    for text in (json.dumps(data), json.dumps(without)):
        assert load_calibration(text).models["answer"].threshold == data["models"]["answer"]["threshold"]
    assert KindCuts.from_calibration(without).mark("summary", 0.4, data["version"]) == PassMark(0.4)


def test_marks_chosen_for_other_models_are_not_used() -> None:
    stored = {
        "calibration_version": "v1",
        "cuts": {"summary": 0.6},
        "weakest_sentence_floors": {"summary": 0.1},
    }
    refitted = KindCuts.from_calibration({"version": "v2", CALIBRATION_KEY: stored})
    assert refitted.mark("summary", 0.4, "v2") == PassMark(0.4)
    same = KindCuts.from_calibration({"version": "v1", CALIBRATION_KEY: stored})
    assert same.mark("summary", 0.4, "v1") == PassMark(0.6, 0.1)
    assert same.mark("short", 0.4, "v1") == PassMark(0.4)  # a kind without its own mark
    assert same.mark("summary", 0.4, "v2") == PassMark(0.4)  # a scorer with another calibration


def test_a_stored_mark_that_makes_no_sense_is_dropped() -> None:
    stored = {"calibration_version": "v1", "cuts": {"summary": 1.5, "essay": 0.3, "short": 0.45}}
    cuts = KindCuts.from_calibration({"version": "v1", CALIBRATION_KEY: stored})
    assert cuts.mark("summary", 0.4, "v1") == PassMark(0.4)
    assert cuts.mark("short", 0.4, "v1") == PassMark(0.45)


def test_the_packaged_marks_were_chosen_for_the_packaged_models() -> None:
    data = packaged_calibration()
    stored = data.get(CALIBRATION_KEY)
    assert stored is not None, "run `python scripts/answer_kind_cuts.py --write` after a refit"
    assert stored["calibration_version"] == data["version"], (
        "calibration.json was refitted after its per-kind pass marks were chosen; re-run "
        "`python scripts/answer_kind_cuts.py --write`"
    )


# -- the floor of a kind -----------------------------------------------------------------------


def _report(probabilities: list[float], whole: float, cut: float) -> GroundingReport:
    def one(p: float) -> SentenceSupport:
        return SentenceSupport(f"s{p}", p, 0, "span", (), (), False)

    return GroundingReport(tuple(one(p) for p in probabilities), whole, cut)


def test_a_floor_keeps_an_answer_with_one_unbacked_sentence_from_passing() -> None:
    report = _report([0.95, 0.9, 0.05, 0.97], whole=0.6, cut=0.4)
    assert grade_fraction(report) == 4
    assert grade_fraction(report, PassMark(report.cut, 0.1)) == 3
    assert grade_fraction(_report([0.95, 0.9, 0.3, 0.97], whole=0.6, cut=0.4), PassMark(0.4, 0.1)) == 4


RAIL = [
    "The regional rail operator Northline announced on Monday that it will buy 40 new electric trains. "
    "The trains will be built in Derby and enter service from 2028. Northline said the order is worth "
    "900 million pounds and will replace diesel trains on its busiest routes. Passenger groups welcomed "
    "the plan but asked for more seats on commuter services. The company expects journey times between "
    "Leeds and York to fall by about ten minutes."
]
RAIL_SUMMARY = [
    "Northline will buy 40 new electric trains, built in Derby.",
    "They will enter service from 2028.",
    "The 900 million pound order will replace diesel trains on its busiest routes.",
    "Passenger groups welcomed the plan but want more commuter seats.",
    "Journey times between Leeds and York should fall by about ten minutes.",
]


def test_a_summary_with_one_sentence_the_article_lacks_does_not_pass(scorer: LocalScorer) -> None:
    wrong = " ".join(
        [*RAIL_SUMMARY[:2], "Critics said the money should have gone to buses.", *RAIL_SUMMARY[2:]]
    )
    verdict = faithfulness_single(scorer, {"answer": wrong, "contexts": RAIL})
    assert verdict["score"] < 4
    assert "summary" in verdict["reasoning"]
    assert verdict["unsupported_statements"] == ["Critics said the money should have gone to buses."]


def test_the_same_summary_without_it_passes(scorer: LocalScorer) -> None:
    assert faithfulness_single(scorer, {"answer": " ".join(RAIL_SUMMARY), "contexts": RAIL})["score"] == 5


# -- the hint: where a user names the kind -------------------------------------------------------


def test_a_wrong_kind_names_the_allowed_values() -> None:
    with pytest.raises(
        InputError, match=r"answer_kind must be one of 'short'.*'summary'.*'conversational'.*'essay'"
    ):
        check_answer_kind("essay", "faithfulness()")
    assert check_answer_kind(None, "faithfulness()") is None
    assert check_answer_kind("summary", "faithfulness()") == "summary"


def test_the_metric_refuses_a_wrong_kind_before_asking() -> None:
    with pytest.raises(InputError, match="faithfulness: answer_kind must be one of"):
        Faithfulness().check_options({"answer_kind": "Summary"})
    with pytest.raises(InputError, match=r"unknown option.*answer_kind"):
        FaithfulnessClaims().check_options({"answer_kind": "summary"})


def test_the_offline_judge_reads_the_named_kind(scorer: LocalScorer) -> None:
    answer = "Northline will buy 40 new electric trains, built in Derby. They will enter service from 2028."
    named = faithfulness_single(scorer, {"answer": answer, "contexts": RAIL, "answer_kind": "summary"})
    read = faithfulness_single(scorer, {"answer": answer, "contexts": RAIL})
    assert "summary" in named["reasoning"] and "short" in read["reasoning"]
    with pytest.raises(InputError, match="answer_kind must be one of"):
        faithfulness_single(scorer, {"answer": answer, "contexts": RAIL, "answer_kind": "long"})


class Recorder(StandInAsker):
    def answer(self, request: JudgeRequest, model: type[V]) -> V:
        return model.model_validate({"reasoning": "ok", "unsupported_statements": [], "score": 5})


def _asked(options: dict[str, Any]) -> JudgeRequest:
    sample = Sample(
        question="", answer="It opens at 06:30.", contexts=normalize_contexts(["It opens at 06:30."])
    )
    recorder = Recorder()
    asyncio.run(Faithfulness().score(recorder, sample, options))
    (request,) = recorder.requests
    return request


def test_the_hint_reaches_task_inputs_only() -> None:
    plain, hinted = _asked({}), _asked({"answer_kind": "conversational"})
    assert "answer_kind" not in plain.task.inputs
    assert hinted.task.inputs["answer_kind"] == "conversational"
    assert hinted.key_material({}) == plain.key_material({})  # LLM prompts and cache keys unchanged


def test_a_case_file_with_a_wrong_kind_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "cases.rag.jsonl"
    path.write_text(
        json.dumps({"id": "c1", "question": "When?", "answer_kind": "tweet"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(CaseFileError, match=r"answer_kind.*must be one of.*'tweet'"):
        read_cases(path)


def test_the_assert_form_takes_the_kind(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        CONTEXT = ["The depot opens at 06:30 on weekdays."]

        def test_named(rag_judge):
            rag_judge.assert_faithful("The depot opens at 06:30 on weekdays.", CONTEXT, answer_kind="short")

        def test_wrong_name(rag_judge):
            rag_judge.assert_faithful("The depot opens at 06:30.", CONTEXT, answer_kind="reply")
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*answer_kind must be one of 'short'*"])


# -- lenience for wording, not for content ------------------------------------------------------------

HARBOUR = ["The lighthouse on Brack Point was switched on in 1904 to guard the harbour entrance."]


@pytest.mark.parametrize(
    "answer",
    [
        "The lighthouse on Brack Point was switched on in 1904 by Norwegian builders!",
        "Oh nice, I think the Brack Point lighthouse was switched on in 1904 by Danish engineers.",
        "The Brack Point lighthouse was switched on in 1904 and painted with golden stripes!",
    ],
)
def test_a_kind_with_a_lower_mark_does_not_pass_an_answer_that_adds_content(
    scorer: LocalScorer, answer: str
) -> None:
    """The conversational mark sits below the single cut to forgive chat wording; a "!" is enough to
    read an answer as chat. An added name or added words must still fail, whatever the kind."""
    for kind in (None, "conversational"):
        inputs: dict[str, Any] = {"answer": answer, "contexts": HARBOUR}
        if kind is not None:
            inputs["answer_kind"] = kind
        verdict = faithfulness_single(scorer, inputs)
        assert verdict["score"] < 4, verdict["reasoning"]


def test_the_pass_rule_reads_the_same_for_one_answer_and_for_many() -> None:
    """The judge grades one answer and the cut-choosing stage rates arrays of them by the same
    rule: a lenient cut passes wording, not content, and a changed fact never passes."""
    mark, single = PassMark(0.2, 0.1), 0.4
    probability = np.array([0.3, 0.3, 0.5, 0.5, 0.3])
    weakest = np.array([0.5, 0.5, 0.5, 0.05, 0.5])
    adds = np.array([False, True, True, False, False])
    changes = np.array([False, False, False, False, True])
    many = mark.passes(probability, weakest, single=single, adds_content=adds, changes_fact=changes)
    assert many.tolist() == [True, False, True, False, False]
    one_by_one = [
        bool(mark.passes(p, w, single=single, adds_content=a, changes_fact=c))
        for p, w, a, c in zip(probability, weakest, adds, changes, strict=True)
    ]
    assert one_by_one == many.tolist()
    assert (
        bool(PassMark(0.5).passes(0.45, 1.0, single=0.4, adds_content=True)) is False
    )  # a stricter cut stays
