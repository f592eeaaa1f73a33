"""JSON schemas for structured judge output that every provider accepts.

Pydantic emits keywords that OpenAI's strict structured-output mode rejects (``title``, ``default``,
numeric bounds on some deployments), and a ``$ref`` with keywords beside it (a field whose type is a
model and that has a description), which strict mode refuses outright ("$ref cannot have keywords
{'description'}"). The provider schema keeps the shape (types, enums, required fields,
``additionalProperties: false``), moves bounds into the description, and inlines every ``$ref`` that
has siblings, the way openai-python's own ``to_strict_json_schema`` does: the definition's keywords,
then the field's own (its description wins); a definition nothing refers to any more is dropped.
Pydantic still enforces the bounds when the reply is validated, so nothing is lost. The fake servers
of the test kit apply each provider's documented rules, and a test sends every built-in schema through
them.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel

_DROPPED = {"title", "default", "examples"}
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems")


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    bounds: list[str] = []
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key in _BOUNDS:
            bounds.append(f"{key}: {value}")
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        else:
            out[key] = _clean(value)
    if bounds:
        # The same "{minimum: 1, maximum: 5}" notation the Anthropic SDK uses for bounds it cannot send.
        note = "{" + ", ".join(bounds) + "}"
        out["description"] = f"{out['description']}\n\n{note}" if "description" in out else note
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    return out


def _inline_refs_with_siblings(node: Any, definitions: dict[str, Any], inlining: frozenset[str]) -> Any:
    """``node`` with each ``$ref`` that has sibling keywords replaced by the definition it names,
    merged under those siblings. A reference back into a definition being inlined (a recursive
    model) stays a bare ``$ref``: its siblings are dropped rather than inlined without end."""
    if isinstance(node, list):
        return [_inline_refs_with_siblings(item, definitions, inlining) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1:
        name = ref.removeprefix("#/$defs/")
        if name in inlining or name not in definitions:
            return {"$ref": ref}
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        merged = {**definitions[name], **siblings}
        return _inline_refs_with_siblings(merged, definitions, inlining | {name})
    return {key: _inline_refs_with_siblings(value, definitions, inlining) for key, value in node.items()}


def _referenced(node: Any, found: set[str]) -> None:
    """Add to ``found`` the definitions ``node`` refers to."""
    if isinstance(node, list):
        for item in node:
            _referenced(item, found)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        for value in node.values():
            _referenced(value, found)


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The cleaned schema with every ``$ref`` standing alone, as strict mode wants it, and only the
    definitions still referred to (from the root or from each other)."""
    definitions: dict[str, Any] = schema.get("$defs", {})
    if not definitions:
        return schema
    inlined: dict[str, Any] = {key: value for key, value in schema.items() if key != "$defs"}
    root = inlined.pop("$ref", None)
    if isinstance(root, str):  # a recursive model: the root must be the object itself, not a reference
        name = root.removeprefix("#/$defs/")
        inlined = {**definitions[name], **inlined}
        inlined = _inline_refs_with_siblings(inlined, definitions, frozenset({name}))
    else:
        inlined = _inline_refs_with_siblings(inlined, definitions, frozenset())
    kept_definitions = {
        name: _inline_refs_with_siblings(definition, definitions, frozenset({name}))
        for name, definition in definitions.items()
    }
    used: set[str] = set()
    _referenced(inlined, used)
    pending = list(used)
    while pending:  # definitions referred to by definitions in use
        found: set[str] = set()
        _referenced(kept_definitions.get(pending.pop(), {}), found)
        pending.extend(found - used)
        used |= found
    if used:
        inlined["$defs"] = {name: kept_definitions[name] for name in definitions if name in used}
    return inlined


@functools.cache
def _cached(model: type[BaseModel]) -> dict[str, Any]:
    cleaned: dict[str, Any] = _strict(_clean(model.model_json_schema()))
    return cleaned


def provider_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The schema sent to the judge for ``model`` (memoised: it is part of every cache key)."""
    return _cached(model)


@functools.cache
def provider_schema_json(model: type[BaseModel]) -> str:
    """:func:`provider_schema` as the cache key writes it (compact, sorted keys, ASCII), memoised."""
    return json.dumps(_cached(model), sort_keys=True, ensure_ascii=True, separators=(",", ":"))


GRADE_FIELD = "score"
"""The field of a verdict that carries its grade, when the verdict has one."""


@functools.cache
def verdict_grades(model: type[BaseModel]) -> tuple[int, ...] | None:
    """The grades a verdict's ``score`` can take, when it is an integer on a small scale of single
    digits (1-5, 0-3, 0/1/2, 0/2/4): ascending. None for any other verdict (no ``score``, a 0-1
    float, a scale with a grade of two digits, whose first digit's token would not tell 1 from 10).

    Read from the model's own JSON schema: the ``enum`` of a ``Literal``, or the integer bounds."""
    node = model.model_json_schema().get("properties", {}).get(GRADE_FIELD)
    if not isinstance(node, dict) or node.get("type") != "integer":
        return None
    if isinstance(node.get("enum"), list):
        grades = sorted({int(value) for value in node["enum"]})
    elif isinstance(node.get("minimum"), int) and isinstance(node.get("maximum"), int):
        grades = list(range(node["minimum"], node["maximum"] + 1))
    else:
        return None
    return tuple(grades) if grades and all(0 <= grade <= 9 for grade in grades) else None
