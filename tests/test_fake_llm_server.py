"""The fake LLM server, exercised only through the real `openai` and `anthropic` SDKs.

Each test checks that a scripted behaviour reaches client code the way the real API's would: the
SDK's own parsing, retry policy, timeout handling and exception classes decide the outcome.
"""

from __future__ import annotations

import asyncio
import enum
import json
import math
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import anthropic
import openai
import pytest
from anthropic.types import MessageParam, ToolChoiceParam, ToolParam
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ConfigDict, Field

from fake_llm import (
    FakeLLMServer,
    InstanceOptions,
    Reply,
    SchemaInstanceError,
    SchemaResponder,
    minimal_instance,
)

QUESTION = "Is the answer supported by the context?"
USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": QUESTION}]
CLAUDE_USER: list[MessageParam] = [{"role": "user", "content": QUESTION}]


class Support(str, enum.Enum):
    SUPPORTED = "supported"
    PARTIAL = "partial"
    UNSUPPORTED = "unsupported"


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=5)
    support: Support


class Verdict(BaseModel):
    """A judge verdict: nested models ($defs), enums, bounded numbers, non-empty lists."""

    model_config = ConfigDict(extra="forbid")
    score: int = Field(ge=1, le=5)
    confidence: float = Field(gt=0.0, le=1.0)
    label: Literal["pass", "fail"]
    claims: list[Claim] = Field(min_length=2)
    note: str | None


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def openai_client(srv: FakeLLMServer, **kwargs: Any) -> openai.OpenAI:
    options: dict[str, Any] = {"max_retries": 0, **kwargs}
    return openai.OpenAI(base_url=srv.openai_base_url, api_key="sk-test", **options)


def anthropic_client(srv: FakeLLMServer, **kwargs: Any) -> anthropic.Anthropic:
    options: dict[str, Any] = {"max_retries": 0, **kwargs}
    return anthropic.Anthropic(base_url=srv.anthropic_base_url, api_key="sk-ant-test", **options)


class Clients:
    """SDK clients (no retries unless asked) pointed at `srv`, closed when the test ends."""

    def __init__(self, srv: FakeLLMServer) -> None:
        self.srv = srv
        self.made: list[openai.OpenAI | anthropic.Anthropic] = []

    def openai(self, **kwargs: Any) -> openai.OpenAI:
        client = openai_client(self.srv, **kwargs)
        self.made.append(client)
        return client

    def anthropic(self, **kwargs: Any) -> anthropic.Anthropic:
        client = anthropic_client(self.srv, **kwargs)
        self.made.append(client)
        return client


@pytest.fixture
def clients(srv: FakeLLMServer) -> Iterator[Clients]:
    made = Clients(srv)
    yield made
    for client in made.made:
        client.close()


def claude(client: anthropic.Anthropic, **kwargs: Any) -> anthropic.types.Message:
    message: anthropic.types.Message = client.messages.create(
        model="claude-test", max_tokens=64, messages=CLAUDE_USER, stream=False, **kwargs
    )
    return message


VERDICT_TOOL: ToolParam = {"name": "record_verdict", "input_schema": Verdict.model_json_schema()}
FORCE_VERDICT: ToolChoiceParam = {"type": "tool", "name": "record_verdict"}


# -- structured answers ----------------------------------------------------------------------


