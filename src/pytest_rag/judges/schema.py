"""JSON schemas for structured judge output that every provider accepts.

Pydantic emits keywords that OpenAI's strict structured-output mode rejects (``title``, ``default``,
numeric bounds on some deployments). The provider schema keeps the shape (types, enums, required
fields, ``additionalProperties: false``) and moves bounds into the description; pydantic still
enforces the bounds when the reply is validated, so nothing is lost.
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


@functools.cache
def _cached(model: type[BaseModel]) -> dict[str, Any]:
    cleaned: dict[str, Any] = _clean(model.model_json_schema())
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
