"""What a metric asks a judge, and the cache key that identifies the answer.

A :class:`JudgeRequest` is everything that can change a judge's reply: the rendered messages, the
schema the reply must follow, the sampling parameters, the template that produced the messages (id and
version) and the repeat index. The cache key hashes all of it together with the judge's identity
(provider, model, base URL), so one model is never served another's answer and a changed prompt
invalidates exactly its own entries.

``task`` carries the same inputs as plain data for judges that do not read prose (the offline judge):
they compute the verdict from the inputs directly and still answer in the request's schema.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from json.encoder import encode_basestring_ascii
from typing import Any

from pydantic import BaseModel

KEY_FORMAT_VERSION = "1"
REPAIR_SUFFIX = "+repair"
"""Ends the template id of a repair request (an invalid reply, and the fix asked for)."""


@dataclass(frozen=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str

    @cached_property
    def key_json(self) -> str:
        """``[role, content]`` as the cache key writes it, once per message: a template's system
        message, shared by every request of its metric, is escaped once, not on every request."""
        return f"[{_json_text(self.role)},{_json_text(self.content)}]"


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters; temperature 0 by default so that reruns agree as far as the model allows."""

    temperature: float | None = 0.0
    max_tokens: int = 1024
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}

    @cached_property
    def key_json(self) -> str:
        """:meth:`as_dict` as the cache key writes it, written once per instance (the fields are
        frozen; most requests share the default instance)."""
        return _json_object(self.as_dict())


@lru_cache(maxsize=32)
def sampling_for(max_tokens: int) -> Sampling:
    """The default sampling with ``max_tokens``, one shared instance per limit: its key JSON is then
    written once per limit, not once per request (every judge request carries one)."""
    return Sampling(max_tokens=max_tokens)


@dataclass(frozen=True)
class JudgeTask:
    """The request's inputs as data: ``kind`` names the question (e.g. ``faithfulness.single``)."""

    kind: str
    inputs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeRequest:
    metric: str
    template_id: str
    template_version: str
    messages: tuple[Message, ...]
    response_model: type[BaseModel]
    task: JudgeTask
    sampling: Sampling = Sampling()
    repeat_index: int = 0

    @property
    def schema_name(self) -> str:
        return self.response_model.__name__

    def response_schema(self) -> dict[str, Any]:
        from .schema import provider_schema

        return provider_schema(self.response_model)

    def estimated_prompt_tokens(self, *, with_schema: bool = True) -> int:
        """The prompt's tokens estimated as a quarter of its characters: the messages (with a few for
        each one's role and framing) and, unless ``with_schema`` is False, the schema, which OpenAI and
        Anthropic put into the prompt and local servers turn into a grammar instead. Good to about 20%
        for English prose with the OpenAI and Claude tokenizers."""
        characters = sum(len(m.content) + 8 for m in self.messages)
        if with_schema:
            characters += len(str(self.response_schema()))
        return math.ceil(characters / 4)

    @property
    def is_repair(self) -> bool:
        return self.template_id.endswith(REPAIR_SUFFIX)

    def with_repeat(self, index: int) -> JudgeRequest:
        return self if index == self.repeat_index else replace(self, repeat_index=index)

    def key_material(self, judge_identity: Mapping[str, Any]) -> dict[str, Any]:
        """Everything the key covers, as plain data (useful to explain a replay miss)."""
        return {
            "format": KEY_FORMAT_VERSION,
            "judge": dict(judge_identity),
            "metric": self.metric,
            "template": {"id": self.template_id, "version": self.template_version},
            "messages": [[m.role, m.content] for m in self.messages],
            "schema": self.response_schema(),
            "sampling": self.sampling.as_dict(),
            "repeat": self.repeat_index,
        }

    def cache_key(self, judge_identity: Mapping[str, Any]) -> str:
        """A stable hex digest: the same request hashes the same in every process and Python version.

        The digest is of :meth:`key_material` as compact JSON with sorted keys. That JSON is written
        here part by part, in the keys' sorted order, because a cached judgment pays for this key on
        every hit: the verdict model's schema, the largest part and the same for every request of a
        metric, is serialised once per model; the strings go through the very function
        :func:`json.dumps` escapes them with; only the judge's identity and the sampling parameters,
        which may hold any JSON value, go through the encoder. The same bytes as dumping the whole
        material at once (a test holds them equal), without building and sorting it on every hit.
        """
        from .schema import provider_schema_json

        messages = ",".join([m.key_json for m in self.messages])
        template = f'{{"id":{_json_text(self.template_id)},"version":{_json_text(self.template_version)}}}'
        whole = (
            f'{{"format":{_json_text(KEY_FORMAT_VERSION)}'
            f',"judge":{_identity_json(judge_identity)}'
            f',"messages":[{messages}]'
            f',"metric":{_json_text(self.metric)}'
            f',"repeat":{_json_text(self.repeat_index)}'
            f',"sampling":{self.sampling.key_json}'
            f',"schema":{provider_schema_json(self.response_model)}'
            f',"template":{template}}}'
        )
        return hashlib.sha256(whole.encode("utf-8")).hexdigest()


_KEY_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=True, separators=(",", ":"))
"""The key's JSON writer: what ``json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",",
":"))`` builds on every call, built once."""


def _json_text(value: Any) -> str:
    """``value`` as the key's JSON writes it: a string, number or null the way the encoder writes
    one (without setting an encoder up for it), anything else by the encoder."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)  # the encoder's own escaping
    if kind is int or (kind is float and math.isfinite(value)):  # not bools, NaN or infinities
        return repr(value)
    if value is None:
        return "null"
    return _KEY_ENCODER.encode(value)


_PLAIN = frozenset({str, int, float, type(None)})


def _json_object(mapping: Mapping[str, Any]) -> str:
    """A mapping as the key's JSON writes it, keys sorted: written here when it is flat (string keys,
    plain values: a judge's identity, the sampling parameters), by the encoder otherwise."""
    if all(type(key) is str and type(value) in _PLAIN for key, value in mapping.items()):
        body = ",".join(
            f"{encode_basestring_ascii(key)}:{_json_text(mapping[key])}" for key in sorted(mapping)
        )
        return f"{{{body}}}"
    return _KEY_ENCODER.encode(dict(mapping))


def _identity_json(identity: Mapping[str, Any]) -> str:
    """A judge's identity as the key writes it. Identities of strings (provider, model, base URL) are
    written once per distinct identity: every judgment's key holds one."""
    items = tuple(identity.items())
    if all(type(key) is str and (type(value) is str or value is None) for key, value in items):
        return _plain_identity_json(items)
    return _json_object(identity)


@lru_cache(maxsize=64)
def _plain_identity_json(items: tuple[tuple[str, str | None], ...]) -> str:
    return _json_object(dict(items))
