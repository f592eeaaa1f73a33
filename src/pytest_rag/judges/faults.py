"""Translating SDK exceptions into the engine's two kinds of fault: worth retrying, or final.

The OpenAI and Anthropic SDKs share an exception hierarchy by name (``RateLimitError``,
``APIStatusError``, ``APITimeoutError``, ``APIConnectionError``), so one translation serves both.
Messages never include credentials: they name the environment variable to check instead.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ..errors import JudgeError
from ..redaction import redact
from .protocol import TransientFault

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


def retry_after_seconds(headers: Mapping[str, str] | Any) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``retry-after`` as seconds or a date)."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            parsed = email.utils.parsedate_to_datetime(value)
            return max(0.0, parsed.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def error_detail(exc: Any) -> str:
    """The server's own error message, if the body has one; otherwise the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])
    return str(exc)


def rejected_param(exc: Any) -> str | None:
    """Which request parameter a 400 rejected, when the server says so."""
    body = getattr(exc, "body", None)
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    if isinstance(inner, Mapping) and isinstance(inner.get("param"), str):
        return str(inner["param"])
    message = error_detail(exc).lower()
    for name in ("temperature", "max_tokens", "response_format", "seed", "tool_choice"):
        refused = ("unsupported", "not support", "invalid", "not permitted")  # the last is Anthropic's
        if name in message and any(word in message for word in refused):
            return name
    return None


def translate(exc: BaseException, sdk: ModuleType, *, judge: str, key_env: str) -> BaseException:
    """Map an SDK exception to TransientFault (retry) or JudgeError (final). Server text is redacted:
    a proxy that echoes the request's headers must not put the key into a message."""
    if isinstance(exc, sdk.APITimeoutError):
        return TransientFault(f"request timed out ({judge})")
    if isinstance(exc, sdk.APIConnectionError):
        return TransientFault(f"connection failed ({judge}): {type(exc).__name__}")
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        detail = redact(error_detail(exc), key_env)
        if status in RETRYABLE_STATUS:
            headers = getattr(getattr(exc, "response", None), "headers", None)
            return TransientFault(f"HTTP {status} from {judge}: {detail}", retry_after_seconds(headers))
        if status in (401, 403):
            return JudgeError(
                f"HTTP {status}: the judge rejected the credentials; check {key_env} "
                "(the key itself is never printed)",
                judge=judge,
            )
        if status == 404:
            return JudgeError(
                f"HTTP 404: {detail}. Check the model name in --rag-judge and the base URL",
                judge=judge,
            )
        return JudgeError(f"HTTP {status}: {detail}", judge=judge)
    return JudgeError(f"{type(exc).__name__}: {redact(str(exc), key_env)}", judge=judge)
