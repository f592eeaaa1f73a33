"""integer_keys.integer_keyed: the one reader of mappings keyed by whole numbers (rubric levels, a
model config's ``id2label``), whose keys arrive as ints or as JSON/YAML strings."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_rag.ground.integer_keys import integer_keyed


class BadKey(Exception):
    pass


def bad_key(key: Any) -> Exception:
    return BadKey(f"key {key!r}")


def test_int_and_string_keys_are_read_as_integers_in_the_mapping_order() -> None:
    read = integer_keyed({"2": "b", 0: "a", " 1 ": "c"}, bad_key)
    assert read == {2: "b", 0: "a", 1: "c"}
    assert list(read) == [2, 0, 1]


@pytest.mark.parametrize("key", ["one", "1.5", "01", "", True, None, 2.5])
def test_a_key_not_written_as_a_whole_number_raises_the_callers_error(key: Any) -> None:
    with pytest.raises(BadKey, match=f"key {key!r}"):
        integer_keyed({0: "fine", key: "bad"}, bad_key)
