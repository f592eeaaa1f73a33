"""OpenAI's embeddings API, or any OpenAI-compatible ``/v1/embeddings``.

An ``openai:`` or ``ollama:`` judge embeds through its own server and key
(:meth:`~pytest_rag.judges.openai.chat.OpenAIChatJudge.embedder`), sharing the judge's SDK client
(one per event loop, see :mod:`pytest_rag.judges.clients`); ``embedding_model="openai:MODEL"``
names OpenAI itself, whatever the judge. Vectors are asked for as base64 float32 and decoded with
one numpy call (see :mod:`pytest_rag.judges.embeddings` for how they are stored).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import JudgeError, JudgeUnavailableError
from ..clients import LoopClients, prepare_clients
from ..embeddings import EmbeddingBatch, Vectors
from ..faults import translate, unreadable
from ..protocol import JudgeOptions
from .server import OPENAI_DEFAULT_BASE_URL, api_key_for

DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"


class OpenAIEmbedder:
    """The OpenAI embeddings API, or any server that speaks it at ``base_url``.

    ``clients`` is where its SDK client comes from: the chat judge's own when it embeds through the
    judge's server (the same base URL and key), else one shared by every embedder of this base URL,
    key and timeout (closed by :func:`close_embedding_clients` at the end of the session)."""

    offline = False

    prepare = prepare_clients  # its one-off set-up: the SDK's import and client

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_EMBEDDING_MODEL,
        *,
        base_url: str | None = None,
        key_env: str = "OPENAI_API_KEY",
        timeout_s: float = JudgeOptions.timeout_s,
        clients: LoopClients[Any] | None = None,
    ) -> None:
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL).rstrip("/")
        self.key_env = key_env
        self.timeout_s = timeout_s
        self.clients = clients if clients is not None else _shared_clients(self)

    @property
    def label(self) -> str:
        return f"openai:{self.model}"

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "openai-embeddings", "model": self.model, "base_url": self.base_url}

    def _api_key(self) -> str:
        key = api_key_for(self.key_env, self.base_url)
        if key is not None:
            return key
        raise JudgeUnavailableError(
            f"{self.key_env} is not set, so the embeddings model {self.model} cannot be called. Export it, "
            "or pass embedding_model='local' to embed offline",
            judge=self.label,
            kind="unavailable",
            sent=False,
        )

    def new_client(self) -> Any:
        import openai

        return openai.AsyncOpenAI(
            api_key=self._api_key(), base_url=self.base_url, timeout=self.timeout_s, max_retries=0
        )

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        import openai

        try:
            # base64 float32 is what the API sends when the SDK is left to choose; asking for it
            # explicitly leaves the decoding to one numpy call instead of a list of Python floats
            response = await self.clients.get().embeddings.create(
                model=self.model, input=list(texts), encoding_format="base64"
            )
        except openai.OpenAIError as exc:
            raise translate(
                exc,
                openai,
                judge=self.label,
                key_env=self.key_env,
                base_url=self.base_url,
                model_option="in the embedding_model= option of the check",
            ) from None
        if not isinstance(getattr(response, "data", None), list):  # a proxy's page instead of the API
            raise unreadable(self.label, "no list of embeddings in the body", response, self.key_env)
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise JudgeError(
                f"the embeddings API returned {len(rows)} vectors for {len(texts)} texts", judge=self.label
            )
        try:
            matrix = np.stack([_decoded(row.embedding) for row in rows])
        except (ValueError, TypeError) as exc:
            raise JudgeError(
                f"the embeddings API returned vectors that do not fit ({exc})", judge=self.label
            ) from None
        usage = getattr(response, "usage", None)
        return EmbeddingBatch(matrix, int(getattr(usage, "prompt_tokens", 0) or 0))


def _decoded(embedding: Any) -> Vectors:
    """One vector as the API sent it: base64 float32, or a list of numbers (a compatible server that
    ignores ``encoding_format``)."""
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding), dtype="<f4")
    return np.asarray(embedding, dtype=np.float32)


_SHARED: dict[tuple[str, str, float], LoopClients[Any]] = {}


def _shared_clients(embedder: OpenAIEmbedder) -> LoopClients[Any]:
    key = (embedder.base_url, embedder.key_env, embedder.timeout_s)
    if key not in _SHARED:
        _SHARED[key] = LoopClients(embedder.new_client)
    return _SHARED[key]


async def close_embedding_clients() -> None:
    """Close the clients of embedders that do not share a judge's (on the running loop)."""
    for clients in list(_SHARED.values()):
        await clients.aclose()
