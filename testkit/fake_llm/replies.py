"""What the fake LLM server should answer next, independent of which API asked.

A test scripts behaviour ("rate-limit once, then answer this JSON") without caring whether the
client speaks the OpenAI or the Anthropic protocol; the wire modules turn each reply into the exact
bytes the real API would send. Every constructor validates eagerly, so a bad script fails in the
test that wrote it rather than as a puzzling 500 from the server thread.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

RejectionCode = Literal["unsupported_parameter", "unsupported_value"]


class Reply:
    """Base of all scripted answers; build them with the static constructors below."""

    @staticmethod
    def json(obj: object, *, odds: Mapping[str, Mapping[int, float]] | None = None) -> JsonReply:
        """The model answers with exactly this JSON (content, or the forced tool's input).

        ``odds`` says how likely the model found each integer it could have written as the value of
        a top-level key, e.g. ``{"score": {4: 0.6, 5: 0.3, 3: 0.1}}`` (the value in ``obj`` among
        them): an OpenAI chat request asking for ``logprobs`` gets them as that token's
        ``top_logprobs``; every other token is certain. A reply without ``odds`` comes back without
        log-probabilities, as from a server that ignores the parameter.
        """
        try:
            encoded = json.dumps(obj, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"Reply.json needs a JSON-serialisable value without NaN/inf ({exc}); "
                "pass plain dicts/lists/str/int/float/bool/None, or use Reply.text for raw output"
            ) from exc
        value = json.loads(encoded)
        return JsonReply(value=value, odds=_checked_odds(value, odds or {}))

    @staticmethod
    def text(s: str) -> TextReply:
        """The model answers with this raw text, e.g. malformed or cut-off JSON."""
        _require_str("Reply.text", s)
        return TextReply(content=s)

    @staticmethod
    def status(
        code: int,
        retry_after: float | str | None = None,
        body: Mapping[str, object] | str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> StatusReply:
        """An HTTP error (429, 500, 503, 400 ...) with that API's error JSON unless `body` is given.

        `retry_after` becomes the Retry-After header (seconds, or an HTTP date string); extra
        `headers` such as ``retry-after-ms`` or ``x-should-retry`` are sent verbatim.
        """
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"Reply.status code must be an int HTTP status, got {code!r}")
        lowest = 200 if body is not None else 400
        if not lowest <= code <= 599:
            raise ValueError(
                f"Reply.status({code}) is not an error status; use 400-599, or pass body= to "
                "send a custom 2xx/3xx body, or use Reply.json/Reply.text for a normal answer"
            )
        if retry_after is not None and not isinstance(retry_after, str):
            valid = not isinstance(retry_after, bool) and math.isfinite(retry_after)
            if not valid or retry_after < 0:
                raise ValueError(
                    f"retry_after must be a finite number of seconds >= 0 or an HTTP date "
                    f"string, got {retry_after!r}"
                )
        checked_body: Mapping[str, object] | str | None = body
        if body is not None and not isinstance(body, str):
            checked_body = cast("dict[str, object]", Reply.json(dict(body)).value)
        return StatusReply(
            code=code,
            retry_after=retry_after,
            body=checked_body,
            headers=dict(headers or {}),
        )

    @staticmethod
    def delay(seconds: float, then: Reply) -> DelayReply:
        """Wait `seconds` (other requests keep being served), then answer `then`."""
        if isinstance(seconds, bool) or not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"Reply.delay needs a finite number of seconds >= 0, got {seconds!r}")
        if not isinstance(then, Reply):
            raise TypeError(
                f"Reply.delay(then=...) must be another Reply, got {type(then).__name__}; "
                "e.g. Reply.delay(5, Reply.json({...}))"
            )
        return DelayReply(seconds=float(seconds), then=then)

    @staticmethod
    def refusal(text: str = "I can't help with that.") -> RefusalReply:
        """The model declines: OpenAI `message.refusal`, Anthropic `stop_reason: refusal`."""
        _require_str("Reply.refusal", text)
        return RefusalReply(message=text)

    @staticmethod
    def truncated(text: str) -> TruncatedReply:
        """The model ran out of tokens mid-answer: finish_reason length / stop_reason max_tokens."""
        _require_str("Reply.truncated", text)
        return TruncatedReply(content=text)

    @staticmethod
    def raw(body: str, status: int = 200, content_type: str = "text/html") -> RawReply:
        """These exact bytes with this status and content type, whatever the API: what a proxy's error
        page or a broken gateway sends (a 200 whose body is HTML, truncated JSON, nothing at all)."""
        _require_str("Reply.raw", body)
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            raise ValueError(f"Reply.raw status must be an HTTP status code, got {status!r}")
        return RawReply(body=body, code=status, content_type=content_type)

    @staticmethod
    def cut(body: str, content_type: str = "application/json") -> CutReply:
        """Announce a longer body, send only ``body``, then reset the connection: a reply that
        dies mid-body."""
        _require_str("Reply.cut", body)
        return CutReply(body=body, content_type=content_type)

    @staticmethod
    def reset() -> ResetReply:
        """Drop the TCP connection (RST) without sending any response bytes."""
        return ResetReply()

    @staticmethod
    def reject_param(name: str, code: RejectionCode = "unsupported_parameter") -> RejectParamReply:
        """A 400 naming `name` the way OpenAI rejects a parameter a model does not take.

        ``unsupported_parameter`` is what reasoning models say about e.g. ``max_tokens``;
        ``unsupported_value`` is what they say about ``temperature=0``.
        """
        _require_str("Reply.reject_param", name)
        if not name:
            raise ValueError("Reply.reject_param needs the parameter name, e.g. 'temperature'")
        if code not in ("unsupported_parameter", "unsupported_value"):
            raise ValueError(
                f"Reply.reject_param code must be 'unsupported_parameter' or "
                f"'unsupported_value', got {code!r}"
            )
        return RejectParamReply(param=name, code=code)

    @staticmethod
    def embedding(vectors: Sequence[Sequence[float]]) -> EmbeddingReply:
        """Answer an embeddings request with these vectors, one per input, in order."""
        rows: list[tuple[float, ...]] = []
        for i, vector in enumerate(vectors):
            row = tuple(float(x) for x in vector)
            if not row:
                raise ValueError(f"Reply.embedding vector {i} is empty; give at least one number")
            if not all(math.isfinite(x) for x in row):
                raise ValueError(f"Reply.embedding vector {i} holds NaN or inf; use finite floats")
            rows.append(row)
        if not rows:
            raise ValueError("Reply.embedding needs at least one vector (one per input text)")
        return EmbeddingReply(vectors=tuple(rows))


@dataclass(frozen=True)
class JsonReply(Reply):
    """The model's output is this JSON value; ``odds`` maps a top-level key to the probabilities of
    the tokens its value could have been (as the token texts)."""

    value: object
    odds: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class TextReply(Reply):
    """The model's output is this raw text."""

    content: str


@dataclass(frozen=True)
class StatusReply(Reply):
    """An HTTP error response (or a custom non-error body)."""

    code: int
    retry_after: float | str | None = None
    body: Mapping[str, object] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DelayReply(Reply):
    """Sleep, then answer with another reply."""

    seconds: float
    then: Reply


@dataclass(frozen=True)
class RefusalReply(Reply):
    """The model refuses to answer."""

    message: str


@dataclass(frozen=True)
class TruncatedReply(Reply):
    """The model stopped at its token limit."""

    content: str


@dataclass(frozen=True)
class RawReply(Reply):
    """Verbatim bytes, status and content type (see :meth:`Reply.raw`)."""

    body: str
    code: int = 200
    content_type: str = "text/html"


@dataclass(frozen=True)
class CutReply(Reply):
    """A body that stops short of its announced length (see :meth:`Reply.cut`)."""

    body: str
    content_type: str = "application/json"


@dataclass(frozen=True)
class ResetReply(Reply):
    """Close the connection without a response."""


@dataclass(frozen=True)
class RejectParamReply(Reply):
    """A 400 rejecting one request parameter."""

    param: str
    code: RejectionCode = "unsupported_parameter"


@dataclass(frozen=True)
class EmbeddingReply(Reply):
    """Vectors for an embeddings request."""

    vectors: tuple[tuple[float, ...], ...]


def _checked_odds(value: object, odds: Mapping[str, Mapping[int, float]]) -> dict[str, dict[str, float]]:
    """The scripted odds with each integer as the token that writes it, checked against the value."""
    checked: dict[str, dict[str, float]] = {}
    for key, choices in odds.items():
        if not isinstance(value, dict) or key not in value:
            raise ValueError(f"Reply.json odds name {key!r}, which is not a top-level key of the JSON")
        chosen = value[key]
        if isinstance(chosen, bool) or not isinstance(chosen, int) or chosen not in choices:
            raise ValueError(
                f"Reply.json odds for {key!r} must give the probability of its value {chosen!r} "
                f"(an integer), among {sorted(choices)}"
            )
        if any(isinstance(v, bool) or not isinstance(v, int) for v in choices):
            raise ValueError(f"Reply.json odds for {key!r} are keyed by the integers it could be")
        if any(not 0 < p <= 1 for p in choices.values()) or sum(choices.values()) > 1 + 1e-9:
            raise ValueError(
                f"Reply.json odds for {key!r} must be probabilities in (0, 1] summing to at most 1"
            )
        checked[key] = {str(v): float(p) for v, p in choices.items()}
    return checked


def _require_str(where: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{where} needs a str, got {type(value).__name__}")
