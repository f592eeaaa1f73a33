"""Anthropic's rules for a tool's ``input_schema``: what the fake refuses, as the Messages API does.

Every custom tool of a Messages request is checked, whether or not ``tool_choice`` forces it:

- its ``name`` matches ``^[a-zA-Z0-9_-]{1,64}$`` (tool-use docs, "Specifying client tools": "Must
  match the regex ^[a-zA-Z0-9_-]{1,64}$");
- its ``input_schema`` is there and has ``"type": "object"`` (the SDK's ``InputSchema`` types it as
  ``type: Required[Literal["object"]]``; the API answers "tools.0.custom.input_schema.type: Input should
  be 'object'");
- the schema is valid JSON Schema draft 2020-12 (the API's words: "JSON schema is invalid. It must
  match JSON Schema draft 2020-12"): every keyword of the draft that the fake knows holds a value of
  the kind its meta-schema requires (``items`` one schema, not the draft-07 array of schemas;
  ``required`` an array of strings; ``anyOf`` a non-empty array of schemas; ...).

A tool with ``"strict": true`` and the schema of ``output_config.format`` (structured outputs) must
also stay inside the subset constrained decoding compiles ("Structured outputs", "JSON Schema
limitations", read 2026, and the SDK's ``transform_schema``, which rewrites a pydantic schema into
it): ``additionalProperties: false`` on every object; no numeric bounds (``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``), no string lengths (``minLength``,
``maxLength``), no ``maxItems``, ``minItems`` only 0 or 1, no ``minProperties``/``maxProperties``;
``format`` only date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid; and no
recursive ``$ref``.

:func:`tool_refusal` and :func:`output_format_refusal` return the API's message for the first rule
broken (None when the API would take the request); :mod:`.anthropic_wire` sends it as a 400.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from .wire import resolve_local_ref

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
INVALID_SCHEMA = (
    "JSON schema is invalid. It must match JSON Schema draft 2020-12 "
    "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
    "https://docs.claude.com/en/docs/tool-use."
)
"""What the API says of an ``input_schema`` that is not draft 2020-12."""

SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})

SCHEMA_VALUED = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
"""Keywords whose value is one schema (an object or a boolean) in draft 2020-12's meta-schema."""
SCHEMA_ARRAYS = ("allOf", "anyOf", "oneOf", "prefixItems")
"""Keywords whose value is a non-empty array of schemas."""
SCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
"""Keywords whose value is an object of schemas."""
COUNTS = ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties")
"""Keywords whose value is a non-negative integer."""
NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
STRINGS = ("$ref", "$id", "$schema", "$anchor", "pattern", "format", "title", "description")

STRICT_UNSUPPORTED = (*NUMBERS, "minLength", "maxLength", "maxItems", "minProperties", "maxProperties")
"""What structured outputs and strict tools refuse ('Numerical constraints', 'String constraints',
'maxItems', object size constraints; the SDK moves each of them into the description instead)."""
STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)


def tool_refusal(index: int, tool: object) -> str | None:
    """The API's message for the first rule tool ``index`` of the request breaks, or None."""
    where = f"tools.{index}.custom"
    if not isinstance(tool, Mapping):
        return f"tools.{index}: Input should be a valid dictionary"
    name = tool.get("name")
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        return f"{where}.name: String should match pattern '{TOOL_NAME.pattern}'"
    if "input_schema" not in tool:
        return f"{where}.input_schema: Field required"
    schema = tool["input_schema"]
    if not isinstance(schema, Mapping):
        return f"{where}.input_schema: Input should be a valid dictionary"
    if schema.get("type") != "object":
        return f"{where}.input_schema.type: Input should be 'object'"
    if next(_draft_problems(schema), None) is not None:
        return f"{where}.input_schema: {INVALID_SCHEMA}"
    if tool.get("strict") is True:
        problem = strict_problem(schema)
        if problem is not None:
            return f"{where}.input_schema: {problem}"
    return None


def output_format_refusal(schema: object) -> str | None:
    """The API's message for the schema of ``output_config.format``, or None."""
    where = "output_config.format.schema"
    if not isinstance(schema, Mapping):
        return f"{where}: Input should be a valid dictionary"
    if next(_draft_problems(schema), None) is not None:
        return f"{where}: {INVALID_SCHEMA}"
    problem = strict_problem(schema)
    return None if problem is None else f"{where}: {problem}"


