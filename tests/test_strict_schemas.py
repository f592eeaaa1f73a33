"""The fake servers refuse a schema as OpenAI's strict mode and Anthropic's tool use refuse it, and
every schema pytest-rag sends passes them.

Each rule of ``fake_llm.openai_strict`` and ``fake_llm.anthropic_schema`` is shown refusing a schema
that breaks it, with the provider's status, error body and words; then every request a built-in
metric asks (every catalog entry and mode, the options that change a request, as in
tests/test_prompt_stability.py), and those of plugin metrics (the case generator's, and one written
as docs/extending.md shows), goes through the real OpenAI and Anthropic judges to the fakes, which
must accept each schema as sent.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import anthropic
import openai
import pytest
from pydantic import BaseModel, Field

from fake_llm import FakeLLMServer
from fake_llm.anthropic_schema import output_format_refusal, tool_refusal
from fake_llm.openai_strict import strict_refusal
from pytest_rag.cases.generate.llm import ASKS, generation_request
from pytest_rag.cases.generate.metric import CaseGeneration
from pytest_rag.cases.generate.passages import Passage
from pytest_rag.judges.anthropic.messages import AnthropicJudge
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.judges.schema import provider_schema
from pytest_rag.metrics.base import Metric, Scale, Scored
from pytest_rag.metrics.judging import SingleJudgment
from pytest_rag.metrics.prompts import Template, block
from pytest_rag.registry import Registry
from test_prompt_stability import SAMPLE, VARIANTS, RecordingAsker, asked


def strict(**properties: Any) -> dict[str, Any]:
    """A root object strict mode takes, with these properties."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


GOOD = strict(reasoning={"type": "string"}, score={"type": "integer", "minimum": 1, "maximum": 5})


# -- OpenAI: each rule refuses -------------------------------------------------------------------


