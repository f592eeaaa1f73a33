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
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

KEY_FORMAT_VERSION = "1"
REPAIR_SUFFIX = "+repair"
"""Ends the template id of a repair request (an invalid reply, and the fix asked for)."""


@dataclass(frozen=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters; temperature 0 by default so that reruns agree as far as the model allows."""

    temperature: float | None = 0.0
    max_tokens: int = 1024
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}


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

        The digest is of :meth:`key_material` as compact JSON with sorted keys. The verdict model's
        schema, the largest part and the same for every request of a metric, is serialised once per
        model and spliced in at its sorted place (just before the last key, ``template``): the same
        bytes as dumping the whole material, without re-serialising the schema on every cached hit.
        """
        from .schema import provider_schema_json

        material = self.key_material(judge_identity)
        del material["schema"]
        rest = _key_json(material)
        cut = rest.rfind(',"template":')  # quotes inside strings are escaped: only a key matches
        whole = f'{rest[:cut]},"schema":{provider_schema_json(self.response_model)}{rest[cut:]}'
        return hashlib.sha256(whole.encode("utf-8")).hexdigest()


def _key_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
