"""Render replies as the OpenAI Chat Completions / Embeddings / Models HTTP responses.

Shapes follow what the official `openai` SDK parses (`ChatCompletion`, `CreateEmbeddingResponse`,
`Model`) and the error envelope `{"error": {"message", "type", "param", "code"}}` that the SDK
unwraps into `BadRequestError.param` / `.code`. A chat request with `logprobs: true` answered by a
reply that scripts odds gets its content's tokens with `top_logprobs` alternatives (:mod:`.token_odds`).
"""

from __future__ import annotations

import base64
import json
import re
import struct
import time
from collections.abc import Sequence
from typing import Any

from .openai_strict import strict_refusal
from .replies import (
    EmbeddingReply,
    JsonReply,
    RefusalReply,
    RejectParamReply,
    Reply,
    StatusReply,
    TextReply,
    TruncatedReply,
)
from .token_odds import content_logprobs, value_offsets
from .wire import (
    Answer,
    ScriptMisuseError,
    collect_text,
    estimate_tokens,
    format_retry_after,
    json_answer,
    new_id,
)

_DEFAULT_ERRORS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "The request was invalid."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("invalid_request_error", None, "You are not allowed to use this resource."),
    404: (
        "invalid_request_error",
        "model_not_found",
        "The model does not exist or you do not have access to it.",
    ),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests."),
    500: (
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
    ),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