def test_scripted_json_is_parsed_by_openai_parse(srv: FakeLLMServer, clients: Clients) -> None:
    wanted = {
        "score": 4,
        "confidence": 0.5,
        "label": "pass",
        "claims": [
            {"text": "Paris is in France", "support": "supported"},
            {"text": "It has 2M people", "support": "partial"},
        ],
        "note": None,
    }
    srv.script(Reply.json(wanted))
    completion = clients.openai().chat.completions.parse(
        model="gpt-test", messages=USER, response_format=Verdict
    )
    message = completion.choices[0].message
    assert message.parsed == Verdict.model_validate(wanted)
    assert completion.model == "gpt-test"
    assert completion.object == "chat.completion"
    assert completion.choices[0].finish_reason == "stop"
    usage = completion.usage
    assert usage is not None
    assert usage.prompt_tokens == math.ceil(len(QUESTION) / 4)
    assert usage.completion_tokens == math.ceil(len(json.dumps(wanted)) / 4)
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_scripted_json_becomes_the_forced_anthropic_tool_input(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.json({"score": 2}))
    message = claude(clients.anthropic(), tools=[VERDICT_TOOL], tool_choice=FORCE_VERDICT)
    assert message.stop_reason == "tool_use"
    block = message.content[0]
    assert isinstance(block, anthropic.types.ToolUseBlock)
    assert (block.name, block.input) == ("record_verdict", {"score": 2})
    assert message.usage.output_tokens == math.ceil(len('{"score": 2}') / 4)


def test_scripted_json_without_a_forced_tool_is_anthropic_text(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.json({"score": 2}))
    message = claude(clients.anthropic(), tools=[VERDICT_TOOL])
    block = message.content[0]
    assert isinstance(block, anthropic.types.TextBlock)
    assert json.loads(block.text) == {"score": 2}
    assert message.stop_reason == "end_turn"


def test_openai_forced_function_receives_the_json_as_tool_call_arguments(
    srv: FakeLLMServer,
    clients: Clients,
) -> None:
    srv.script(Reply.json({"score": 3}))
    tool: ChatCompletionFunctionToolParam = {
        "type": "function",
        "function": {"name": "grade", "parameters": {"type": "object"}},
    }
    completion = clients.openai().chat.completions.create(
        model="gpt-test",
        messages=USER,
        tools=[tool],
        tool_choice={"type": "function", "function": {"name": "grade"}},
    )
    message = completion.choices[0].message
    assert message.content is None
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.type == "function"
    assert (call.function.name, json.loads(call.function.arguments)) == ("grade", {"score": 3})


def test_raw_text_reaches_the_client_unparsed(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.text('{"score": 4, "label": "pa'))
    completion = clients.openai().chat.completions.create(model="gpt-test", messages=USER)
    assert completion.choices[0].message.content == '{"score": 4, "label": "pa'


# -- retries, errors, timeouts, resets -------------------------------------------------------


def test_rate_limit_with_retry_after_is_retried_by_openai(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.status(429, retry_after=0.2), Reply.json({"ok": True}))
    completion = clients.openai(max_retries=1).chat.completions.create(
        model="gpt-test",
        messages=USER,
    )
    assert json.loads(completion.choices[0].message.content or "") == {"ok": True}
    first, second = srv.requests
    assert second.received_at - first.received_at >= 0.2  # the SDK honoured Retry-After
    assert second.headers["x-stainless-retry-count"] == "1"


def test_rate_limit_with_retry_after_ms_is_retried_by_anthropic(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.status(429, headers={"retry-after-ms": "150"}), Reply.text("fine"))
    message = claude(clients.anthropic(max_retries=1))
    assert isinstance(message.content[0], anthropic.types.TextBlock)
    assert message.content[0].text == "fine"
    first, second = srv.requests
    assert second.received_at - first.received_at >= 0.15


def test_rate_limit_error_body_has_each_apis_shape(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.status(429, retry_after=7), Reply.status(429, retry_after=7))
    with pytest.raises(openai.RateLimitError) as openai_error:
        clients.openai().chat.completions.create(model="gpt-test", messages=USER)
    assert openai_error.value.code == "rate_limit_exceeded"
    assert openai_error.value.response.headers["retry-after"] == "7"
    with pytest.raises(anthropic.RateLimitError) as anthropic_error:
        claude(clients.anthropic())
    assert anthropic_error.value.type == "rate_limit_error"
    assert anthropic_error.value.request_id is not None
    assert anthropic_error.value.request_id.startswith("req_")


