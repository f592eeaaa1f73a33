"""Reading a mapping whose keys must be whole numbers, such as a rubric's levels or a model
config's ``id2label`` indices, where the keys may come as ints or as the strings that JSON and
YAML give.

The caller supplies the error, so the message names the option or file the mapping came from
and says how to fix it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

V = TypeVar("V")


def integer_keyed(raw: Mapping[Any, V], not_integer: Callable[[Any], Exception]) -> dict[int, V]:
    """``raw`` with every key read as an integer, in the mapping's order. A key that is not written
    as one (``"one"``, ``"1.5"``, ``"01"``, ``True``, ``None``) raises ``not_integer(key)``."""
    keyed: dict[int, V] = {}
    for key, value in raw.items():
        try:
            number = int(key)
        except (TypeError, ValueError):
            raise not_integer(key) from None
        if isinstance(key, bool) or str(number) != str(key).strip():
            raise not_integer(key)
        keyed[number] = value
    return keyed
