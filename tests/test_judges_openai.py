"""The OpenAI-compatible judge against the fake server: what it sends and how it adapts.

Servers and models disagree on parameters (reasoning models reject ``temperature``, older gateways
lack ``json_schema``); the judge drops or changes what a 400 names, once, and remembers it per model.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import OPENAI_KEY, verdict
from fake_llm import FakeLLMServer, Reply
from judge_requests import GradeVerdict, grading_request
from judge_requests import complete_each as complete_all
from pytest_rag.errors import JudgeError, JudgeUnavailableError
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec, TransientFault
from pytest_rag.judges.request import JudgeRequest, Sampling


def request(sampling: Sampling | None = None) -> JudgeRequest:
    return grading_request(GradeVerdict, sampling=sampling)


def judge_for(server: FakeLLMServer, model: str = "fake-gpt") -> OpenAIChatJudge:
    return OpenAIChatJudge(JudgeSpec("openai", model, server.openai_base_url), timeout_s=5.0)


def sent(server: FakeLLMServer, index: int = -1) -> dict[str, Any]:
    return server.requests[index].json_body


def test_sends_messages_schema_and_temperature_zero(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(verdict(4))
    (reply,) = complete_all(judge_for(fake_llm), request())
    body = sent(fake_llm)
    assert body["model"] == "fake-gpt"
    assert body["temperature"] == 0
    assert body["max_tokens"] == 1024
    assert "seed" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    schema = body["response_format"]
    assert schema["type"] == "json_schema"
    assert schema["json_schema"]["name"] == "GradeVerdict" and schema["json_schema"]["strict"] is True
    assert schema["json_schema"]["schema"]["required"] == ["reasoning", "score"]
    assert '"score": 4' in reply.text
    assert reply.model and reply.input_tokens > 0
    assert fake_llm.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"


def test_a_rejected_temperature_is_dropped_retried_and_remembered(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.reject_param("temperature", "unsupported_value"), verdict(5), verdict(4))
    first, second = complete_all(judge_for(fake_llm, "o4-mini"), request(), request())
    assert '"score": 5' in first.text and '"score": 4' in second.text
    bodies = [r.json_body for r in fake_llm.requests]
    assert len(bodies) == 3  # one rejection, then no second rejection for the next request
    assert "temperature" in bodies[0]
    assert "temperature" not in bodies[1] and "temperature" not in bodies[2]


def test_a_rejected_max_tokens_becomes_max_completion_tokens(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.reject_param("max_tokens"), verdict(3))
    complete_all(judge_for(fake_llm), request(Sampling(max_tokens=300)))
    body = sent(fake_llm)
    assert "max_tokens" not in body and body["max_completion_tokens"] == 300


def test_a_rejected_json_schema_falls_back_to_json_object(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.reject_param("response_format"), Reply.json({"reasoning": "r", "score": 2}))
    (reply,) = complete_all(judge_for(fake_llm), request())
    assert sent(fake_llm)["response_format"] == {"type": "json_object"}
    assert '"score": 2' in reply.text


def test_a_seed_is_sent_when_the_request_has_one(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(verdict(3))
    complete_all(judge_for(fake_llm), request(Sampling(seed=11)))
    assert sent(fake_llm)["seed"] == 11


def test_a_bad_request_on_an_unknown_parameter_is_final(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(400, body={"error": {"message": "messages too long", "type": "x"}}))
    with pytest.raises(JudgeError, match="HTTP 400: messages too long"):
        complete_all(judge_for(fake_llm), request())


def test_rejected_credentials_name_the_variable_not_the_key(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(401))
    with pytest.raises(JudgeError) as info:
        complete_all(judge_for(fake_llm), request())
    assert "OPENAI_API_KEY" in str(info.value)
    assert OPENAI_KEY not in str(info.value)


def test_an_unknown_model_points_at_the_spec_and_base_url(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(404))
    with pytest.raises(
        JudgeUnavailableError, match=r"'fake-gpt' was not found.*--rag-judge.*check the base URL"
    ):
        complete_all(judge_for(fake_llm), request())


@pytest.mark.parametrize(
    ("script", "expected"), [(Reply.status(429), "HTTP 429"), (Reply.status(502), "HTTP 502")]
)
def test_rate_limits_and_5xx_are_transient(fake_llm: FakeLLMServer, script: Reply, expected: str) -> None:
    fake_llm.script(script)
    with pytest.raises(TransientFault, match=expected):
        complete_all(judge_for(fake_llm), request())


def test_retry_after_reaches_the_fault(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(429, retry_after=1.5))
    with pytest.raises(TransientFault) as info:
        complete_all(judge_for(fake_llm), request())
    assert info.value.retry_after == pytest.approx(1.5)


def test_retry_after_ms_wins_over_retry_after(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.status(429, retry_after=9, headers={"retry-after-ms": "250"}))
    with pytest.raises(TransientFault) as info:
        complete_all(judge_for(fake_llm), request())
    assert info.value.retry_after == pytest.approx(0.25)


def test_a_dropped_connection_is_transient(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.reset())
    with pytest.raises(TransientFault, match="connection failed"):
        complete_all(judge_for(fake_llm), request())


def test_a_refusal_and_a_truncation_are_reported_as_such(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.refusal("No."), Reply.truncated('{"reasoning": "cut'))
    refused, cut = complete_all(judge_for(fake_llm), request(), request())
    assert refused.refusal == "No." and not refused.truncated
    assert cut.truncated and cut.refusal is None and cut.text == '{"reasoning": "cut'


def test_the_official_endpoint_without_a_key_says_how_to_proceed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o", None))
    with pytest.raises(JudgeError) as info:
        complete_all(judge, request())
    message = str(info.value)
    assert "OPENAI_API_KEY is not set" in message
    assert "--rag-cache=replay" in message and "--rag-judge=local" in message


def test_a_self_hosted_server_needs_no_key(fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_llm.script(verdict(5))
    (reply,) = complete_all(judge_for(fake_llm), request())
    assert '"score": 5' in reply.text


def test_a_spec_without_a_model_is_refused() -> None:
    with pytest.raises(JudgeError, match="write openai:MODEL"):
        OpenAIChatJudge(JudgeSpec("openai", "", None))