def _draft_problems(node: object, path: str = "#") -> Iterator[str]:
    if isinstance(node, bool):
        return  # true and false are schemas in draft 2020-12
    if not isinstance(node, Mapping):
        yield f"{path}: a schema is an object or a boolean, not {type(node).__name__}"
        return
    kind = node.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or any(k not in SIMPLE_TYPES for k in kinds) or len(set(map(str, kinds))) < len(kinds):
            yield f"{path}/type: {kind!r} is not a type or a list of distinct types"
    for keyword in SCHEMA_VALUED:
        if keyword in node:
            yield from _draft_problems(
                node[keyword], f"{path}/{keyword}"
            )  # draft-07's items array fails here
    for keyword in SCHEMA_ARRAYS:
        if keyword in node:
            value = node[keyword]
            if not isinstance(value, list) or not value:
                yield f"{path}/{keyword}: must be a non-empty array of schemas"
                continue
            for index, sub in enumerate(value):
                yield from _draft_problems(sub, f"{path}/{keyword}/{index}")
    for keyword in SCHEMA_MAPS:
        if keyword in node:
            value = node[keyword]
            if not isinstance(value, Mapping):
                yield f"{path}/{keyword}: must be an object of schemas"
                continue
            for name, sub in value.items():
                yield from _draft_problems(sub, f"{path}/{keyword}/{name}")
    if "required" in node:
        required = node["required"]
        if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
            yield f"{path}/required: must be an array of strings"
        elif len(set(required)) < len(required):
            yield f"{path}/required: must not repeat a name"
    if "enum" in node and not isinstance(node["enum"], list):
        yield f"{path}/enum: must be an array"
    for keyword in COUNTS:
        value = node.get(keyword)
        if keyword in node and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            yield f"{path}/{keyword}: must be a non-negative integer"
    for keyword in NUMBERS:
        value = node.get(keyword)
        if keyword in node and (not isinstance(value, (int, float)) or isinstance(value, bool)):
            yield f"{path}/{keyword}: must be a number"
    if isinstance(node.get("multipleOf"), (int, float)) and node["multipleOf"] <= 0:
        yield f"{path}/multipleOf: must be greater than 0"
    for keyword in STRINGS:
        if keyword in node and not isinstance(node[keyword], str):
            yield f"{path}/{keyword}: must be a string"


def strict_problem(schema: Mapping[str, Any]) -> str | None:
    """The first rule of structured outputs ``schema`` breaks, in the API's manner, or None."""
    return next(_strict_problems(schema, schema, "#", frozenset()), None)


def _strict_problems(
    node: object, root: Mapping[str, Any], path: str, following: frozenset[str]
) -> Iterator[str]:
    if not isinstance(node, Mapping):
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in following:
            yield f"{path}: recursive schemas are not supported"
            return
        target = resolve_local_ref(root, ref)
        if target is None:
            yield f"{path}: $ref {ref!r} does not resolve inside the schema"
            return
        yield from _strict_problems(target, root, path, following | {ref})
        return
    for keyword in STRICT_UNSUPPORTED:
        if keyword in node:
            yield f"{path}: '{keyword}' is not supported in structured outputs"
            return
    if node.get("minItems") not in (None, 0, 1):
        yield f"{path}: 'minItems' values other than 0 or 1 are not supported in structured outputs"
        return
    if node.get("format") is not None and node["format"] not in STRICT_FORMATS:
        yield f"{path}: format {node['format']!r} is not supported in structured outputs"
        return
    kind = node.get("type")
    kinds: list[Any] = kind if isinstance(kind, list) else [kind]
    if ("object" in kinds or "properties" in node) and node.get("additionalProperties") is not False:
        yield f"{path}: For 'object' type, 'additionalProperties' must be explicitly set to false"
        return
    properties = node.get("properties")
    for name, sub in (properties if isinstance(properties, Mapping) else {}).items():
        yield from _strict_problems(sub, root, f"{path}/properties/{name}", following)
    if "items" in node:
        yield from _strict_problems(node["items"], root, f"{path}/items", following)
    for keyword in ("anyOf", "allOf"):
        branches = node.get(keyword)
        for index, sub in enumerate(branches if isinstance(branches, list) else ()):
            yield from _strict_problems(sub, root, f"{path}/{keyword}/{index}", following)
