"""Reading a judge's reply into a typed verdict, tolerating the usual wrapping but nothing more.

Judges wrap JSON in code fences or a sentence of preamble; that is stripped. Anything that then fails
pydantic validation is *invalid*: the engine gets one repair attempt and otherwise reports a judge
error carrying the raw reply. Validation includes the checks a metric makes of a whole reply (each
numbered item named once, a context number that exists), declared on the verdict model it asks
with, so a reply the metric would reject is repaired, and never cached, like a malformed one.
Nothing here guesses a score.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import json_error_text
from ..judges.escaping import unescape_data

V = TypeVar("V", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_REFUSAL = re.compile(
    r"^\W*(?:i'?m sorry|sorry|i apologi[sz]e|unfortunately,? i|i can(?:no|'|’)t|i cannot|i am unable|i'?m unable|"
    r"i won(?:'|’)t|i will not|i am not able|i'?m not able|as an ai)\b",
    re.IGNORECASE,
)


class InvalidVerdict(Exception):
    """The reply is not a valid instance of the verdict model; the message says why, briefly."""


def extract_json_text(text: str) -> str:
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    if stripped.startswith("{"):
        return stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if start != -1 and end > start:
        return stripped[start : end + 1]
    return stripped


def refusal_in(text: str) -> str | None:
    """The text itself when it is a plain refusal ("I can't help with that."): no JSON object in it,
    and it opens the way refusals do. A refusal is reported as one, not as invalid JSON."""
    stripped = text.strip()
    if stripped and "{" not in stripped and _REFUSAL.match(stripped):
        return stripped
    return None


def parse_verdict(model: type[V], text: str) -> V:
    candidate = extract_json_text(text)
    try:
        data = _loads(candidate)
    except json.JSONDecodeError as exc:
        raise InvalidVerdict(f"not valid JSON ({json_error_text(exc, f'position {exc.pos}')})") from None
    except ValueError as exc:  # NaN or Infinity: not JSON, and never a score
        raise InvalidVerdict(str(exc)) from None
    if not isinstance(data, dict):
        raise InvalidVerdict(f"expected a JSON object, got {type(data).__name__}")
    try:
        # Escapes all start with "&": a reply without one (nearly all) has nothing to undo.
        return model.model_validate(_unescaped(data) if "&" in candidate else data)
    except ValidationError as exc:
        errors = exc.errors()[:5]
        if all(not err["loc"] for err in errors):  # a rule of the whole reply (a metric's check)
            raise InvalidVerdict(
                f"is not a valid {model.__name__} verdict: {'; '.join(err['msg'] for err in errors)}"
            ) from None
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in errors
        )
        raise InvalidVerdict(f"does not match the {model.__name__} schema: {problems}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"not valid JSON ({name} is not a JSON number)")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
"""The decoder ``json.loads(text, parse_constant=_no_constant)`` would set up for every reply (every
cached judgment is read again on each hit), set up once: it keeps no state between texts."""


def _loads(text: str) -> Any:
    """``json.loads(text, parse_constant=_no_constant)``, with its check for a byte-order mark first."""
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _DECODER.decode(text)


def _unescaped(value: Any) -> Any:
    """Every string of a verdict with the data blocks' escaping undone: a statement the judge copied
    from the answer (``R&amp;D``) must match the answer's own text (``R&D``)."""
    if isinstance(value, str):
        return unescape_data(value)
    if isinstance(value, list):
        return [_unescaped(item) for item in value]
    if isinstance(value, dict):
        return {key: _unescaped(item) for key, item in value.items()}
    return value
