"""Pieces both fake API dialects share: the HTTP answer, ids, and token estimates.

Token counts only need to be deterministic and plausible (so cost accounting and usage plumbing
can be tested), not exact: a quarter of the character count is the usual rule of thumb.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field


class ScriptMisuseError(ValueError):
    """A scripted reply cannot answer the endpoint it was consumed by (e.g. vectors for a chat)."""


@dataclass(frozen=True)
class Answer:
    """A complete HTTP response the server writes back."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    declared_length: int | None = None  # announce more bytes than sent, then drop the connection


def json_answer(status: int, payload: object, headers: dict[str, str] | None = None) -> Answer:
    """Serialise `payload` the way the APIs do: compact UTF-8 JSON."""
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
    return Answer(status=status, body=body, headers=dict(headers or {}))


def new_id(prefix: str) -> str:
    """A unique id in the style of the real APIs (`chatcmpl-...`, `msg_...`, `call_...`)."""
    return prefix + uuid.uuid4().hex[:24]


def estimate_tokens(text: str) -> int:
    """Deterministic token estimate: ceil(characters / 4)."""
    return math.ceil(len(text) / 4)


def collect_text(value: object) -> str:
    """All human-readable text inside a message structure, concatenated.

    Strings count directly; in dicts only `text` and `content` entries are followed, so ids, roles
    and image payloads do not inflate the estimate.
    """
    parts: list[str] = []
    _collect(value, parts)
    return "".join(parts)


def _collect(value: object, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(value)
    elif isinstance(value, list):
        for item in value:
            _collect(item, parts)
    elif isinstance(value, dict):
        for key in ("text", "content"):
            if key in value:
                _collect(value[key], parts)


def format_retry_after(value: float | str) -> str:
    """Header text for Retry-After: whole seconds without a decimal point, dates verbatim."""
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def resolve_local_ref(root: Mapping[str, object], ref: object) -> object | None:
    """The node of ``root`` a local ``$ref`` names (``#`` is the root itself, ``#/$defs/Name`` a
    definition), or None when it names nothing there."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node: object = root
    for part in [p for p in ref[1:].split("/") if p]:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node
