"""Build a small value that is valid against a JSON schema.

The fake server uses this to answer structured-output requests the way a cooperative model would,
so whole judge suites can run against it. It covers the schema vocabulary that pydantic's
`model_json_schema()` and the OpenAI/Anthropic strict-schema transforms emit: `$ref`/`$defs`,
`anyOf`/`oneOf`/`allOf`, `const`, `enum`, numeric bounds and `multipleOf`, string lengths and
formats, `prefixItems`/`items` with `minItems`/`maxItems`/`uniqueItems`, `required` properties.

Like a real model reading the schema, it also honours constraints that the Anthropic SDK moves out
of the schema into the description (``"{minimum: 1, maximum: 5}"``) because the API does not
accept them as keywords.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Preference = Literal["min", "mid", "max"]
EnumPick = Literal["first", "last"]

_HARD_DEPTH = 64
_SOFT_DEPTH = 8  # beyond this, optional/array recursion stops so self-referencing schemas end
_FORMAT_EXAMPLES = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "hostname": "example.com",
}


_HINT_KEYS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "uniqueItems",
    "pattern",
)
_HINT_SPLIT = re.compile(r"(?:^|, )(" + "|".join(_HINT_KEYS) + r"): ")


class SchemaInstanceError(ValueError):
    """The schema admits no value this generator can construct (or is not a schema)."""


@dataclass(frozen=True)
class InstanceOptions:
    """How to pick among valid values.

    `prefer` chooses numbers at the low end, middle, or high end of their bounds (e.g. "max" makes
    every score the best score); `enum_pick` chooses the first or last enum member; `text` seeds
    strings.
    """

    prefer: Preference = "min"
    enum_pick: EnumPick = "first"
    text: str = "ok"
    boolean: bool = True

    def __post_init__(self) -> None:
        if self.prefer not in ("min", "mid", "max"):
            raise ValueError(f"prefer must be 'min', 'mid' or 'max', got {self.prefer!r}")
        if self.enum_pick not in ("first", "last"):
            raise ValueError(f"enum_pick must be 'first' or 'last', got {self.enum_pick!r}")


def minimal_instance(schema: object, options: InstanceOptions | None = None) -> object:
    """A JSON value valid against `schema` (required properties only, one array item)."""
    return _Builder(schema, options or InstanceOptions()).build(schema, "#", 0, 0)


class _Builder:
    def __init__(self, root: object, options: InstanceOptions) -> None:
        self.root = root
        self.options = options

    def build(self, schema: object, where: str, depth: int, variant: int) -> object:
        if depth > _HARD_DEPTH:
            raise SchemaInstanceError(
                f"schema at {where} nests deeper than {_HARD_DEPTH} levels; a required "
                "self-reference has no finite instance: make the recursive field optional"
            )
        if schema is True:
            return None
        if schema is False:
            raise SchemaInstanceError(f"schema at {where} is `false`; no value is valid there")
        if not isinstance(schema, Mapping):
            raise SchemaInstanceError(f"schema at {where} must be an object, got {schema!r}")
        schema = _with_description_hints(schema)
        if "$ref" in schema:
            ref = schema["$ref"]
            return self.build(self.resolve(ref, where), str(ref), depth + 1, variant)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return self.pick_enum(schema["enum"], where, variant)
        if "allOf" in schema:
            return self.build(self.merge_all_of(schema, where), where, depth + 1, variant)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branch = self.pick_branch(schema[key], where, depth)
                return self.build(branch, f"{where}/{key}", depth + 1, variant)
        kind = self.kind_of(schema)
        if kind == "object":
            return self.build_object(schema, where, depth, variant)
        if kind == "array":
            return self.build_array(schema, where, depth, variant)
        if kind == "string":
            return self.build_string(schema, where, variant)
        if kind == "integer":
            return self.build_integer(schema, where, variant)
        if kind == "number":
            return self.build_number(schema, where, variant)
        if kind == "boolean":
            return self.options.boolean if variant % 2 == 0 else not self.options.boolean
        return None  # "null", or an unconstrained schema that accepts anything

    def resolve(self, ref: object, where: str) -> object:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaInstanceError(
                f"$ref {ref!r} at {where} is not a local '#/...' reference; inline the schema"
            )
        node: object = self.root
        for raw in ref[1:].split("/"):
            if not raw:
                continue
            part = raw.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                raise SchemaInstanceError(f"$ref {ref!r} at {where} points at nothing")
            node = node[part]
        return node

    def pick_enum(self, members: object, where: str, variant: int) -> object:
        if not isinstance(members, list) or not members:
            raise SchemaInstanceError(f"enum at {where} must be a non-empty list")
        start = 0 if self.options.enum_pick == "first" else len(members) - 1
        step = 1 if self.options.enum_pick == "first" else -1
        return members[(start + step * variant) % len(members)]

    def merge_all_of(self, schema: Mapping[str, Any], where: str) -> dict[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            while isinstance(part, Mapping) and "$ref" in part:
                part = self.resolve(part["$ref"], where)
            if not isinstance(part, Mapping):
                continue
            for key, value in part.items():
                if key == "properties":
                    merged.setdefault("properties", {}).update(value)
                elif key == "required":
                    merged["required"] = [*merged.get("required", []), *value]
                else:
                    merged.setdefault(key, value)
        return merged

    def pick_branch(self, branches: object, where: str, depth: int) -> object:
        if not isinstance(branches, list) or not branches:
            raise SchemaInstanceError(f"anyOf/oneOf at {where} must be a non-empty list")
        nulls = [b for b in branches if self.is_null(b, where)]
        others = [b for b in branches if not self.is_null(b, where)]
        if depth >= _SOFT_DEPTH and nulls:
            return nulls[0]
        return others[0] if others else nulls[0]

    def is_null(self, schema: object, where: str) -> bool:
        while isinstance(schema, Mapping) and "$ref" in schema:
            schema = self.resolve(schema["$ref"], where)
        return isinstance(schema, Mapping) and schema.get("type") == "null"

    @staticmethod
    def kind_of(schema: Mapping[str, Any]) -> str | None:
        declared = schema.get("type")
        if isinstance(declared, list):
            concrete = [t for t in declared if t != "null"]
            return str(concrete[0]) if concrete else "null"
        if isinstance(declared, str):
            return declared
        if any(k in schema for k in ("properties", "required", "additionalProperties")):
            return "object"
        if any(k in schema for k in ("items", "prefixItems", "minItems")):
            return "array"
        if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
            return "string"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "multipleOf")):
            return "number"
        return None

    def build_object(
        self, schema: Mapping[str, Any], where: str, depth: int, variant: int
    ) -> dict[str, object]:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        extra = schema.get("additionalProperties", True)
        result: dict[str, object] = {}
        for name in schema.get("required") or []:
            sub = properties.get(name, extra if isinstance(extra, Mapping) else True)
            result[name] = self.build(sub, f"{where}/properties/{name}", depth + 1, variant)
        wanted = int(schema.get("minProperties", 0))
        for name, sub in properties.items():
            if len(result) >= wanted:
                break
            if name not in result:
                result[name] = self.build(sub, f"{where}/properties/{name}", depth + 1, variant)
        key_number = 1
        while len(result) < wanted:
            if extra is False:
                raise SchemaInstanceError(
                    f"object at {where} needs {wanted} properties but defines fewer and forbids "
                    "additional ones"
                )
            key = f"key{key_number}"
            key_number += 1
            if key not in result:
                sub = extra if isinstance(extra, Mapping) else True
                result[key] = self.build(sub, f"{where}/additionalProperties", depth + 1, variant)
        return result

    def build_array(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> list[object]:
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        if high is not None and low > high:
            raise SchemaInstanceError(f"array at {where} has minItems {low} > maxItems {high}")
        count = low if depth >= _SOFT_DEPTH else max(low, 1)
        if high is not None:
            count = min(count, int(high))
        prefix = schema.get("prefixItems")
        items = schema.get("items", True)
        if isinstance(items, list):  # draft-04 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        prefix = list(prefix or [])
        unique = bool(schema.get("uniqueItems"))
        result: list[object] = []
        for i in range(count):
            sub = prefix[i] if i < len(prefix) else items
            if sub is False:
                raise SchemaInstanceError(f"array at {where} needs {count} items but allows {i}")
            result.append(self.build(sub, f"{where}/items", depth + 1, i if unique else variant))
        return result

    def build_string(self, schema: Mapping[str, Any], where: str, variant: int) -> str:
        fmt = schema.get("format")
        text = _FORMAT_EXAMPLES.get(fmt, self.options.text) if isinstance(fmt, str) else None
        if text is None:
            text = self.options.text
        if variant and fmt not in _FORMAT_EXAMPLES:
            text = f"{text}{variant}"
        low = int(schema.get("minLength", 0))
        high = schema.get("maxLength")
        if len(text) < low:
            text += "x" * (low - len(text))
        if high is not None:
            text = text[: int(high)]
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not re.search(pattern, text):
            for candidate in ("", "a", "A", "0", "x" * max(low, 1), "a" * max(low, 1)):
                if re.search(pattern, candidate) and len(candidate) >= low:
                    return candidate
            raise SchemaInstanceError(
                f"cannot build a string matching pattern {pattern!r} at {where}; script an "
                "explicit Reply.json for this request instead"
            )
        return text

    def build_integer(self, schema: Mapping[str, Any], where: str, variant: int) -> int:
        low, high = _bounds(schema)
        lo = None if low is None else math.floor(low[0]) + 1 if low[1] else math.ceil(low[0])
        hi = None if high is None else math.ceil(high[0]) - 1 if high[1] else math.floor(high[0])
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0 and float(step).is_integer():
            m = int(step)
            lo = None if lo is None else -(-lo // m) * m
            hi = None if hi is None else (hi // m) * m
        else:
            m = 1
        if lo is not None and hi is not None and lo > hi:
            raise SchemaInstanceError(f"no integer satisfies the bounds at {where}")
        value = self.choose(lo, hi, 0)
        if self.options.prefer == "mid" and m > 1:
            value = (value // m) * m
            value = value if lo is None or value >= lo else value + m
        if variant:
            moved = value + variant * m
            value = moved if hi is None or moved <= hi else value - variant * m
        return int(value)

    def build_number(self, schema: Mapping[str, Any], where: str, variant: int) -> float:
        low, high = _bounds(schema)
        lo = None if low is None else math.nextafter(low[0], math.inf) if low[1] else low[0]
        hi = None if high is None else math.nextafter(high[0], -math.inf) if high[1] else high[0]
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            lo = None if lo is None else math.ceil(lo / step) * step
            hi = None if hi is None else math.floor(hi / step) * step
        if lo is not None and hi is not None and lo > hi:
            raise SchemaInstanceError(f"no number satisfies the bounds at {where}")
        value = float(self.choose(lo, hi, 0.0))
        if isinstance(step, (int, float)) and step > 0 and self.options.prefer == "mid":
            value = math.floor(value / step) * step
            value = value if lo is None or value >= lo else value + step
        if variant:
            moved = value + variant * (step if isinstance(step, (int, float)) and step > 0 else 1)
            value = moved if hi is None or moved <= hi else value - (moved - value)
        return value

    def choose(self, lo: Any, hi: Any, origin: Any) -> Any:
        prefer = self.options.prefer
        if prefer == "min" and lo is not None:
            return lo
        if prefer == "max" and hi is not None:
            return hi
        if prefer == "mid" and lo is not None and hi is not None:
            return (lo + hi) // 2 if isinstance(lo, int) and isinstance(hi, int) else (lo + hi) / 2
        value = origin
        if lo is not None and value < lo:
            value = lo
        if hi is not None and value > hi:
            value = hi
        return value


def _bounds(
    schema: Mapping[str, Any],
) -> tuple[tuple[float, bool] | None, tuple[float, bool] | None]:
    """Lower and upper bound as (value, exclusive), understanding draft-04 boolean exclusives."""

    def one(inclusive_key: str, exclusive_key: str) -> tuple[float, bool] | None:
        inclusive = schema.get(inclusive_key)
        exclusive = schema.get(exclusive_key)
        if isinstance(exclusive, bool):
            return (float(inclusive), exclusive) if inclusive is not None else None
        candidates: list[tuple[float, bool]] = []
        if isinstance(inclusive, (int, float)):
            candidates.append((float(inclusive), False))
        if isinstance(exclusive, (int, float)):
            candidates.append((float(exclusive), True))
        if not candidates:
            return None
        if inclusive_key == "minimum":  # the stricter bound wins; exclusive beats inclusive on ties
            return max(candidates, key=lambda c: (c[0], c[1]))
        return min(candidates, key=lambda c: (c[0], not c[1]))

    return one("minimum", "exclusiveMinimum"), one("maximum", "exclusiveMaximum")


def _with_description_hints(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """`schema` plus constraints stated in a trailing ``{key: value, ...}`` description block."""
    description = schema.get("description")
    if not isinstance(description, str) or not description.rstrip().endswith("}"):
        return schema
    text = description.rstrip()
    start = text.rfind("\n\n{")
    block = text[start + 2 :] if start >= 0 else text
    if not block.startswith("{"):
        return schema
    pieces = _HINT_SPLIT.split(block[1:-1])
    if len(pieces) < 3 or pieces[0]:
        return schema
    hints: dict[str, Any] = {}
    for key, raw in zip(pieces[1::2], pieces[2::2], strict=True):
        if key in schema:
            continue
        if key == "pattern":
            hints[key] = raw
        elif key == "uniqueItems":
            hints[key] = raw == "True"
        else:
            try:
                number = float(raw)
            except ValueError:
                continue
            hints[key] = int(number) if number.is_integer() else number
    return {**schema, **hints} if hints else schema