def test_server_error_surfaces_as_internal_server_error_without_retries(
    srv: FakeLLMServer,
    clients: Clients,
) -> None:
    srv.script(Reply.status(500), Reply.status(503))
    with pytest.raises(openai.InternalServerError) as openai_error:
        clients.openai().chat.completions.create(model="gpt-test", messages=USER)
    assert openai_error.value.status_code == 500
    assert openai_error.value.type == "server_error"
    with pytest.raises(anthropic.InternalServerError) as anthropic_error:
        claude(clients.anthropic())
    assert anthropic_error.value.status_code == 503
    assert srv.request_count == 2


def test_custom_error_body_is_sent_verbatim(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.status(502, body="<html>bad gateway</html>"))
    with pytest.raises(openai.InternalServerError) as error:
        clients.openai().chat.completions.create(model="gpt-test", messages=USER)
    assert error.value.body == "<html>bad gateway</html>"


def test_delay_past_the_client_timeout_raises_the_sdk_timeout(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.delay(5, Reply.json({})), Reply.delay(5, Reply.text("late")))
    with pytest.raises(openai.APITimeoutError):
        clients.openai(timeout=0.3).chat.completions.create(model="gpt-test", messages=USER)
    with pytest.raises(anthropic.APITimeoutError):
        claude(clients.anthropic(timeout=0.3))


def test_delay_shorter_than_the_timeout_still_answers(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.delay(0.1, Reply.text("slow but fine")))
    completion = clients.openai(timeout=5).chat.completions.create(
        model="gpt-test",
        messages=USER,
    )
    assert completion.choices[0].message.content == "slow but fine"


def test_reset_gives_the_sdks_connection_error(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.reset(), Reply.reset())
    with pytest.raises(openai.APIConnectionError) as openai_error:
        clients.openai().chat.completions.create(model="gpt-test", messages=USER)
    assert not isinstance(openai_error.value, openai.APITimeoutError)
    with pytest.raises(anthropic.APIConnectionError) as anthropic_error:
        claude(clients.anthropic())
    assert not isinstance(anthropic_error.value, anthropic.APITimeoutError)


def test_reset_then_success_is_retried_on_the_same_client(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.reset(), Reply.text("recovered"))
    completion = clients.openai(max_retries=1).chat.completions.create(
        model="gpt-test",
        messages=USER,
    )
    assert completion.choices[0].message.content == "recovered"
    assert srv.request_count == 2


def test_rejected_parameter_names_the_param(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(
        Reply.reject_param("temperature", code="unsupported_value"),
        Reply.reject_param("max_tokens"),
    )
    client = clients.openai()
    with pytest.raises(openai.BadRequestError) as value_error:
        client.chat.completions.create(model="o-test", messages=USER, temperature=0)
    assert value_error.value.param == "temperature"
    assert value_error.value.code == "unsupported_value"
    assert "does not support 0" in value_error.value.message
    with pytest.raises(openai.BadRequestError) as param_error:
        client.chat.completions.create(model="o-test", messages=USER, max_tokens=5)
    assert param_error.value.body == {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }


# -- refusals and truncation -----------------------------------------------------------------


def test_refusal_is_visible_to_both_sdks(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.refusal("I won't grade this."), Reply.refusal("I won't grade this."))
    completion = clients.openai().chat.completions.parse(
        model="gpt-test", messages=USER, response_format=Verdict
    )
    message = completion.choices[0].message
    assert (message.refusal, message.content, message.parsed) == ("I won't grade this.", None, None)
    reply = claude(clients.anthropic(), tools=[VERDICT_TOOL], tool_choice=FORCE_VERDICT)
    assert reply.stop_reason == "refusal"
    assert reply.stop_details is not None
    assert reply.stop_details.type == "refusal"


def test_truncation_reports_the_length_stop(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.truncated('{"score": 4, "cla'), Reply.truncated('{"score": 4, "cla'))
    completion = clients.openai().chat.completions.create(
        model="gpt-test",
        messages=USER,
        max_completion_tokens=12,
    )
    assert completion.choices[0].finish_reason == "length"
    assert completion.choices[0].message.content == '{"score": 4, "cla'
    assert completion.usage is not None
    assert completion.usage.completion_tokens == 12
    message = claude(clients.anthropic())
    assert message.stop_reason == "max_tokens"
    assert message.usage.output_tokens == 64


def test_truncation_makes_openai_parse_raise_its_length_error(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.truncated('{"score": 4'))
    with pytest.raises(openai.LengthFinishReasonError):
        clients.openai().chat.completions.parse(model="gpt-test", messages=USER, response_format=Verdict)


# -- the schema responder --------------------------------------------------------------------


def test_schema_responder_satisfies_openai_strict_schema(srv: FakeLLMServer, clients: Clients) -> None:
    completion = clients.openai().chat.completions.parse(
        model="gpt-test", messages=USER, response_format=Verdict
    )
    sent = srv.requests[0].body["response_format"]["json_schema"]["schema"]
    assert sent["additionalProperties"] is False
    assert "$defs" in sent
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Verdict)
    assert len(parsed.claims) == 2
    assert parsed.score == 1


