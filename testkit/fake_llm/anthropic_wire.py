"""Render replies as Anthropic Messages / Models HTTP responses.

Shapes follow what the official `anthropic` SDK parses (`Message` with `text` / `tool_use` content
blocks, `stop_reason`, `usage.input_tokens/output_tokens`) and the error envelope
`{"type": "error", "error": {"type", "message"}, "request_id"}` plus the `request-id` header.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .anthropic_schema import output_format_refusal, tool_refusal
from .replies import (
    JsonReply,
    RefusalReply,
    RejectParamReply,
    Reply,
    StatusReply,
    TextReply,
    TruncatedReply,
)
from .wire import (
    Answer,
    ScriptMisuseError,
    collect_text,
    estimate_tokens,
    format_retry_after,
    json_answer,
    new_id,
)

_DEFAULT_ERRORS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "The request was invalid."),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use this resource."),
    404: ("not_found_error", "Not found"),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "Number of requests has exceeded your rate limit."),
    500: ("api_error", "Internal server error"),
    504: ("timeout_error", "Request timed out"),
    529: ("overloaded_error", "Overloaded"),
}


def error_answer(
    status: int,
    message: str,
    *,
    error_type: str = "invalid_request_error",
    headers: dict[str, str] | None = None,
) -> Answer:
    """An Anthropic error envelope with matching `request-id` header."""
    request_id = new_id("req_")
    payload = {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }
    merged = {"request-id": request_id}
    merged.update(headers or {})
    return json_answer(status, payload, merged)


def status_answer(reply: StatusReply) -> Answer:
    """A scripted HTTP status with Anthropic's error body (or the scripted body)."""
    headers = dict(reply.headers)
    if reply.retry_after is not None:
        headers["retry-after"] = format_retry_after(reply.retry_after)
    if isinstance(reply.body, str):
        headers.setdefault("request-id", new_id("req_"))
        return Answer(reply.code, reply.body.encode("utf-8"), headers, "text/plain")
    if reply.body is not None:
        headers.setdefault("request-id", new_id("req_"))
        return json_answer(reply.code, reply.body, headers)
    fallback = _DEFAULT_ERRORS[500] if reply.code >= 500 else _DEFAULT_ERRORS[400]
    error_type, message = _DEFAULT_ERRORS.get(reply.code, fallback)
    return error_answer(reply.code, message, error_type=error_type, headers=headers)


def reject_param_answer(body: dict[str, Any], reply: RejectParamReply) -> Answer:
    """400 naming the rejected parameter in Anthropic's words."""
    name = reply.param
    if reply.code == "unsupported_value":
        message = f"`{name}` does not support {json.dumps(body.get(name))} with this model."
    else:
        message = f"{name}: Extra inputs are not permitted"
    return error_answer(400, message)


def missing_field_answer(body: dict[str, Any], required: Sequence[str]) -> Answer | None:
    """The 400 the API sends when a required top-level field is absent, else None."""
    for name in required:
        if name not in body:
            return error_answer(400, f"{name}: Field required")
    return None


def forced_tool(body: dict[str, Any]) -> dict[str, Any] | None:
    """The custom tool `tool_choice` forces (`{"type": "tool", "name"}` or `{"type": "any"}`)."""
    tools = [tool for tool in body.get("tools") or [] if isinstance(tool, dict) and "name" in tool]
    choice = body.get("tool_choice")
    if not isinstance(choice, dict):
        return None
    if choice.get("type") == "tool":
        return next((tool for tool in tools if tool["name"] == choice.get("name")), None)
    if choice.get("type") == "any" and tools:
        return tools[0]
    return None


