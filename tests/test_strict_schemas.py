"""The fake servers refuse a schema as OpenAI's strict mode and Anthropic's tool use refuse it.

Each rule of ``fake_llm.openai_strict`` and ``fake_llm.anthropic_schema`` is shown refusing a schema
that breaks it, with the provider's status, error body and words.
"""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest

from fake_llm import FakeLLMServer
from fake_llm.anthropic_schema import output_format_refusal, tool_refusal
from fake_llm.openai_strict import strict_refusal


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