def test_schema_responder_satisfies_a_plain_model_json_schema(srv: FakeLLMServer, clients: Clients) -> None:
    response_format: ResponseFormatJSONSchema = {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": Verdict.model_json_schema()},
    }
    completion = clients.openai().chat.completions.create(
        model="gpt-test",
        messages=USER,
        response_format=response_format,
    )
    Verdict.model_validate_json(completion.choices[0].message.content or "")


def test_schema_responder_fills_the_forced_anthropic_tool(srv: FakeLLMServer, clients: Clients) -> None:
    message = claude(clients.anthropic(), tools=[VERDICT_TOOL], tool_choice={"type": "any"})
    block = message.content[0]
    assert isinstance(block, anthropic.types.ToolUseBlock)
    Verdict.model_validate(block.input)


def test_schema_responder_follows_anthropic_structured_outputs(srv: FakeLLMServer, clients: Clients) -> None:
    # The SDK moves unsupported bounds (ge=1, min_length=2 ...) into descriptions; they still hold.
    parsed = (
        clients.anthropic()
        .messages.parse(model="claude-test", max_tokens=64, messages=CLAUDE_USER, output_format=Verdict)
        .parsed_output
    )
    assert isinstance(parsed, Verdict)
    assert parsed.score == 1
    assert len(parsed.claims) == 2


def test_schema_responder_preferences_pick_the_other_end() -> None:
    with (
        FakeLLMServer(SchemaResponder(prefer="max", enum_pick="last")) as srv,
        openai_client(srv) as client,
    ):
        completion = client.chat.completions.parse(model="gpt-test", messages=USER, response_format=Verdict)
    parsed = completion.choices[0].message.parsed
    assert parsed is not None
    assert (parsed.score, parsed.confidence, parsed.label) == (5, 1.0, "fail")
    assert {claim.support for claim in parsed.claims} == {Support.UNSUPPORTED}


def test_schema_responder_answers_plain_chat_with_text(srv: FakeLLMServer, clients: Clients) -> None:
    completion = clients.openai().chat.completions.create(model="gpt-test", messages=USER)
    assert completion.choices[0].message.content == "OK"


def test_responder_can_be_replaced_and_sees_the_request(srv: FakeLLMServer, clients: Clients) -> None:
    srv.responder = lambda request: Reply.text(f"echo {request.json_body['model']}")
    completion = clients.openai().chat.completions.create(model="gpt-echo", messages=USER)
    assert completion.choices[0].message.content == "echo gpt-echo"


# -- embeddings and models -------------------------------------------------------------------


def test_embeddings_are_parsed_in_both_encodings(srv: FakeLLMServer, clients: Clients) -> None:
    client = clients.openai()
    texts = ["the cat sat", "the cat sat", "quarterly revenue fell"]
    default = client.embeddings.create(model="emb-test", input=texts)  # base64 on the wire
    as_floats = client.embeddings.create(model="emb-test", input=texts, encoding_format="float")
    assert srv.requests[0].body["encoding_format"] == "base64"
    vectors = [item.embedding for item in as_floats.data]
    assert [len(v) for v in vectors] == [64, 64, 64]
    assert all(math.isclose(sum(x * x for x in v), 1.0) for v in vectors)
    assert vectors[0] == vectors[1] != vectors[2]
    for decoded, exact in zip(default.data, as_floats.data, strict=True):
        assert decoded.embedding == pytest.approx(exact.embedding, abs=1e-6)
    assert as_floats.usage.prompt_tokens == sum(math.ceil(len(t) / 4) for t in texts)