def test_a_schema_inside_the_subset_is_taken() -> None:
    assert strict_refusal(GOOD) is None
    nested = strict(
        items={"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1},
        note={"anyOf": [{"type": "string"}, {"type": "null"}]},
        kind={"type": "string", "enum": ["a", "b"]},
        when={"type": "string", "format": "date-time"},
    )
    nested["$defs"] = {"Item": strict(index={"type": "integer"})}
    assert strict_refusal(nested) is None


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        # 'Root objects must not be anyOf and must be an object'
        ({"anyOf": [GOOD, GOOD]}, "schema must be a JSON Schema of 'type: \"object\"', got 'type: anyOf'."),
        (
            {"type": "array", "items": GOOD},
            "schema must be a JSON Schema of 'type: \"object\"', got 'type: array'.",
        ),
        # 'additionalProperties: false must always be set in objects'
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            "In context=(), 'additionalProperties' is required to be supplied and to be false.",
        ),
        (
            strict(inner={"type": "object", "properties": {}, "required": [], "additionalProperties": True}),
            "In context=('properties', 'inner'), 'additionalProperties' is required to be supplied and to be false.",
        ),
        # 'All fields must be required'
        (
            {**strict(a={"type": "string"}, b={"type": "string"}), "required": ["a"]},
            "In context=(), 'required' is required to be supplied and to be an array including every key in "
            "properties. Missing 'b'.",
        ),
        (
            {**GOOD, "required": ["reasoning", "score", "x"]},
            "In context=(), Extra required key 'x' supplied.",
        ),
        # a $ref stands alone (openai-python's to_strict_json_schema inlines one with siblings)
        (
            {**strict(p={"$ref": "#/$defs/P", "description": "the first"}), "$defs": {"P": GOOD}},
            "In context=('properties', 'p'), $ref cannot have keywords {'description'}.",
        ),
        (
            strict(p={"$ref": "#/$defs/Missing"}),
            "In context=('properties', 'p'), reference to component '#/$defs/Missing' which was not found in "
            "the schema.",
        ),
        # 'Some type-specific keywords are not yet supported: allOf, not, ... if, then, else'; and default
        (
            strict(a={"allOf": [{"type": "string"}]}),
            "In context=('properties', 'a'), 'allOf' is not permitted.",
        ),
        (
            strict(a={"type": "string", "default": "x"}),
            "In context=('properties', 'a'), 'default' is not permitted.",
        ),
        (
            strict(a={"type": "string", "minimum": 1}),
            "In context=('properties', 'a'), 'minimum' is not permitted.",
        ),
        (
            strict(a={"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
            "'uniqueItems' is not permitted.",
        ),
        (strict(a={"oneOf": [{"type": "string"}, {"type": "integer"}]}), "'oneOf' is not permitted."),
        # 'Supported types' and the supported string formats
        (strict(a={"type": "date"}), "In context=('properties', 'a'), type 'date' is not supported."),
        (
            strict(a={"type": "string", "format": "uri"}),
            "In context=('properties', 'a'), format 'uri' is not supported.",
        ),
        # 'For anyOf, the nested schemas must each be a valid JSON Schema per this subset'
        (
            strict(a={"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}]}),
            "In context=('properties', 'a', 'anyOf', '0'), 'additionalProperties' is required",
        ),
        # definitions are held to the same rules
        (
            {**GOOD, "$defs": {"Item": {"type": "object", "properties": {}, "required": []}}},
            "In context=('$defs', 'Item'), 'additionalProperties' is required",
        ),
    ],
)
def test_each_strict_rule_refuses_a_schema_that_breaks_it(schema: dict[str, Any], reason: str) -> None:
    refusal = strict_refusal(schema)
    assert refusal is not None
    assert reason in refusal.message("response_format 'Verdict'")


def nest(depth: int) -> dict[str, Any]:
    """A root object with ``depth`` levels of objects, the root counting one."""
    schema = strict(leaf={"type": "string"})
    for _ in range(depth - 1):
        schema = strict(inner=schema)
    return schema


def test_the_size_limits_refuse_a_schema_one_past_them() -> None:
    """'up to 5000 object properties total, with up to 10 levels of nesting'; 'up to 1000 enum values
    across all enum properties'; '120,000 characters' of names and enum values; 15,000 characters for
    one string enum of more than 250 values."""
    assert strict_refusal(nest(10)) is None
    refusal = strict_refusal(nest(11))
    assert refusal is not None and "nesting too deep: 11 levels > 10" in refusal.reason

    wide = strict(**{f"p{i}": {"type": "boolean"} for i in range(5000)})
    assert strict_refusal(wide) is None
    refusal = strict_refusal(strict(**{f"p{i}": {"type": "boolean"} for i in range(5001)}))
    assert refusal is not None and "too many object properties: 5001 > 5000" in refusal.reason

    enums = strict(**{f"e{i}": {"type": "integer", "enum": list(range(100))} for i in range(10)})
    assert strict_refusal(enums) is None
    enums["properties"]["e0"]["enum"].append(100)
    refusal = strict_refusal(enums)
    assert refusal is not None and "too many enum values: 1001 > 1000" in refusal.reason

    long_enum = strict(e={"type": "string", "enum": [f"{i:03d}" + "x" * 57 for i in range(251)]})
    refusal = strict_refusal(long_enum)
    assert refusal is not None and refusal.context == ("properties", "e")
    assert (
        "more than 250 string values may total at most 15000 characters; this one has 15060" in refusal.reason
    )

    names = strict(**{f"{i:04d}" + "n" * 26: {"type": "boolean"} for i in range(4001)})
    refusal = strict_refusal(names)
    assert refusal is not None and "120030 > 120000" in refusal.reason


def test_a_recursive_schema_is_taken_and_its_depth_counted_once() -> None:
    """'Recursive schemas are supported': the nesting counts up to where the recursion starts."""
    node = strict(value={"type": "number"}, next={"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
    schema = {**strict(head={"$ref": "#/$defs/Node"}), "$defs": {"Node": node}}
    assert strict_refusal(schema) is None


def openai_client(server: FakeLLMServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0)


def chat(client: openai.OpenAI, **body: Any) -> Any:
    """A chat completion with a body as written here (the SDK's types would refuse the bad ones)."""
    create: Any = client.chat.completions.create
    return create(model="fake-gpt", messages=[{"role": "user", "content": "hi"}], **body)


def test_the_fake_refuses_a_strict_response_format_as_the_api_does(fake_llm: FakeLLMServer) -> None:
    bad = {**strict(p={"$ref": "#/$defs/P", "description": "the first"}), "$defs": {"P": GOOD}}
    with openai_client(fake_llm) as client, pytest.raises(openai.BadRequestError) as info:
        chat(
            client,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "V", "schema": bad, "strict": True},
            },
        )
    assert info.value.status_code == 400
    assert info.value.body == {
        "message": "Invalid schema for response_format 'V': In context=('properties', 'p'), $ref cannot have "
        "keywords {'description'}.",
        "type": "invalid_request_error",
        "param": "response_format",
        "code": "invalid_json_schema",
    }


def test_the_same_schema_without_strict_is_not_held_to_the_subset(fake_llm: FakeLLMServer) -> None:
    loose = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    with openai_client(fake_llm) as client:
        chat(
            client,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "V", "schema": loose, "strict": False},
            },
        )
    assert fake_llm.request_count == 1 and not fake_llm.errors


