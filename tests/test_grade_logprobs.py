"""Grades with their odds, end to end through the real SDKs: the OpenAI chat judge asks for token
log-probabilities where a verdict has a grade, the engine keeps the grade token's alternatives with
the cached reply, and a metric's result carries the expected score and the pass probability.

The fake server scripts the odds of the grade's token: P(4) = 0.6, P(5) = 0.3, P(3) = 0.1 gives an
expected score of 4.2 and a probability of 0.9 of reaching 4.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from judge_requests import ClaimsVerdict, grading_request
from pytest_rag.engine.cache import CachedReply, JudgmentCache
from pytest_rag.engine.evaluation import evaluate
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.anthropic.messages import AnthropicJudge
from pytest_rag.judges.openai.batch import OPENAI_BATCHES
from pytest_rag.judges.openai.chat import TOP_LOGPROBS, OpenAIChatJudge
from pytest_rag.judges.protocol import Judge, JudgeSpec
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.base import Metric
from pytest_rag.metrics.conversation import TurnFaithfulness
from pytest_rag.metrics.grounding import Faithfulness, ResponseGroundedness
from pytest_rag.metrics.retrieval import Umbrela
from pytest_rag.metrics.rubric import Rubric
from pytest_rag.results import MetricResult
from pytest_rag.scoring.grade_odds import GradeOdds

pytest_plugins = ["pytester"]

T = TypeVar("T")
ODDS = {4: 0.6, 5: 0.3, 3: 0.1}


class Flag(BaseModel):
    reasoning: str
    supported: bool


def graded(score: int = 4, odds: dict[int, float] | None = None) -> Reply:
    body = {"reasoning": "fine", "unsupported_statements": [], "score": score}
    return Reply.json(body, odds={"score": ODDS if odds is None else odds})


def request(model: type[BaseModel] = ClaimsVerdict, text: str = "yes") -> JudgeRequest:
    return grading_request(model, text)


def openai_judge(server: FakeLLMServer, model: str = "fake-gpt") -> OpenAIChatJudge:
    return OpenAIChatJudge(JudgeSpec("openai", model, server.openai_base_url), timeout_s=5.0)


def anthropic_judge(server: FakeLLMServer) -> AnthropicJudge:
    return AnthropicJudge(JudgeSpec("anthropic", "fake-claude", server.anthropic_base_url), timeout_s=5.0)


def run(coro: Coroutine[Any, Any, T], *judges: Judge) -> T:
    async def go() -> T:
        try:
            return await coro
        finally:
            for judge in judges:
                await judge.aclose()

    return asyncio.run(go())


def ask(
    engine: JudgmentEngine, judge: Judge, req: JudgeRequest | None = None, *, cache_only: bool = False
) -> tuple[Any, GradeOdds | None]:
    verdict, _, odds = run(
        engine.ask_graded(judge, req or request(), ClaimsVerdict, test_id="t", cache_only=cache_only), judge
    )
    return verdict, odds


def engine_at(path: Path, mode: str = "rw") -> JudgmentEngine:
    return JudgmentEngine(JudgmentCache(path, mode))


# -- what the OpenAI chat judge sends and reads ------------------------------------------------


def test_a_graded_verdict_asks_for_logprobs_and_gets_the_grade_odds(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(graded())
    verdict, odds = ask(engine_at(tmp_path), openai_judge(fake_llm))
    body = fake_llm.requests[0].json_body
    assert body["logprobs"] is True and body["top_logprobs"] == TOP_LOGPROBS
    assert verdict.score == 4
    assert odds is not None
    assert dict(odds.probabilities) == pytest.approx({3.0: 0.1, 4.0: 0.6, 5.0: 0.3})
    assert odds.expected == pytest.approx(4.2)
    assert odds.pass_probability(4) == pytest.approx(0.9)


def test_a_verdict_without_a_grade_asks_for_no_logprobs(fake_llm: FakeLLMServer) -> None:
    judge = openai_judge(fake_llm)
    assert "logprobs" not in judge.request_body(request(Flag))
    assert "top_logprobs" not in judge.request_body(request(Flag))


def test_a_batch_line_carries_the_same_request_for_logprobs(fake_llm: FakeLLMServer) -> None:
    judge = openai_judge(fake_llm)
    line = OPENAI_BATCHES.body(judge, request())
    assert line == judge.request_body(request())
    assert line["logprobs"] is True and line["top_logprobs"] == TOP_LOGPROBS


@pytest.mark.parametrize(
    "refusal",
    [
        Reply.reject_param("logprobs"),
        Reply.reject_param("top_logprobs"),
        Reply.status(
            400, body={"error": {"message": "logprobs are not supported with reasoning models", "type": "x"}}
        ),
    ],
    ids=["names logprobs", "names top_logprobs", "says so in words"],
)
def test_refused_logprobs_are_dropped_and_remembered_for_the_model(
    fake_llm: FakeLLMServer, tmp_path: Path, refusal: Reply
) -> None:
    fake_llm.script(refusal, graded(5), graded(3))
    engine, judge = engine_at(tmp_path), openai_judge(fake_llm, "o4-mini")

    async def twice() -> list[tuple[int, GradeOdds | None]]:
        answers = []
        for text in ("first", "second"):
            verdict, _, odds = await engine.ask_graded(
                judge, request(text=text), ClaimsVerdict, test_id="t", cache_only=False
            )
            answers.append((verdict.score, odds))
        return answers

    assert run(twice(), judge) == [(5, None), (3, None)]  # judged, without odds
    bodies = [r.json_body for r in fake_llm.requests]
    assert len(bodies) == 3  # the refusal, then each request once
    assert "logprobs" in bodies[0]
    assert all("logprobs" not in b and "top_logprobs" not in b for b in bodies[1:])


def test_a_server_that_ignores_logprobs_gives_a_grade_without_odds(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.json({"reasoning": "fine", "unsupported_statements": [], "score": 4}))
    verdict, odds = ask(engine_at(tmp_path), openai_judge(fake_llm))
    assert (verdict.score, odds) == (4, None)


# -- the cache keeps the odds with the reply ---------------------------------------------------


def test_the_odds_are_stored_with_the_reply_and_a_replay_gives_the_same_numbers(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(graded())
    _, live = ask(engine_at(tmp_path), openai_judge(fake_llm))
    fake_llm.clear()
    _, replayed = ask(engine_at(tmp_path, "replay"), openai_judge(fake_llm), cache_only=True)
    assert fake_llm.requests == []
    assert replayed == live and replayed is not None
    (entry,) = [value for _, value in JudgmentCache(tmp_path).items()]
    assert {token for token, _ in entry["score_logprobs"]} == {"3", "4", "5"}


def test_the_key_does_not_cover_logprobs_so_entries_stored_without_odds_still_serve(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    judge = openai_judge(fake_llm)
    key = request().cache_key(judge.identity())
    text = json.dumps({"reasoning": "stored before odds were kept", "unsupported_statements": [], "score": 2})
    JudgmentCache(tmp_path).put(key, CachedReply(text, 10, 5, "fake-gpt"))
    verdict, odds = ask(engine_at(tmp_path), judge, cache_only=True)
    assert (verdict.score, odds) == (2, None)
    assert fake_llm.request_count == 0


def test_anthropic_is_unchanged_no_logprobs_asked_none_kept(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(graded())  # odds the Anthropic API has no way to send
    verdict, odds = ask(engine_at(tmp_path), anthropic_judge(fake_llm))
    body = fake_llm.requests[0].json_body
    assert "logprobs" not in body and "top_logprobs" not in body
    assert (verdict.score, odds) == (4, None)
    (entry,) = [value for _, value in JudgmentCache(tmp_path).items()]
    assert "score_logprobs" not in entry


# -- a metric's result -------------------------------------------------------------------------

SAMPLE = Sample(
    question="How long?",
    answer="Five days.",
    contexts=[Chunk(text="Five business days."), Chunk(text="Shipping is free.")],
)


def evaluated(
    judges: Sequence[Judge],
    metric: Metric,
    tmp_path: Path,
    *,
    repeats: int = 1,
    threshold: float | None = 4,
    options: dict[str, Any] | None = None,
    **kw: Any,
) -> MetricResult:
    return run(
        evaluate(
            engine_at(tmp_path),
            metric,
            SAMPLE,
            options or {},
            judges=judges,
            repeats=repeats,
            threshold=threshold,
            test_id="t",
            cache_only=False,
            **kw,
        ),
        *judges,
    )


def test_a_check_reports_its_expected_score_and_pass_probability(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(graded())
    result = evaluated([openai_judge(fake_llm)], Faithfulness(), tmp_path)
    assert (result.score, result.passed, result.passed_on) == (4, True, "score")
    assert result.expected_score == pytest.approx(4.2)
    assert result.pass_probability == pytest.approx(0.9)
    assert not result.uncertain
    assert result.judges[0].expected_score == pytest.approx(4.2)


def test_a_conversation_turn_keeps_its_grade_odds(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    # the turn metrics render their prompt from the history option, and once built their own
    # request outside the shared score path, which dropped the odds the judge reported
    fake_llm.script(graded())
    history = [
        {"role": "user", "content": "Where is my parcel?"},
        {"role": "assistant", "content": "On its way."},
    ]
    result = evaluated([openai_judge(fake_llm)], TurnFaithfulness(), tmp_path, options={"history": history})
    assert result.score == 4
    assert result.expected_score == pytest.approx(4.2)
    assert result.pass_probability == pytest.approx(0.9)
    assert "Where is my parcel?" in json.dumps(fake_llm.requests[0].json_body["messages"])


def test_passing_on_the_expected_score_can_fail_a_check_its_grade_passes(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(graded(4, {4: 0.5, 3: 0.3, 2: 0.2}))  # expected 3.3, P(>= 4) = 0.5
    result = evaluated([openai_judge(fake_llm)], Faithfulness(), tmp_path, pass_on="expected")
    assert result.score == 4
    assert (result.passed, result.passed_on) == (False, "expected_score")
    assert result.expected_score == pytest.approx(3.3)
    assert result.pass_probability == pytest.approx(0.5) and result.uncertain


def test_passing_on_the_expected_score_keeps_the_grade_where_no_odds_came(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.json({"reasoning": "fine", "unsupported_statements": [], "score": 4}))
    result = evaluated([openai_judge(fake_llm)], Faithfulness(), tmp_path, pass_on="expected")
    assert (result.passed, result.passed_on, result.expected_score, result.pass_probability) == (
        True,
        "score",
        None,
        None,
    )


def test_repeats_are_pooled_by_their_means(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(graded(4), graded(5, {5: 0.5, 4: 0.5}))  # 4.2 and 0.9; 4.5 and 1.0
    result = evaluated([openai_judge(fake_llm)], Faithfulness(), tmp_path, repeats=2, threshold=5)
    assert result.expected_score == pytest.approx((4.2 + 4.5) / 2)
    assert result.pass_probability == pytest.approx((0.3 + 0.5) / 2)
    assert sorted(result.judges[0].repeats) == [4, 5]  # the two repeats are asked concurrently


def scripted_by_provider(request: RecordedRequest) -> Reply:
    return (
        graded()
        if request.api == "openai"
        else Reply.json({"reasoning": "r", "unsupported_statements": [], "score": 4})
    )


def test_an_ensemble_with_a_judge_without_odds_has_none_for_the_check(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.responder = scripted_by_provider
    result = evaluated([openai_judge(fake_llm), anthropic_judge(fake_llm)], Faithfulness(), tmp_path)
    assert (result.expected_score, result.pass_probability) == (None, None)
    member_odds = {j.judge: (j.expected_score, j.pass_probability) for j in result.judges}
    assert list(member_odds["openai:fake-gpt"]) == pytest.approx([4.2, 0.9])
    assert member_odds["anthropic:fake-claude"] == (None, None)


def test_two_averaged_ratings_give_the_odds_of_their_mean(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(
        Reply.json({"reasoning": "a", "score": 2}, odds={"score": {2: 0.8, 1: 0.2}}),
        Reply.json({"reasoning": "b", "score": 1}, odds={"score": {1: 1.0}}),
    )
    result = evaluated([openai_judge(fake_llm)], ResponseGroundedness(), tmp_path, threshold=1.5)
    assert result.score == 1.5
    assert result.expected_score == pytest.approx(0.8 * 1.5 + 0.2 * 1.0)
    assert result.pass_probability == pytest.approx(0.8)


def test_umbrela_gives_the_odds_of_the_mean_grade(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(
        Reply.json({"reasoning": "a", "score": 3}, odds={"score": {3: 0.5, 2: 0.5}}),
        Reply.json({"reasoning": "b", "score": 0}, odds={"score": {0: 1.0}}),
    )
    result = evaluated([openai_judge(fake_llm)], Umbrela(), tmp_path, threshold=1.5)
    assert result.score == 1.5
    assert result.expected_score == pytest.approx(1.25)
    assert result.pass_probability == pytest.approx(0.5)


def test_a_rubric_of_one_digit_levels_gives_the_expected_level(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.json({"reasoning": "r", "score": 3}, odds={"score": {3: 0.7, 5: 0.3}}))
    rubric = {"rubric": {1: "wrong", 3: "partly right", 5: "right"}}
    result = evaluated([openai_judge(fake_llm)], Rubric(), tmp_path, threshold=5, options=rubric)
    assert result.score == 3
    assert result.expected_score == pytest.approx(3.6)
    assert result.pass_probability == pytest.approx(0.3)


# -- batches: the same body, so batched replies have odds too ----------------------------------


def test_a_batched_reply_carries_its_odds_like_a_live_one(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.responder = lambda request: graded()
    pytester.makepyfile(
        "def test_grounded(rag_judge):\n"
        "    rag_judge.assert_faithful('Five days.', ['Five business days.'])\n"
    )
    args = rag_args(
        fake_llm,
        tmp_path / "cache",
        "--rag-batch",
        "--rag-batch-poll=0.01",
        f"--rag-report={tmp_path / 'r.json'}",
    )
    pytester.runpytest(*args).assert_outcomes(skipped=1)  # queued and submitted
    pytester.runpytest(*args).assert_outcomes(passed=1)  # collected and judged
    assert [r.path for r in fake_llm.requests if r.path == "/v1/chat/completions"] == []
    (check,) = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert check["batched"] == 1
    assert (check["expected_score"], check["pass_probability"]) == (pytest.approx(4.2), pytest.approx(0.9))


def test_junit_carries_the_odds_where_the_judge_gave_them() -> None:
    from pytest_rag.report.results_file import junit_properties
    from pytest_rag.results import CheckRecord

    sure = CheckRecord(
        test_id="t", metric="faithfulness", judge="openai:m", score=4, threshold=4, passed=True
    )
    unsure = sure.model_copy(
        update={
            "passed": False,
            "expected_score": 3.3,
            "pass_probability": 0.5,
            "passed_on": "expected_score",
        }
    )
    assert not [name for name, _ in junit_properties([sure]) if "expected" in name or "probability" in name]
    props = dict(junit_properties([unsure]))
    assert props["rag.faithfulness.expected_score"] == "3.3"
    assert props["rag.faithfulness.pass_probability"] == "0.5"
    assert (props["rag.faithfulness.passed_on"], props["rag.faithfulness.passed"]) == (
        "expected_score",
        "false",
    )