def error_answer(
    status: int,
    message: str,
    *,
    error_type: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    """An OpenAI error envelope."""
    payload = {"error": {"message": message, "type": error_type, "param": param, "code": code}}
    return json_answer(status, payload, _with_request_id(headers))


def status_answer(reply: StatusReply) -> Answer:
    """A scripted HTTP status with OpenAI's error body (or the scripted body)."""
    headers = dict(reply.headers)
    if reply.retry_after is not None:
        headers["retry-after"] = format_retry_after(reply.retry_after)
    if isinstance(reply.body, str):
        raw = reply.body.encode("utf-8")
        return Answer(reply.code, raw, _with_request_id(headers), "text/plain")
    if reply.body is not None:
        return json_answer(reply.code, reply.body, _with_request_id(headers))
    error_type, code, message = _DEFAULT_ERRORS.get(
        reply.code, _DEFAULT_ERRORS[500 if reply.code >= 500 else 400]
    )
    return error_answer(reply.code, message, error_type=error_type, code=code, headers=headers)


def reject_param_answer(body: dict[str, Any], reply: RejectParamReply) -> Answer:
    """400 exactly like a reasoning model refusing e.g. `temperature` or `max_tokens`."""
    name = reply.param
    if reply.code == "unsupported_value":
        value = json.dumps(body.get(name))
        message = (
            f"Unsupported value: '{name}' does not support {value} with this model. "
            "Only the default (1) value is supported."
        )
    else:
        message = f"Unsupported parameter: '{name}' is not supported with this model."
    return error_answer(400, message, param=name, code=reply.code)


def missing_field_answer(body: dict[str, Any], required: Sequence[str]) -> Answer | None:
    """The 400 the API sends when a required top-level field is absent, else None."""
    for name in required:
        if name not in body:
            message = f"Missing required parameter: '{name}'."
            return error_answer(400, message, param=name, code="missing_required_parameter")
    return None


SCHEMA_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
"""'response_format.json_schema.name': "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with
a maximum length of 64" (API reference)."""


def schema_refusal_answer(body: dict[str, Any]) -> Answer | None:
    """The 400 the API sends for a strict schema it does not take (:mod:`.openai_strict`), or for a
    response format name it does not take; None when every schema of the request is fine."""
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        name = spec.get("name")
        where = "response_format.json_schema.name"
        if not isinstance(name, str) or not SCHEMA_NAME.match(name):
            message = (
                f"Invalid '{where}': string does not match pattern. Expected a string that matches the "
                f"pattern '{SCHEMA_NAME.pattern}'."
            )
            return error_answer(400, message, param=where, code="invalid_value")
        if len(name) > 64:
            message = (
                f"Invalid '{where}': string too long. Expected a string with maximum length 64, but got "
                f"a string with length {len(name)} instead."
            )
            return error_answer(400, message, param=where, code="string_above_max_length")
        refusal = strict_refusal(spec.get("schema")) if spec.get("strict") is True else None
        if refusal is not None:
            message = refusal.message(f"response_format '{name}'")
            return error_answer(400, message, param="response_format", code="invalid_json_schema")
    for index, tool in enumerate(body.get("tools") or ()):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or function.get("strict") is not True:
            continue
        refusal = strict_refusal(function.get("parameters"))
        if refusal is not None:
            return error_answer(
                400,
                refusal.message(f"function '{function.get('name')}'"),
                param=f"tools[{index}].function.parameters",
                code="invalid_function_parameters",
            )
    return None


def forced_function(body: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """The function tool the request forces the model to call, and whether it was named.

    Named (`{"type": "function", "function": {"name": ...}}`) and `"required"` both force a call;
    the real API reports finish_reason "stop" for the first and "tool_calls" for the second.
    """
    functions = [
        tool["function"]
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        and tool.get("type") == "function"
        and isinstance(tool.get("function"), dict)
    ]
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        wanted = (choice.get("function") or {}).get("name")
        for function in functions:
            if function.get("name") == wanted:
                return function, True
        return None
    if choice == "required" and functions:
        return functions[0], False
    return None


def response_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks the answer to follow, if any."""
    forced = forced_function(body)
    if forced is not None:
        parameters = forced[0].get("parameters")
        return parameters if isinstance(parameters, dict) else {"type": "object"}
    response_format = body.get("response_format")
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, dict) else {}
    if response_format.get("type") == "json_object":
        return {"type": "object"}
    return None


def chat_completion_answer(body: dict[str, Any], reply: Reply, context_window: int | None = None) -> Answer:
    """A `chat.completion` object for content, refusal or truncation replies. With a
    ``context_window`` a longer prompt is read only in part, as Ollama cuts one to ``num_ctx`` from the
    front without an error: ``usage.prompt_tokens`` counts the tokens kept."""
    forced = forced_function(body)
    content: str | None
    refusal: str | None = None
    if isinstance(reply, JsonReply):
        content, finish_reason = json.dumps(reply.value), "stop"
    elif isinstance(reply, TextReply):
        content, finish_reason = reply.content, "stop"
    elif isinstance(reply, TruncatedReply):
        content, finish_reason = reply.content, "length"
    elif isinstance(reply, RefusalReply):
        content, refusal, finish_reason = None, reply.message, "stop"
    else:
        raise ScriptMisuseError(
            f"{type(reply).__name__} cannot answer POST /v1/chat/completions; "
            "script Reply.json/text/refusal/truncated/status for chat requests"
        )
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "refusal": refusal,
        "annotations": [],
    }
    if forced is not None and content is not None:
        function, named = forced
        message["content"] = None
        message["tool_calls"] = [
            {
                "id": new_id("call_"),
                "type": "function",
                "function": {"name": function.get("name", ""), "arguments": content},
            }
        ]
        if finish_reason == "stop" and not named:
            finish_reason = "tool_calls"
    completion_tokens = estimate_tokens(content or refusal or "")
    if finish_reason == "length":
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        if isinstance(limit, int) and limit > 0:
            completion_tokens = limit
    prompt_tokens = estimate_tokens(collect_text(body.get("messages")))
    if context_window is not None:
        prompt_tokens = min(prompt_tokens, context_window)
    n = body.get("n")
    count = n if isinstance(n, int) and 1 <= n <= 128 else 1
    logprobs = _logprobs(body, reply, message["content"])
    payload = {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model", "")),
        "choices": [
            {"index": i, "message": message, "logprobs": logprobs, "finish_reason": finish_reason}
            for i in range(count)
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens * count,
            "total_tokens": prompt_tokens + completion_tokens * count,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_fakellm",
    }
    return json_answer(200, payload, _with_request_id(None))


def _logprobs(body: dict[str, Any], reply: Reply, content: str | None) -> dict[str, Any] | None:
    """The choice's `logprobs` when the request asked for them and the reply scripted odds; None
    otherwise, as from a server that ignores the parameter (so a 4 MB reply stays cheap to serve)."""
    if body.get("logprobs") is not True or content is None:
        return None
    if not isinstance(reply, JsonReply) or not reply.odds or not isinstance(reply.value, dict):
        return None
    offsets = value_offsets(reply.value)
    odds_at = {offsets[key]: dict(choices) for key, choices in reply.odds.items()}
    top = body.get("top_logprobs")
    return {
        "content": content_logprobs(content, top if isinstance(top, int) else 0, odds_at),
        "refusal": None,
    }


def embedding_inputs(body: dict[str, Any]) -> list[str]:
    """The request's inputs as texts (token-id arrays become their space-joined ids)."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        if raw and all(isinstance(x, int) for x in raw):
            return [" ".join(str(x) for x in raw)]
        return [
            item if isinstance(item, str) else " ".join(str(x) for x in item)
            for item in raw
            if isinstance(item, (str, list))
        ]
    return []


def embeddings_answer(body: dict[str, Any], reply: Reply) -> Answer:
    """A `list` of `embedding` objects, as floats or base64 float32 as the request asks."""
    if not isinstance(reply, EmbeddingReply):
        raise ScriptMisuseError(
            f"{type(reply).__name__} cannot answer POST /v1/embeddings; "
            "script Reply.embedding(vectors) or Reply.status for embedding requests"
        )
    as_base64 = body.get("encoding_format") == "base64"
    data = [
        {
            "object": "embedding",
            "index": i,
            "embedding": _base64_floats(vector) if as_base64 else list(vector),
        }
        for i, vector in enumerate(reply.vectors)
    ]
    tokens = sum(estimate_tokens(text) for text in embedding_inputs(body))
    payload = {
        "object": "list",
        "data": data,
        "model": str(body.get("model", "")),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
    return json_answer(200, payload, _with_request_id(None))


def models_answer(model_ids: Sequence[str]) -> Answer:
    """`GET /v1/models` listing."""
    payload = {
        "object": "list",
        "data": [
            {"id": model_id, "object": "model", "created": 1_700_000_000, "owned_by": "fake-llm"}
            for model_id in model_ids
        ],
    }
    return json_answer(200, payload, _with_request_id(None))


def not_found_answer(method: str, path: str) -> Answer:
    """OpenAI's answer to an unknown route."""
    return error_answer(404, f"Invalid URL ({method} {path})")


def _base64_floats(vector: Sequence[float]) -> str:
    packed = struct.pack(f"<{len(vector)}f", *vector)
    return base64.b64encode(packed).decode("ascii")


def _with_request_id(headers: dict[str, str] | None) -> dict[str, str]:
    merged = {"x-request-id": new_id("req_")}
    merged.update(headers or {})
    return merged