def test_the_fake_refuses_a_strict_function_tool_and_a_bad_schema_name(fake_llm: FakeLLMServer) -> None:
    loose = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    tool = {"type": "function", "function": {"name": "grade", "parameters": loose, "strict": True}}
    with openai_client(fake_llm) as client:
        with pytest.raises(openai.BadRequestError) as info:
            chat(client, tools=[tool])
        assert info.value.param == "tools[0].function.parameters"
        assert info.value.code == "invalid_function_parameters"
        assert "Invalid schema for function 'grade': In context=(), 'additionalProperties'" in str(info.value)
        with pytest.raises(openai.BadRequestError) as named:
            chat(
                client,
                response_format={"type": "json_schema", "json_schema": {"name": "Vérdict", "schema": GOOD}},
            )
        assert named.value.param == "response_format.json_schema.name"
        assert "string does not match pattern" in str(named.value)


# -- Anthropic: each rule refuses ----------------------------------------------------------------


def tool(schema: object, **extra: object) -> dict[str, object]:
    return {"name": "submit_verdict", "input_schema": schema, **extra}


def test_a_tool_schema_the_api_takes() -> None:
    assert tool_refusal(0, tool(GOOD)) is None
    # not strict: bounds, defaults and open objects are plain draft 2020-12
    assert (
        tool_refusal(
            0, tool({"type": "object", "properties": {"a": {"type": "integer", "default": 1, "maximum": 3}}})
        )
        is None
    )