def response_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a Messages request asks the answer to follow, if any.

    Either the forced tool's `input_schema`, or structured outputs via `output_config.format`
    (the beta spelling `output_format` is accepted too).
    """
    tool = forced_tool(body)
    if tool is not None:
        schema = tool.get("input_schema")
        return schema if isinstance(schema, dict) else {"type": "object"}
    output_config = body.get("output_config")
    formats = [
        output_config.get("format") if isinstance(output_config, dict) else None,
        body.get("output_format"),
    ]
    for fmt in formats:
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            schema = fmt.get("schema")
            return schema if isinstance(schema, dict) else {}
    return None


def unknown_tool_answer(body: dict[str, Any]) -> Answer | None:
    """The 400 for `tool_choice` naming a tool the request does not define, else None."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "tool" and forced_tool(body) is None:
        return error_answer(400, f"tool_choice: tool '{choice.get('name')}' not found in tools")
    return None


def schema_refusal_answer(body: dict[str, Any]) -> Answer | None:
    """The 400 the API sends for a tool whose name or ``input_schema`` it does not take, or for a
    structured-output schema outside the supported subset (:mod:`.anthropic_schema`); else None."""
    for index, tool in enumerate(body.get("tools") or ()):
        if isinstance(tool, dict) and tool.get("type") not in (None, "custom"):
            continue  # a server tool (web search, code execution ...): no input_schema of the caller's
        problem = tool_refusal(index, tool)
        if problem is not None:
            return error_answer(400, problem)
    output_config = body.get("output_config")
    for fmt in (
        output_config.get("format") if isinstance(output_config, dict) else None,
        body.get("output_format"),
    ):
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            problem = output_format_refusal(fmt.get("schema"))
            if problem is not None:
                return error_answer(400, problem)
    return None


def message_answer(body: dict[str, Any], reply: Reply) -> Answer:
    """A `message` object for content, refusal or truncation replies."""
    tool = forced_tool(body)
    content: list[dict[str, Any]]
    stop_details: dict[str, Any] | None = None
    if isinstance(reply, JsonReply) and tool is not None and isinstance(reply.value, dict):
        content = [{"type": "tool_use", "id": new_id("toolu_"), "name": tool["name"], "input": reply.value}]
        stop_reason, output_text = "tool_use", json.dumps(reply.value)
    elif isinstance(reply, JsonReply):
        output_text = json.dumps(reply.value)
        content, stop_reason = [_text_block(output_text)], "end_turn"
    elif isinstance(reply, TextReply):
        output_text = reply.content
        content, stop_reason = [_text_block(output_text)], "end_turn"
    elif isinstance(reply, TruncatedReply):
        output_text = reply.content
        content, stop_reason = [_text_block(output_text)], "max_tokens"
    elif isinstance(reply, RefusalReply):
        output_text = reply.message
        content = [_text_block(output_text)] if output_text else []
        stop_reason = "refusal"
        stop_details = {"type": "refusal", "category": None, "explanation": output_text or None}
    else:
        raise ScriptMisuseError(
            f"{type(reply).__name__} cannot answer POST /v1/messages; "
            "script Reply.json/text/refusal/truncated/status for Messages requests"
        )
    output_tokens = estimate_tokens(output_text)
    limit = body.get("max_tokens")
    if stop_reason == "max_tokens" and isinstance(limit, int) and limit > 0:
        output_tokens = limit
    prompt = collect_text(body.get("system")) + collect_text(body.get("messages"))
    input_tokens = estimate_tokens(prompt)
    payload = {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model", "")),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "stop_details": stop_details,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }
    return json_answer(200, payload, {"request-id": new_id("req_")})


def models_answer(model_ids: Sequence[str]) -> Answer:
    """`GET /v1/models` listing in Anthropic's paginated shape."""
    data = [
        {
            "type": "model",
            "id": model_id,
            "display_name": model_id,
            "created_at": "2025-01-01T00:00:00Z",
            "lifecycle": "active",
        }
        for model_id in model_ids
    ]
    payload = {
        "data": data,
        "has_more": False,
        "first_id": model_ids[0] if model_ids else None,
        "last_id": model_ids[-1] if model_ids else None,
    }
    return json_answer(200, payload, {"request-id": new_id("req_")})


def not_found_answer(method: str, path: str) -> Answer:
    """Anthropic's answer to an unknown route."""
    return error_answer(404, f"Not found: {method} {path}", error_type="not_found_error")


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "citations": None}