def test_embeddings_honour_requested_dimensions_and_scripted_vectors(
    srv: FakeLLMServer, clients: Clients
) -> None:
    client = clients.openai()
    sized = client.embeddings.create(model="emb-test", input="hello", dimensions=8, encoding_format="float")
    assert len(sized.data[0].embedding) == 8
    srv.script(Reply.embedding([[0.5, -0.25], [1.0, 0.0]]))
    scripted = client.embeddings.create(model="emb-test", input=["a", "b"])
    assert [item.embedding for item in scripted.data] == [[0.5, -0.25], [1.0, 0.0]]


def test_models_are_listed_in_each_dialect(srv: FakeLLMServer, clients: Clients) -> None:
    assert [m.id for m in clients.openai().models.list()] == ["fake-gpt", "fake-claude"]
    assert [m.id for m in clients.anthropic().models.list()] == ["fake-gpt", "fake-claude"]


# -- recording, scripting rules, misuse ------------------------------------------------------


def test_requests_are_recorded_with_lower_case_headers_and_parsed_bodies(
    srv: FakeLLMServer,
    clients: Clients,
) -> None:
    claude(clients.anthropic())
    clients.openai().chat.completions.create(model="gpt-test", messages=USER, temperature=0)
    first, second = srv.requests
    assert (first.method, first.path, first.api) == ("POST", "/v1/messages", "anthropic")
    assert first.headers["authorization"] == "Bearer sk-ant-test"
    assert "anthropic-version" in first.headers
    assert first.body["max_tokens"] == 64
    assert (second.path, second.api) == ("/v1/chat/completions", "openai")
    assert second.headers["authorization"] == "Bearer sk-test"
    assert second.body["temperature"] == 0
    assert first.received_at <= second.received_at
    srv.clear()
    assert srv.request_count == 0


def test_path_scripts_go_first_and_do_not_leak_to_other_paths(srv: FakeLLMServer, clients: Clients) -> None:
    srv.script(Reply.text("shared"))
    srv.script(Reply.embedding([[1.0]]), path="/v1/embeddings")
    client = clients.openai()
    assert client.embeddings.create(model="e", input="x").data[0].embedding == [1.0]
    assert srv.pending == 1
    chat = client.chat.completions.create(model="gpt-test", messages=USER)
    assert chat.choices[0].message.content == "shared"
    assert srv.pending == 0


def test_misplaced_reply_is_a_non_retried_500_naming_the_problem(
    srv: FakeLLMServer, clients: Clients
) -> None:
    srv.script(Reply.embedding([[1.0]]))
    with pytest.raises(openai.InternalServerError, match="cannot answer POST /v1/chat"):
        clients.openai(max_retries=3).chat.completions.create(model="g", messages=USER)
    assert srv.request_count == 1
    assert "EmbeddingReply" in srv.errors[0]


def test_missing_required_field_gets_the_apis_400(srv: FakeLLMServer) -> None:
    request = urllib.request.Request(
        f"{srv.anthropic_base_url}/v1/messages",
        data=json.dumps({"model": "claude-test", "messages": CLAUDE_USER}).encode(),
        headers={"content-type": "application/json", "anthropic-version": "2023-06-01"},
    )
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=5)
    body = json.loads(error.value.read())
    assert error.value.code == 400
    assert body["type"] == "error"
    assert body["error"] == {
        "type": "invalid_request_error",
        "message": "max_tokens: Field required",
    }


