"""OpenAI's rules for a strict schema: what the fake refuses, as the API does, before any reply.

A schema sent with ``response_format: {"type": "json_schema", "json_schema": {..., "strict": true}}``
or as the ``parameters`` of a function tool with ``"strict": true`` must stay inside the subset of
JSON Schema that Structured Outputs compiles into a grammar. The rules below are OpenAI's, as its
Structured Outputs guide publishes them (section "Supported schemas", read 2026: "Supported types",
"Supported properties", "Root objects must not be anyOf and must be an object", "All fields must be
required", "Objects have limitations on nesting depth and size", "Limitations on total string size",
"Limitations on enum size", "additionalProperties: false must always be set in objects", "Some
type-specific keywords are not yet supported", "Definitions are supported", "Recursive schemas are
supported"), plus the one the guide leaves implicit and the API enforces: a ``$ref`` stands alone
(openai-python's own ``to_strict_json_schema`` inlines a ``$ref`` that has siblings for that reason).

The API stops at the first rule a schema breaks and names where: ``Invalid schema for
response_format 'Name': In context=('properties', 'passage_1'), $ref cannot have keywords
{'description'}.``; :func:`strict_refusal` returns that first :class:`Refusal` (None for a schema the
API takes), and :mod:`.openai_wire` sends it as the API's 400.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .wire import resolve_local_ref

MAX_OBJECT_PROPERTIES = 5000
"""'A schema may have up to 5000 object properties total, with up to 10 levels of nesting.'"""
MAX_NESTING = 10
MAX_STRING_TOTAL = 120_000
"""'total string length of all property names, definition names, enum values, and const values
cannot exceed 120,000 characters.'"""
MAX_ENUM_VALUES = 1000
"""'A schema may have up to 1000 enum values across all enum properties.'"""
LARGE_ENUM = 250
MAX_LARGE_ENUM_CHARS = 15_000
"""'For a single enum property with string values, the total string length of all enum values
cannot exceed 15,000 characters when there are more than 250 enum values.'"""

TYPES = frozenset({"string", "number", "boolean", "integer", "object", "array", "null"})
"""'Supported types': String, Number, Boolean, Integer, Object, Array (Enum and anyOf are keywords
below); ``null`` is how the guide writes an optional field (``"type": ["string", "null"]``)."""

STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""'format — Predefined formats for strings. Currently supported: date-time, time, date, duration,
email, hostname, ipv4, ipv6, uuid'."""

ANY_NODE = frozenset(
    {"type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs", "definitions"}
)
"""Keywords any schema node may carry: its type, the annotations every example of the guide uses
(``description``; ``title``, which openai-python's own strict helper sends as pydantic writes it),
'Enum' and 'anyOf' from the supported types, and definitions ('Definitions are supported')."""