@pytest.mark.parametrize(
    ("tool_def", "message"),
    [
        # the SDK types input_schema as `type: Required[Literal["object"]]`
        (
            tool({"type": "array", "items": GOOD}),
            "tools.0.custom.input_schema.type: Input should be 'object'",
        ),
        (tool({"anyOf": [GOOD]}), "tools.0.custom.input_schema.type: Input should be 'object'"),
        ({"name": "submit_verdict"}, "tools.0.custom.input_schema: Field required"),
        # 'name: Must match the regex ^[a-zA-Z0-9_-]{1,64}$'
        (tool(GOOD, name="submit verdict"), "tools.0.custom.name: String should match pattern"),
        (tool(GOOD, name="x" * 65), "tools.0.custom.name: String should match pattern"),
        # 'JSON schema is invalid. It must match JSON Schema draft 2020-12'
        (
            tool({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}),
            "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12",
        ),
        (tool({"type": "object", "required": "a"}), "JSON schema is invalid"),
        (tool({"type": "object", "properties": {"a": {"type": "text"}}}), "JSON schema is invalid"),
        (tool({"type": "object", "properties": {"a": {"anyOf": []}}}), "JSON schema is invalid"),
        (
            tool({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}),
            "JSON schema is invalid",
        ),
        # strict tools: structured outputs' subset
        (
            tool({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, strict=True),
            "'additionalProperties' must be explicitly set to false",
        ),
        (tool(GOOD, strict=True), "'minimum' is not supported in structured outputs"),
        (
            tool(strict(a={"type": "array", "items": {"type": "string"}, "minItems": 2}), strict=True),
            "'minItems' values other than 0 or 1 are not supported",
        ),
    ],
)
def test_each_tool_rule_refuses_a_schema_that_breaks_it(tool_def: dict[str, object], message: str) -> None:
    refusal = tool_refusal(0, tool_def)
    assert refusal is not None and message in refusal


def test_structured_outputs_refuse_recursion_and_unknown_formats() -> None:
    node = strict(next={"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
    recursive = {**strict(head={"$ref": "#/$defs/Node"}), "$defs": {"Node": node}}
    assert "recursive schemas are not supported" in (output_format_refusal(recursive) or "")
    assert "format 'color' is not supported" in (
        output_format_refusal(strict(c={"type": "string", "format": "color"})) or ""
    )
    assert output_format_refusal(strict(c={"type": "string", "format": "uri"})) is None


def test_the_fake_refuses_a_bad_tool_as_the_api_does(fake_llm: FakeLLMServer) -> None:
    client = anthropic.Anthropic(base_url=fake_llm.anthropic_base_url, api_key="test", max_retries=0)
    create: Any = client.messages.create
    with client, pytest.raises(anthropic.BadRequestError) as info:
        create(
            model="fake-claude",
            max_tokens=100,
            messages=[{"role": "user", "content": "hi"}],
            tools=[{"name": "submit_verdict", "input_schema": {"type": "array"}}],
            tool_choice={"type": "tool", "name": "submit_verdict"},
        )
    assert info.value.status_code == 400
    assert info.value.body is not None
    assert info.value.body["error"] == {  # type: ignore[index]
        "type": "invalid_request_error",
        "message": "tools.0.custom.input_schema.type: Input should be 'object'",
    }


# -- every schema pytest-rag sends passes both fakes ----------------------------------------------


class PolitenessVerdict(BaseModel):
    """The verdict of a plugin metric written as docs/extending.md shows."""

    reasoning: str = Field(description="one or two sentences")
    rude_phrases: list[str] = Field(default_factory=list, description="phrases that are rude, verbatim")
    tone: Literal["warm", "neutral", "cold"] = Field(description="the answer's tone")
    score: int = Field(ge=1, le=5, description="the grade, 1-5")


class Politeness(SingleJudgment):
    """How polite is the answer? (a plugin metric, registered through pytest_rag_metrics)"""

    name = "politeness"
    scale = Scale(1, 5)
    required = ("answer",)
    template = Template(
        id="politeness",
        version="1",
        task="Task: rate how polite and respectful the answer is towards the user.",
        scale="Scale: 5 - warm and respectful ... 1 - rude or dismissive.",
        fields={"reasoning": "one or two sentences", "rude_phrases": "list", "tone": "word", "score": "1-5"},
    )
    verdict = PolitenessVerdict

    def render(self, sample: Any) -> tuple[str, dict[str, Any]]:
        return block("answer", sample.answer), {"answer": sample.answer}

    def scored(self, verdict: Any) -> Scored:
        return Scored(score=verdict.score, reasons=verdict.reasoning)


class _Plugin:
    @staticmethod
    def pytest_rag_metrics() -> list[type[Metric]]:
        return [Politeness, CaseGeneration]

    @staticmethod
    def pytest_rag_judge_providers() -> dict[str, Any]:
        return {}


def every_request() -> list[JudgeRequest]:
    """One request per distinct schema pytest-rag sends: every built-in variant's, and the plugin
    metrics' (the politeness metric registered through the hook, as a conftest would; the case
    generator's, which its command registers the same way)."""
    requests = [request for _, name, mode, options in VARIANTS for request in asked(name, mode, options)]
    registry = Registry()
    registry.add_metrics(_Plugin.pytest_rag_metrics())
    asker = RecordingAsker()
    asyncio.run(registry.metric("politeness")().score(asker, SAMPLE, {}))
    requests.extend(asker.requests)
    passages = [Passage("p1", "refunds.md", "Refunds", "Refunds are processed within five business days.")]
    requests.extend(generation_request(kind, passages) for kind in sorted(ASKS))
    distinct: dict[str, JudgeRequest] = {}
    for request in requests:
        distinct.setdefault(json.dumps(request.response_schema(), sort_keys=True), request)
    return list(distinct.values())


def test_every_schema_pytest_rag_sends_passes_both_fakes(fake_llm: FakeLLMServer) -> None:
    requests = every_request()
    assert len(requests) >= 30  # every built-in verdict shape, the case generator's and the plugin's
    assert any(r.template_id == "context_precision.usefulness_all" for r in requests)
    spec_openai = JudgeSpec("openai", "fake-gpt", fake_llm.openai_base_url)
    spec_anthropic = JudgeSpec("anthropic", "fake-claude", fake_llm.anthropic_base_url)

    async def send_all() -> None:
        chat, messages = (
            OpenAIChatJudge(spec_openai, timeout_s=5.0),
            AnthropicJudge(spec_anthropic, timeout_s=5.0),
        )
        try:
            for request in requests:
                await chat.complete(request)
                await messages.complete(request)
        finally:
            await chat.aclose()
            await messages.aclose()

    asyncio.run(send_all())
    assert not fake_llm.errors
    sent = fake_llm.requests
    assert len(sent) == 2 * len(requests)
    formats = [r.json_body.get("response_format") for r in sent if r.api == "openai"]
    # every request kept its strict schema: none fell back to JSON mode after a refusal
    assert all(f is not None and f["type"] == "json_schema" and f["json_schema"]["strict"] for f in formats)
    assert all(
        r.json_body["tools"][0]["input_schema"]["type"] == "object" for r in sent if r.api == "anthropic"
    )


# -- the emitter --------------------------------------------------------------------------------


class Movie(BaseModel):
    """A film."""

    title: str
    year: int = Field(ge=1888)


class Review(BaseModel):
    best: Movie = Field(description="the film the critic liked most")
    worst: Movie = Field(description="the film the critic liked least")
    seen: list[Movie]


class Node(BaseModel):
    value: int
    child: Node | None = Field(default=None, description="the next node")


def test_a_described_nested_model_is_inlined_with_its_description() -> None:
    """A field whose type is a model and that has a description is a $ref with a sibling in pydantic's
    schema; the provider schema inlines it (the definition's keywords, then the field's), keeps a bare
    $ref as it is, and drops a definition nothing refers to any more."""
    schema = provider_schema(Review)
    assert strict_refusal(schema) is None
    best = schema["properties"]["best"]
    assert "$ref" not in best and best["description"] == "the film the critic liked most"
    assert best["properties"]["year"]["description"] == "{minimum: 1888}"
    assert best["required"] == ["title", "year"] and best["additionalProperties"] is False
    assert schema["properties"]["seen"]["items"] == {"$ref": "#/$defs/Movie"}
    assert set(schema["$defs"]) == {"Movie"}

    class Pair(BaseModel):
        first: Movie = Field(description="one")
        second: Movie = Field(description="two")

    assert "$defs" not in provider_schema(Pair)  # both uses inlined: the definition went with them
    assert strict_refusal(provider_schema(Pair)) is None


def test_a_recursive_model_keeps_a_bare_reference_where_it_recurs() -> None:
    schema = provider_schema(Node)
    assert strict_refusal(schema) is None
    child = schema["properties"]["child"]
    assert child["description"] == "the next node"
    assert {"$ref": "#/$defs/Node"} in child["anyOf"] or {"$ref": "#"} in child["anyOf"]
