"""Judges behind the OpenAI Chat Completions API: OpenAI itself and every compatible server
(vLLM, llama.cpp, LM Studio, Azure-style gateways, Ollama's ``/v1``).

Structured output uses the native ``json_schema`` response format with ``strict: true``. Servers and
models differ in what they accept, so a 400 that names a parameter is answered by adapting once and
remembering it for that model: ``temperature`` is dropped (reasoning models), ``max_tokens`` becomes
``max_completion_tokens``, ``response_format`` falls back to ``json_object`` and then to prompt-only
JSON (a server without structured output), and ``logprobs`` is dropped (reasoning models, servers
that have none). A 400 that refuses one schema (OpenAI's strict mode, a local server's grammar) makes
only that schema fall back the same way, remembered per schema: every other request keeps its strict
schema. Each reply asked for without its schema says so (:class:`~..protocol.SchemaFallback`), and
the summary warns once per schema with the server's reason.

A server that cuts a prompt longer than its context window without an error (Ollama's OpenAI
endpoint, which cannot be given ``num_ctx`` per request, keeps the end of the prompt and drops the
instructions first) is caught by its own usage: when it reports reading far fewer prompt tokens than
the request holds (:data:`CUT_PROMPT_SHARE` of the estimate, for prompts of
:data:`CUT_PROMPT_FLOOR` tokens or more), the reply is a judge error naming ``num_ctx`` and how to
raise it, never a verdict.

Where the verdict has a grade (an integer ``score`` on a small scale), the request asks for the
tokens' log-probabilities with the :data:`TOP_LOGPROBS` most likely alternatives at each token, so
the engine can tell how sure the judge was of its grade. They cost no tokens; they make the
response larger. They are not part of the cache key: they change what is kept with the reply, not
the reply.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...errors import JudgeError
from ..adapting import send_adapting
from ..clients import LoopClients, prepare_clients
from ..faults import missing_key, unreadable
from ..protocol import JudgeOptions, JudgeReply, JudgeSpec, SchemaFallback, TokenLogprob
from ..request import JudgeRequest
from ..schema import provider_schema_json, verdict_grades
from .embeddings import DEFAULT_OPENAI_EMBEDDING_MODEL, OpenAIEmbedder
from .server import OLLAMA_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL, api_key_for

TOP_LOGPROBS = 10
"""Alternatives asked for at each token of a graded reply: room for every grade of a 0-5 scale and
for the spellings of one grade that tokenisers tell apart (``4`` and `` 4``); the API allows 20."""

CUT_PROMPT_SHARE = 0.6
"""A prompt counts as cut when the server read fewer tokens than this share of the request's own
estimate (a quarter of the messages' characters, the schema left out: a local server turns it into a
grammar). English prose runs 4 to 4.5 characters a token, code and other scripts fewer, so a prompt read
whole comes back at 0.8 of the estimate or more."""
CUT_PROMPT_FLOOR = 1000
"""Prompts estimated shorter than this are not checked: no server's context window is that small
(Ollama's smallest default was 2,048 tokens), and the framing of short prompts weighs on the ratio."""

_FORMATS = ("json_schema", "json_object", "none")
"""How a response format falls back when refused, one step at a time: a strict schema, then JSON
mode, then none (the prompt's own JSON rule)."""
FORMAT_STEPS = dict(itertools.pairwise(_FORMATS))
_NOT_IN_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def schema_name(request: JudgeRequest) -> str:
    """The verdict model's name as ``json_schema.name`` may carry it (letters, digits, ``_`` and ``-``,
    at most 64 characters): a plugin's model may be named otherwise."""
    return _NOT_IN_NAME.sub("_", request.schema_name)[:64] or "verdict"


class OpenAIChatJudge:
    """``openai:MODEL`` (with an optional base URL) and ``ollama:MODEL``."""

    offline = False
    cacheable = True

    prepare = prepare_clients  # its one-off set-up: the SDK's import and client

    def __init__(
        self, spec: JudgeSpec, *, timeout_s: float = JudgeOptions.timeout_s, key_env: str = "OPENAI_API_KEY"
    ) -> None:
        if not spec.model:
            raise JudgeError(
                f"judge spec {spec.label!r} has no model; write {spec.provider}:MODEL",
                judge=spec.label,
            )
        self.spec = spec
        self.timeout_s = timeout_s
        self.key_env = key_env
        if spec.provider == "ollama":
            default = OLLAMA_DEFAULT_BASE_URL
        else:  # the SDK's own variable, read here so that it reaches OpenAI judges only
            default = os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL
        self.base_url = (spec.base_url or default).rstrip("/")
        self.clients: LoopClients[Any] = LoopClients(self._new_client)  # shared with its embedder
        self._adapted: dict[str, str] = {}  # parameter -> how it is sent now ("drop", "json_object", ...)
        self._refused_format = ""  # the server's words when it refused structured output for every schema
        # schema JSON -> (how that schema's format is sent now, the server's words when it refused it)
        self._schema_formats: dict[str, tuple[str, str]] = {}

    def identity(self) -> Mapping[str, Any]:
        return {"provider": self.spec.provider, "model": self.spec.model, "base_url": self.base_url}

    def _api_key(self) -> str:
        key = api_key_for(self.key_env, self.base_url)
        if key is None:
            raise missing_key(self.spec.label, self.key_env, base_url_hint=True)
        return key

    def _new_client(self) -> Any:
        import openai

        return openai.AsyncOpenAI(
            api_key=self._api_key(), base_url=self.base_url, timeout=self.timeout_s, max_retries=0
        )

    def request_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The body of the chat completion request for ``request`` (a batch line carries the same)."""
        payload: dict[str, Any] = {
            "model": self.spec.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        sampling = request.sampling
        if sampling.temperature is not None and self._adapted.get("temperature") != "drop":
            payload["temperature"] = sampling.temperature
        tokens_param = (
            "max_completion_tokens" if self._adapted.get("max_tokens") == "renamed" else "max_tokens"
        )
        payload[tokens_param] = sampling.max_tokens
        if sampling.seed is not None and self._adapted.get("seed") != "drop":
            payload["seed"] = sampling.seed
        format_mode = self._format(request)[0]
        if format_mode == "json_schema":
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(request),
                    "schema": request.response_schema(),
                    "strict": True,
                },
            }
        elif format_mode == "json_object":
            payload["response_format"] = {"type": "json_object"}
        if self._adapted.get("logprobs") != "drop" and verdict_grades(request.response_model) is not None:
            payload["logprobs"] = True
            payload["top_logprobs"] = TOP_LOGPROBS
        return payload

    def _format(self, request: JudgeRequest) -> tuple[str, SchemaFallback | None]:
        """How ``request``'s response format is sent ("json_schema", "json_object", "none"), and why it
        is not the strict schema when it is not: its own schema was refused, or every schema was."""
        judge_wide = self._adapted.get("response_format", "json_schema")
        own, reason = self._schema_formats.get(
            provider_schema_json(request.response_model), ("json_schema", "")
        )
        if _FORMATS.index(own) > _FORMATS.index(judge_wide):  # the further step down is the one sent
            return own, SchemaFallback(request.schema_name, reason)
        if judge_wide != "json_schema":
            return judge_wide, SchemaFallback(None, self._refused_format)
        return "json_schema", None

    def fall_back(self, request: JudgeRequest, reason: str) -> bool:
        """The server refused ``request``'s schema: ask for this schema (only) one step further down,
        JSON mode and then the prompt alone; False when there is no step left."""
        following = FORMAT_STEPS.get(self._format(request)[0])
        if following is None:
            return False
        self._schema_formats[provider_schema_json(request.response_model)] = (following, reason)
        return True

    def adapt(self, param: str | None, reason: str = "") -> bool:
        """Change how a rejected parameter is sent; False when there is nothing left to try."""
        if param in ("temperature", "seed") and self._adapted.get(param) != "drop":
            self._adapted[param] = "drop"
            return True
        if param in ("logprobs", "top_logprobs") and self._adapted.get("logprobs") != "drop":
            self._adapted["logprobs"] = "drop"  # the two go together: one without the other is refused
            return True
        if param == "max_tokens" and self._adapted.get("max_tokens") != "renamed":
            self._adapted["max_tokens"] = "renamed"
            return True
        if param in ("response_format", "response_format.json_schema", "strict"):
            current = self._adapted.get("response_format", "json_schema")
            following = FORMAT_STEPS.get(current)
            if following:
                self._adapted["response_format"] = following
                self._refused_format = reason or f"the server refused the parameter {param}"
                return True
        return False

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        import openai
        from openai.types.chat import ChatCompletion

        client = self.clients.get()
        response = await send_adapting(
            lambda: client.chat.completions.create(**self.request_body(request)),
            openai,
            "OpenAIError",
            judge=self,
            expect=ChatCompletion,
            tries=5,  # at most one adaptation per parameter, and the schema's own two steps
            fall_back=lambda reason: self.fall_back(request, reason),
        )
        reply = self.reply_of(response)
        details = getattr(response.usage, "prompt_tokens_details", None)
        self._check_prompt_read(request, reply, int(getattr(details, "cached_tokens", 0) or 0))
        fallback = self._format(request)[1]
        return reply if fallback is None else replace(reply, schema_fallback=fallback)

    def _check_prompt_read(self, request: JudgeRequest, reply: JudgeReply, cached: int) -> None:
        """Raise a judge error when the server's usage says it read only part of the prompt.

        Tokens the server says it had cached count as read (some servers leave them out of
        ``prompt_tokens``). A repair, or a repeat of a request, is not checked: its prompt begins with
        one the server just read, which a server may count as cached without saying so; the first
        request of the same prompt was checked."""
        if request.is_repair or request.repeat_index > 0:
            return
        estimate = request.estimated_prompt_tokens(with_schema=False)
        read = reply.input_tokens + cached
        if not reply.input_tokens or estimate < CUT_PROMPT_FLOOR or read >= CUT_PROMPT_SHARE * estimate:
            return
        raise JudgeError(
            f"the server read {read:,} prompt tokens of a prompt of about {estimate:,}: it cut the prompt to "
            "fit its context window (num_ctx), dropping the instructions first, so its reply is no verdict. "
            "Give the model a larger context window: for Ollama, start the server with "
            "OLLAMA_CONTEXT_LENGTH=16384 (or more) in its environment, or make a model with "
            "'PARAMETER num_ctx 16384' in its Modelfile (ollama create NAME -f Modelfile) and judge with "
            "it; for a llama.cpp server, start it with a larger --ctx-size",
            judge=self.spec.label,
            metric=request.metric,
            raw_reply=reply.text,
            kind="prompt cut",
        )

    def reply_of(self, response: Any) -> JudgeReply:
        """The reply in a chat completion (a live response, or one line of a batch's results)."""
        label, key_env = self.spec.label, self.key_env
        if not response.choices:
            raise unreadable(label, "a chat completion without choices", response.model_dump_json(), key_env)
        choice = response.choices[0]
        message = choice.message
        usage = response.usage
        return JudgeReply(
            text=message.content or "",
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            model=str(response.model or self.spec.model),
            truncated=choice.finish_reason == "length",
            refusal=getattr(message, "refusal", None) or None,
            logprobs=_token_logprobs(getattr(choice, "logprobs", None)),
        )

    def embedder(self, model: str | None = None) -> OpenAIEmbedder | None:
        """The embeddings of this judge's server, with its key and SDK client: ``model``, or
        ``text-embedding-3-small``. None for ``openai:MODEL``, which names OpenAI itself rather than
        this judge's server (the engine then embeds there)."""
        if model is not None and model.startswith("openai:"):
            return None
        return OpenAIEmbedder(
            model or DEFAULT_OPENAI_EMBEDDING_MODEL,
            base_url=self.base_url,
            key_env=self.key_env,
            timeout_s=self.timeout_s,
            clients=self.clients,
        )

    async def aclose(self) -> None:
        await self.clients.aclose()


def _token_logprobs(logprobs: Any) -> tuple[TokenLogprob, ...] | None:
    """The content tokens of a choice's ``logprobs``, when the server sent them."""
    content = getattr(logprobs, "content", None)
    if not content:
        return None
    return tuple(
        TokenLogprob(
            token=item.token,
            size=len(item.bytes) if item.bytes is not None else len(item.token.encode("utf-8")),
            logprob=float(item.logprob),
            top=tuple(
                (alternative.token, float(alternative.logprob)) for alternative in item.top_logprobs or ()
            ),
        )
        for item in content
    )
