"""The Anthropic judge against the fake server: structured output through a forced tool call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from conftest import ANTHROPIC_KEY, verdict
from fake_llm import FakeLLMServer, Reply
from judge_requests import ClaimsVerdict, grading_request
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.engine.limits import EngineSettings
from pytest_rag.errors import JudgeError
from pytest_rag.judges.anthropic.messages import TOOL_NAME, AnthropicJudge
from pytest_rag.judges.protocol import JudgeReply, JudgeSpec, TransientFault
from pytest_rag.judges.request import JudgeRequest


def request() -> JudgeRequest:
    return grading_request(ClaimsVerdict)


def judge_for(server: FakeLLMServer) -> AnthropicJudge:
    return AnthropicJudge(JudgeSpec("anthropic", "fake-claude", server.anthropic_base_url), timeout_s=5.0)


def complete_all(judge: AnthropicJudge, count: int = 1) -> list[JudgeReply]:
    async def go() -> list[JudgeReply]:
        try:
            return [await judge.complete(request()) for _ in range(count)]
        finally:
            await judge.aclose()

    return asyncio.run(go())


def test_the_verdict_schema_is_a_forced_tool(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(verdict(4, "fine", unsupported_statements=["x"]))
    (reply,) = complete_all(judge_for(fake_llm))
    recorded = fake_llm.requests[0]
    assert recorded.path == "/v1/messages"
    body = recorded.json_body
    assert body["system"] == "Grade it."
    assert body["messages"] == [{"role": "user", "content": "<answer>\nyes\n</answer>"}]
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    (tool,) = body["tools"]
    assert tool["name"] == TOOL_NAME
    assert tool["input_schema"]["required"] == ["reasoning", "unsupported_statements", "score"]
    assert body["temperature"] == 0 and body["max_tokens"] == 1024
    sent_key = recorded.headers.get("x-api-key") or recorded.headers["authorization"].removeprefix("Bearer ")
    assert sent_key == ANTHROPIC_KEY
    assert json.loads(reply.text) == {"reasoning": "fine", "unsupported_statements": ["x"], "score": 4}
    assert reply.input_tokens > 0 and reply.output_tokens > 0 and not reply.truncated


def test_a_text_answer_instead_of_the_tool_is_passed_on_for_parsing(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text('Here: {"reasoning": "r", "unsupported_statements": [], "score": 2}'))
    (reply,) = complete_all(judge_for(fake_llm))
    assert reply.text.startswith("Here:")


def test_refusal_and_max_tokens_stop_reasons(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.refusal("I won't grade that."), Reply.truncated('{"reasoning": "cu'))
    refused, cut = complete_all(judge_for(fake_llm), 2)
    assert refused.refusal == "I won't grade that."
    assert cut.truncated and cut.refusal is None


def test_overloaded_529_carries_retry_after(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(529, retry_after=0.5))
    with pytest.raises(TransientFault, match="HTTP 529") as info:
        complete_all(judge_for(fake_llm))
    assert info.value.retry_after == pytest.approx(0.5)


@pytest.mark.parametrize("code", ["unsupported_value", "unsupported_parameter"])
def test_a_rejected_temperature_is_dropped_and_remembered(fake_llm: FakeLLMServer, code: str) -> None:
    fake_llm.script(Reply.reject_param("temperature", code), verdict(5), verdict(3))  # type: ignore[arg-type]
    first, second = complete_all(judge_for(fake_llm), 2)
    bodies = [r.json_body for r in fake_llm.requests]
    assert len(bodies) == 3
    assert "temperature" in bodies[0]
    assert "temperature" not in bodies[1] and "temperature" not in bodies[2]
    assert json.loads(first.text)["score"] == 5 and json.loads(second.text)["score"] == 3


def test_bad_credentials_name_the_variable(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(401))
    with pytest.raises(JudgeError) as info:
        complete_all(judge_for(fake_llm))
    assert "ANTHROPIC_API_KEY" in str(info.value) and ANTHROPIC_KEY not in str(info.value)


def test_an_openai_style_url_ending_in_v1_is_named_as_the_cause_of_the_404(fake_llm: FakeLLMServer) -> None:
    # the SDK adds /v1 itself: this judge posts to /v1/v1/messages, which no Anthropic server has
    judge = AnthropicJudge(JudgeSpec("anthropic", "fake-claude", fake_llm.anthropic_base_url + "/v1"))
    with pytest.raises(JudgeError, match=r"HTTP 404.*the Anthropic SDK adds /v1 itself.*without the /v1"):
        complete_all(judge)
    assert fake_llm.requests[0].path == "/v1/v1/messages"


def test_a_missing_key_says_how_to_proceed(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLMServer) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")  # Anthropic itself needs one (a gateway is asked without)
    with pytest.raises(JudgeError, match=r"ANTHROPIC_API_KEY is not set.*--rag-cache=replay"):
        complete_all(AnthropicJudge(JudgeSpec("anthropic", "fake-claude", None)))
    assert fake_llm.request_count == 0


def test_the_engine_retries_repairs_and_caches_through_anthropic(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.status(429, retry_after=0.05), Reply.text("no json here"), verdict(4))
    engine = JudgmentEngine(JudgmentCache(tmp_path, "rw"), EngineSettings(backoff_base_s=0.01))
    judge = judge_for(fake_llm)

    async def ask_twice() -> tuple[int, int]:
        try:
            first, _, _ = await engine.ask_graded(
                judge, request(), ClaimsVerdict, test_id="t", cache_only=False
            )
            second, tally, _ = await engine.ask_graded(
                judge, request(), ClaimsVerdict, test_id="t", cache_only=True
            )
            return first.score, second.score * 10 + tally.cached
        finally:
            await judge.aclose()

    assert asyncio.run(ask_twice()) == (4, 41)
    assert fake_llm.request_count == 3
    repair = fake_llm.requests[2].json_body["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]


def test_anthropic_base_url_from_the_environment(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.anthropic_base_url)
    judge = AnthropicJudge(JudgeSpec("anthropic", "fake-claude", None))
    assert judge.identity()["base_url"] == fake_llm.anthropic_base_url
    fake_llm.script(verdict(5))
    (reply,) = complete_all(judge)
    assert json.loads(reply.text)["score"] == 5
