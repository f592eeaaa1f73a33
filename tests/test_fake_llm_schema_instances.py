"""The fake server's schema instance builder on its own: the JSON values it makes for a schema (what the
schema responder answers with), including recursive, bounded and impossible schemas."""

from __future__ import annotations

import pytest

from fake_llm import InstanceOptions, SchemaInstanceError, minimal_instance


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