BY_TYPE: Mapping[str, frozenset[str]] = {
    # 'Supported string properties: pattern, format'; minLength and maxLength are named only among
    # what fine-tuned models "additionally do not support", so the base models take them.
    "string": frozenset({"pattern", "format", "minLength", "maxLength"}),
    # 'Supported number properties: multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum'
    "number": frozenset({"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}),
    "integer": frozenset({"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}),
    # 'Supported array properties: minItems, maxItems'
    "array": frozenset({"items", "minItems", "maxItems"}),
    # patternProperties is named only among what fine-tuned models "additionally do not support"
    "object": frozenset({"properties", "required", "additionalProperties", "patternProperties"}),
    "boolean": frozenset(),
    "null": frozenset(),
}
"""The keywords each type adds to :data:`ANY_NODE`. Everything else ('Composition: allOf, not,
dependentRequired, dependentSchemas, if, then, else' among it, and ``default``, which the API answers
with "'default' is not permitted.") is refused."""


@dataclass(frozen=True)
class Refusal:
    """The first rule a schema breaks: where (OpenAI's ``context``, the path of keys from the root)
    and the API's words for it."""

    context: tuple[str, ...]
    reason: str

    def message(self, subject: str) -> str:
        """The API's message, ``subject`` being what carried the schema (``response_format 'Name'`` or
        ``function 'name'``)."""
        if not self.context and self.reason.startswith("schema must be"):
            return f"Invalid schema for {subject}: {self.reason}"
        return f"Invalid schema for {subject}: In context={self.context!r}, {self.reason}"


def strict_refusal(schema: object) -> Refusal | None:
    """The first rule of strict mode ``schema`` breaks, or None when the API would take it."""
    if not isinstance(schema, Mapping):
        return Refusal(
            (), f"schema must be a JSON Schema of 'type: \"object\"', got {type(schema).__name__}."
        )
    # 'Root objects must not be anyOf and must be an object'
    if schema.get("type") != "object" or "anyOf" in schema:
        got = schema.get("type") if "anyOf" not in schema else "anyOf"
        return Refusal((), f"schema must be a JSON Schema of 'type: \"object\"', got 'type: {got}'.")
    walk = _Walk(schema)
    for refusal in walk.nodes(schema, ()):
        return refusal
    return walk.limits()


class _Walk:
    """One pass over a schema: every node's own rules, and the totals the size limits count."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.properties = 0
        self.strings = 0
        self.enum_values = 0
        self.large_enum: tuple[tuple[str, ...], int] | None = None

    def nodes(self, node: object, path: tuple[str, ...]) -> Iterator[Refusal]:
        """Refusals of ``node`` and everything under it, first found first; counts as it goes. A
        ``$ref`` is not followed: its definition is checked once, where ``$defs`` holds it."""
        if not isinstance(node, Mapping):
            yield Refusal(path, f"schema must be an object, got {node!r}.")
            return
        if "$ref" in node:
            siblings = sorted(key for key in node if key != "$ref")
            if siblings:  # a $ref stands alone; openai-python inlines one that has siblings
                keywords = ", ".join(repr(key) for key in siblings)
                yield Refusal(path, "$ref cannot have keywords {" + keywords + "}.")
            elif resolve_local_ref(self.root, node["$ref"]) is None:
                yield Refusal(
                    path, f"reference to component {node['$ref']!r} which was not found in the schema."
                )
            return
        types = _types(node)
        unknown = [t for t in types if t not in TYPES]
        if unknown:
            yield Refusal(path, f"type {unknown[0]!r} is not supported.")
            return
        allowed = ANY_NODE.union(*(BY_TYPE[t] for t in types))
        for keyword in node:
            if keyword not in allowed:
                yield Refusal(path, f"'{keyword}' is not permitted.")
                return
        if node.get("format") is not None and node["format"] not in STRING_FORMATS:
            yield Refusal(path, f"format {node['format']!r} is not supported.")
            return
        self._count_literals(node, path)
        if "object" in types or "properties" in node:
            yield from self._object(node, path)
        for name, sub in _children(node, path):
            yield from self.nodes(sub, name)

    def _object(self, node: Mapping[str, Any], path: tuple[str, ...]) -> Iterator[Refusal]:
        # 'additionalProperties: false must always be set in objects'
        if node.get("additionalProperties") is not False:
            yield Refusal(path, "'additionalProperties' is required to be supplied and to be false.")
            return
        properties = node.get("properties", {})
        if not isinstance(properties, Mapping):
            yield Refusal(path, "'properties' must be an object.")
            return
        # 'All fields must be required'
        required = node.get("required", [])
        if not isinstance(required, list):
            required = []
        missing = [name for name in properties if name not in required]
        if missing:
            yield Refusal(
                path,
                "'required' is required to be supplied and to be an array including every key in "
                f"properties. Missing {missing[0]!r}.",
            )
            return
        extra = [name for name in required if name not in properties]
        if extra:
            yield Refusal(path, f"Extra required key {extra[0]!r} supplied.")
            return
        self.properties += len(properties)
        self.strings += sum(len(str(name)) for name in properties)

    def _count_literals(self, node: Mapping[str, Any], path: tuple[str, ...]) -> None:
        enum = node.get("enum")
        if isinstance(enum, list):
            self.enum_values += len(enum)
            chars = sum(len(str(value)) for value in enum)
            self.strings += chars
            strings = all(isinstance(value, str) for value in enum)
            if (
                strings
                and len(enum) > LARGE_ENUM
                and chars > MAX_LARGE_ENUM_CHARS
                and self.large_enum is None
            ):
                self.large_enum = (path, chars)
        if "const" in node:
            self.strings += len(str(node["const"]))

    def limits(self) -> Refusal | None:
        """The size limits, counted over the whole schema once its nodes passed."""
        for name in _definitions(self.root):
            self.strings += len(name)
        if self.properties > MAX_OBJECT_PROPERTIES:
            return Refusal((), f"too many object properties: {self.properties} > {MAX_OBJECT_PROPERTIES}.")
        deepest = _nesting(self.root, self.root, frozenset())
        if deepest > MAX_NESTING:
            return Refusal((), f"nesting too deep: {deepest} levels > {MAX_NESTING}.")
        if self.strings > MAX_STRING_TOTAL:
            return Refusal(
                (),
                f"total string length of property names, definition names, enum values and const values "
                f"is {self.strings} > {MAX_STRING_TOTAL}.",
            )
        if self.enum_values > MAX_ENUM_VALUES:
            return Refusal((), f"too many enum values: {self.enum_values} > {MAX_ENUM_VALUES}.")
        if self.large_enum is not None:
            path, chars = self.large_enum
            return Refusal(
                path,
                f"an enum of more than {LARGE_ENUM} string values may total at most "
                f"{MAX_LARGE_ENUM_CHARS} characters; this one has {chars}.",
            )
        return None


def _nesting(node: object, root: Mapping[str, Any], following: frozenset[str]) -> int:
    """Levels of objects nested in ``node`` (an object counts one, an object in one of its properties
    two, ...), through arrays, anyOf branches and references; a recursive reference ('Recursive
    schemas are supported') counts up to where it recurs."""
    if not isinstance(node, Mapping):
        return 0
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = resolve_local_ref(root, ref)
        return 0 if ref in following or target is None else _nesting(target, root, following | {ref})
    below = max((_nesting(sub, root, following) for _, sub in _subschemas(node, ())), default=0)
    own = 1 if "object" in _types(node) or "properties" in node else 0
    return own + below


def _types(node: Mapping[str, Any]) -> list[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    return []


def _subschemas(node: Mapping[str, Any], path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], object]]:
    """The schemas a value of ``node`` is made of, with their context paths: its properties, its
    items, its anyOf branches."""
    properties = node.get("properties")
    for name, sub in (properties if isinstance(properties, Mapping) else {}).items():
        yield (*path, "properties", name), sub
    if "items" in node:
        yield (*path, "items"), node["items"]
    any_of = node.get("anyOf")
    for index, sub in enumerate(any_of if isinstance(any_of, list) else ()):
        # 'For anyOf, the nested schemas must each be a valid JSON Schema per this subset'
        yield (*path, "anyOf", str(index)), sub


def _children(node: Mapping[str, Any], path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every subschema of ``node`` the rules are checked on: :func:`_subschemas` and definitions."""
    yield from _subschemas(node, path)
    for keyword in ("$defs", "definitions"):
        definitions = node.get(keyword)
        for name, sub in (definitions if isinstance(definitions, Mapping) else {}).items():
            yield (*path, keyword, name), sub


def _definitions(root: Mapping[str, Any]) -> Iterator[str]:
    for keyword in ("$defs", "definitions"):
        definitions = root.get(keyword)
        yield from (definitions if isinstance(definitions, Mapping) else {})
