"""Translating SDK exceptions into the engine's two kinds of fault: worth retrying, or final.

The OpenAI and Anthropic SDKs share an exception hierarchy by name (``RateLimitError``,
``APIStatusError``, ``APITimeoutError``, ``APIConnectionError``), so one translation serves both.
Messages never include credentials: they name the environment variable to check instead.
"""

from __future__ import annotations

import email.utils
import os
import socket
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ..errors import JudgeError, JudgeUnavailableError, sentence
from ..ground.redaction import public_url, redact
from .protocol import TransientFault

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})

URL_VARIABLES = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "ollama": "OLLAMA_HOST"}
"""The SDKs' own variable each provider's judges read their address from when no option gives one."""


def url_settings(judge: str) -> str:
    """Where the address of ``judge`` (its label) may have come from, for a hint to check it: the
    options, and the SDK's variable when it is set (a user who set no option must be told of it)."""
    variable = URL_VARIABLES.get(judge.partition(":")[0])
    if variable and os.environ.get(variable, "").strip():
        return f"--rag-judge-base-url, PROVIDER:MODEL@URL in --rag-judge, or ${variable}, which is set"
    return "--rag-judge-base-url, or PROVIDER:MODEL@URL in --rag-judge"


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
    for name in ("temperature", "max_tokens", "response_format", "seed", "tool_choice", "logprobs"):
        refused = ("unsupported", "not support", "invalid", "not permitted")  # the last is Anthropic's
        if name in message and any(word in message for word in refused):
            return name
    return None


SCHEMA_REFUSAL_CODES = frozenset({"invalid_json_schema", "invalid_function_parameters"})
"""OpenAI's error codes for a strict schema it does not take (a response format's, a tool's)."""
_REFUSING = ("invalid", "not supported", "unsupported", "not permitted", "cannot", "failed", "must")


def refused_schema(exc: Any, key_env: str) -> str | None:
    """The server's reason, redacted, when a 400 refused the request's schema rather than a parameter:
    OpenAI's strict mode (``invalid_json_schema``), a tool's parameters or ``input_schema``
    (Anthropic), a local server whose grammar cannot hold the schema (vLLM, llama.cpp). None for
    any other 400."""
    body = getattr(exc, "body", None)
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    code = inner.get("code") if isinstance(inner, Mapping) else None
    message = error_detail(exc)
    lowered = message.lower()
    if code in SCHEMA_REFUSAL_CODES or ("schema" in lowered and any(w in lowered for w in _REFUSING)):
        return redact(message, key_env)
    return None


def _refused_connection(exc: BaseException) -> str | None:
    """Why nothing could even be reached, when that is the cause: a refused connection or a host
    name that does not resolve. Such a judge cannot work this run; retrying only hides it."""
    seen: BaseException | None = exc
    for _ in range(8):  # the SDK wraps httpx, which wraps the socket error
        if seen is None:
            return None
        if isinstance(seen, ConnectionRefusedError) or "connection refused" in str(seen).lower():
            return "the connection was refused"
        if isinstance(seen, socket.gaierror) or "name or service not known" in str(seen).lower():
            return "the host name does not resolve"
        seen = seen.__cause__ or seen.__context__
    return None


def translate(
    exc: BaseException,
    sdk: ModuleType,
    *,
    judge: str,
    key_env: str,
    base_url: str,
    model_option: str | None = None,
) -> BaseException:
    """Map an SDK exception to TransientFault (retry) or JudgeError (final). Server text is redacted:
    a proxy that echoes the request's headers must not put the key into a message. ``model_option``
    says where the model was named, when not in --rag-judge (an embeddings model)."""
    if isinstance(exc, sdk.APITimeoutError):
        return TransientFault(f"request timed out ({judge})", kind="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        refused = _refused_connection(exc)
        if refused is not None:
            return JudgeUnavailableError(
                f"cannot reach {public_url(base_url)}: {refused}. Is the judge server running there? Check the "
                f"base URL ({url_settings(judge)})",
                judge=judge,
                kind="unavailable",
            )
        return TransientFault(f"connection failed ({judge}): {type(exc).__name__}", kind="connection")
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        detail = redact(error_detail(exc), key_env)
        if status in RETRYABLE_STATUS:
            headers = getattr(getattr(exc, "response", None), "headers", None)
            kind = "rate limit" if status == 429 else "server error"
            return TransientFault(
                f"HTTP {status} from {judge}: {detail}", retry_after_seconds(headers), kind=kind
            )
        if status in (401, 403):
            check = f"the judge rejected the credentials; check {key_env} (the key itself is never printed)"
            if not os.environ.get(key_env):  # a server of our own or a gateway, sent no key of the user's
                check = (
                    f"the server at {public_url(base_url)} wants an API key, and {key_env} is not set: "
                    "export it with the key that server takes"
                )
            return JudgeUnavailableError(
                f"HTTP {status}: {check}",
                judge=judge,
                kind="unavailable",
            )
        if status == 404:
            return not_found(judge, detail, base_url, model_option)
        return JudgeError(f"HTTP {status}: {detail}", judge=judge, kind="rejected")
    return JudgeError(f"{type(exc).__name__}: {redact(str(exc), key_env)}", judge=judge)


def not_found(
    judge: str, detail: str, base_url: str, model_option: str | None = None
) -> JudgeUnavailableError:
    """A 404 to a judgment request: the server has no such model (or no such API at that address).
    Every later request would get the same answer, so the judge is unavailable for the run, and the
    message names the model and the two ways to put it right."""
    provider, _, model = judge.partition(":")
    address = public_url(base_url)
    if provider == "anthropic" and base_url.rstrip("/").endswith("/v1"):
        # an OpenAI-style address: the request went to .../v1/v1/messages
        return JudgeUnavailableError(
            f"HTTP 404 from {address}: {sentence(detail)} The base URL ends in /v1, but the Anthropic "
            f"SDK adds /v1 itself: give the address without the /v1 ({url_settings(judge)}). "
            f"Else check the model name {model!r} in --rag-judge",
            judge=judge,
            kind="unavailable",
        )
    listing = f"{address}/v1/models" if provider == "anthropic" else f"{address}/models"
    named = model_option or f"as {provider}:MODEL in --rag-judge"
    return JudgeUnavailableError(
        f"the model {model!r} was not found at {address} (HTTP 404: {detail.rstrip().rstrip('.')}). Give the "
        f"name of a model this server serves {named} ({listing} lists them); "
        f"if the name is right, check the base URL ({url_settings(judge)})",
        judge=judge,
        kind="unavailable",
    )


def unreadable(judge: str, what: str, raw: object, key_env: str) -> TransientFault:
    """A reply the SDK could not read as the API's answer (an HTML error page from a proxy, a body
    that is not JSON or breaks off): worth one more try, and counted as unreadable."""
    text = raw if isinstance(raw, str) else repr(raw)
    return TransientFault(
        f"{judge} sent a reply that is not the API's answer: {what}",
        kind="unreadable",
        raw=redact(text, key_env),
    )


def missing_key(judge: str, key_env: str, *, base_url_hint: bool) -> JudgeUnavailableError:
    """The judge needs an API key that is not set: it cannot work in this run."""
    ways = "Export it, "
    if base_url_hint:
        ways += "point --rag-judge-base-url at a compatible server, "
    return JudgeUnavailableError(
        f"{key_env} is not set, so {judge} cannot be called. {ways}replay a recorded store with "
        "--rag-cache=replay, or use the offline judge (--rag-judge=local)",
        judge=judge,
        kind="unavailable",
        sent=False,
    )