def test_bad_scripts_fail_where_they_are_written() -> None:
    with pytest.raises(ValueError, match="not an error status"):
        Reply.status(200)
    with pytest.raises(ValueError, match="seconds >= 0"):
        Reply.delay(-1, Reply.text("x"))
    with pytest.raises(ValueError, match="NaN"):
        Reply.embedding([[0.1, float("nan")]])
    with pytest.raises(ValueError, match="JSON-serialisable"):
        Reply.json({"bad": float("inf")})
    with FakeLLMServer() as srv, pytest.raises(TypeError, match="Reply values"):
        srv.script({"score": 1})  # type: ignore[arg-type]


# -- concurrency and the command line --------------------------------------------------------


@pytest.mark.asyncio
async def test_concurrent_requests_are_served_in_parallel() -> None:
    with FakeLLMServer(latency=0.2) as srv:
        client = openai.AsyncOpenAI(base_url=srv.openai_base_url, api_key="sk", max_retries=0)
        async with client:
            replies = await asyncio.gather(
                *(client.chat.completions.create(model="gpt-test", messages=USER) for _ in range(20))
            )
        assert [r.choices[0].message.content for r in replies] == ["OK"] * 20
        assert srv.max_in_flight >= 10


def test_cli_prints_base_urls_and_serves_until_terminated() -> None:
    command = [sys.executable, "-m", "fake_llm", "--prefer", "max"]
    testkit_dir = str(Path(__file__).parent.parent / "testkit")  # fake_llm is not a package of pytest-rag
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=testkit_dir) as process:
        try:
            assert process.stdout is not None
            key, _, base_url = process.stdout.readline().strip().partition("=")
            anthropic_line = process.stdout.readline().strip()
            assert key == "openai_base_url"
            assert anthropic_line.startswith("anthropic_base_url=http://127.0.0.1:")
            with openai.OpenAI(base_url=base_url, api_key="sk", max_retries=0) as client:
                completion = client.chat.completions.parse(
                    model="gpt-test", messages=USER, response_format=Verdict
                )
            parsed = completion.choices[0].message.parsed
            assert parsed is not None
            assert parsed.score == 5
        finally:
            process.terminate()
        assert process.wait(timeout=10) == 0


# -- the schema instance builder directly ----------------------------------------------------


def test_recursive_schema_terminates() -> None:
    tree = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["name", "children", "parent"],
            }
        },
        "$ref": "#/$defs/Node",
    }
    value = minimal_instance(tree)
    assert isinstance(value, dict)
    assert value["name"] == "ok"
    assert isinstance(value["children"], list)
    assert len(value["children"]) == 1


def test_bounds_multiples_and_unique_items_are_respected() -> None:
    schema = {
        "type": "object",
        "required": ["even", "ratio", "tags", "code", "when"],
        "properties": {
            "even": {"type": "integer", "exclusiveMinimum": 3, "maximum": 20, "multipleOf": 2},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 3,
                "uniqueItems": True,
            },
            "code": {"type": "string", "minLength": 4, "maxLength": 4},
            "when": {"type": "string", "format": "date"},
        },
    }
    low = minimal_instance(schema)
    high = minimal_instance(schema, InstanceOptions(prefer="max"))
    mid = minimal_instance(schema, InstanceOptions(prefer="mid"))
    assert isinstance(low, dict) and isinstance(high, dict) and isinstance(mid, dict)
    assert (low["even"], high["even"]) == (4, 20)
    assert mid["even"] % 2 == 0 and 4 <= mid["even"] <= 20
    assert 0 < low["ratio"] < high["ratio"] < 1
    assert len(set(low["tags"])) == 3
    assert len(low["code"]) == 4
    assert low["when"] == "2024-01-01"


def test_impossible_schemas_raise_a_clear_error() -> None:
    with pytest.raises(SchemaInstanceError, match="no integer"):
        minimal_instance({"type": "integer", "minimum": 5, "maximum": 2})
    with pytest.raises(SchemaInstanceError, match="required self-reference"):
        minimal_instance(
            {
                "$defs": {
                    "Loop": {
                        "type": "object",
                        "properties": {"next": {"$ref": "#/$defs/Loop"}},
                        "required": ["next"],
                    }
                },
                "$ref": "#/$defs/Loop",
            }
        )
