"""Judges behind Anthropic's Messages API.

Structured output goes through a forced tool call: the verdict schema is the tool's input schema and
``tool_choice`` names the tool, so the reply is a ``tool_use`` block whose input is the verdict. A
``refusal`` stop reason or a reply cut at ``max_tokens`` is reported as such, never parsed into a score.
A 400 that refuses the tool's ``input_schema`` makes that schema alone go without the tool (the
prompt's own JSON rule), remembered per schema and said in the summary with the API's reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...errors import JudgeError
from ..adapting import send_adapting
from ..clients import LoopClients, prepare_clients
from ..faults import missing_key
from ..openai.server import api_key_for
from ..protocol import JudgeOptions, JudgeReply, JudgeSpec, SchemaFallback
from ..request import JudgeRequest
from ..schema import provider_schema_json

ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com"
TOOL_NAME = "submit_verdict"


class AnthropicJudge:
    offline = False
    cacheable = True

    prepare = prepare_clients  # its one-off set-up: the SDK's import and client

    def __init__(
        self,
        spec: JudgeSpec,
        *,
        timeout_s: float = JudgeOptions.timeout_s,
        key_env: str = "ANTHROPIC_API_KEY",
    ) -> None:
        if not spec.model:
            raise JudgeError("judge spec 'anthropic' has no model; write anthropic:MODEL", judge=spec.label)
        self.spec = spec
        self.timeout_s = timeout_s
        self.key_env = key_env
        # ANTHROPIC_BASE_URL is the SDK's own convention (gateways, proxies); the explicit client
        # argument below would otherwise override it.
        base_url = spec.base_url or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_DEFAULT_BASE_URL
        self.base_url = base_url.rstrip("/")
        self.clients: LoopClients[Any] = LoopClients(self._new_client)
        self._drop_temperature = False
        self._refused_schemas: dict[str, str] = {}  # schema JSON -> the API's words when it refused it

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "anthropic", "model": self.spec.model, "base_url": self.base_url}

    def _new_client(self) -> Any:
        import anthropic

        key = api_key_for(self.key_env, self.base_url, ANTHROPIC_DEFAULT_BASE_URL)
        if key is None:
            raise missing_key(self.spec.label, self.key_env, base_url_hint=True)
        return anthropic.AsyncAnthropic(
            api_key=key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0
        )

    def _payload(self, request: JudgeRequest) -> dict[str, Any]:
        """The arguments of ``messages.create`` for ``request``."""
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        turns = [{"role": m.role, "content": m.content} for m in request.messages if m.role != "system"]
        payload: dict[str, Any] = {
            "model": self.spec.model,
            "max_tokens": request.sampling.max_tokens,
            "system": system,
            "messages": turns,
        }
        if self._fallback(request) is None:
            payload["tools"] = [
                {
                    "name": TOOL_NAME,
                    "description": "Record the verdict in the required structure.",
                    "input_schema": request.response_schema(),
                }
            ]
            payload["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
        if request.sampling.temperature is not None and not self._drop_temperature:
            # Sent as extra body: recent SDK releases no longer take ``temperature`` as an argument.
            payload["extra_body"] = {"temperature": request.sampling.temperature}
        return payload

    def request_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The body of the Messages request for ``request`` (a batch request's ``params`` are the same)."""
        payload = self._payload(request)
        return {**{k: v for k, v in payload.items() if k != "extra_body"}, **payload.get("extra_body", {})}

    def _fallback(self, request: JudgeRequest) -> SchemaFallback | None:
        """Why ``request`` goes without its tool, when the API refused the tool's schema."""
        reason = self._refused_schemas.get(provider_schema_json(request.response_model))
        return None if reason is None else SchemaFallback(request.schema_name, reason)

    def fall_back(self, request: JudgeRequest, reason: str) -> bool:
        """The API refused ``request``'s schema as a tool's input schema: send this schema (only)
        without the tool from now on; False when it went without one already."""
        key = provider_schema_json(request.response_model)
        if key in self._refused_schemas:
            return False
        self._refused_schemas[key] = reason
        return True

    def adapt(self, param: str | None, reason: str = "") -> bool:
        """Stop sending a parameter the model rejected; False when there is nothing left to change."""
        if param == "temperature" and not self._drop_temperature:
            self._drop_temperature = True
            return True
        return False

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        import anthropic
        from anthropic.types import Message

        client = self.clients.get()
        response = await send_adapting(
            lambda: client.messages.create(**self._payload(request)),
            anthropic,
            "AnthropicError",
            judge=self,
            expect=Message,
            tries=3,  # temperature is the one parameter it may drop; a refused schema, the tool
            fall_back=lambda reason: self.fall_back(request, reason),
        )
        reply = self.reply_of(response)
        fallback = self._fallback(request)
        return reply if fallback is None else replace(reply, schema_fallback=fallback)

    def reply_of(self, response: Any) -> JudgeReply:
        """The verdict in a Messages response (a live one, or one result of a message batch)."""
        text = ""
        texts: list[str] = []
        for part in response.content:
            if part.type == "tool_use":
                text = json.dumps(part.input, ensure_ascii=False)
                break
            if part.type == "text":
                texts.append(part.text)
        if not text:
            text = "".join(texts)
        stop = getattr(response, "stop_reason", None)
        usage = response.usage
        return JudgeReply(
            text=text,
            input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            model=str(response.model or self.spec.model),
            truncated=stop == "max_tokens",
            refusal=("".join(texts) or "refused") if stop == "refusal" else None,
        )

    async def aclose(self) -> None:
        await self.clients.aclose()
