"""Text embeddings for the metrics that compare meanings by cosine (semantic similarity, the
generated-questions mode of answer relevancy, consistency across runs).

The seam is a small :class:`Embedder` protocol with two implementations: the OpenAI embeddings API
(any OpenAI-compatible ``/v1/embeddings``) and the offline judge's static embedding model. A metric
does not choose one itself; it asks for the embedder that goes with the judge it was given:

* the offline judge (``local``) embeds with :meth:`~pytest_rag.offline.scorer.LocalScorer.embed`;
* ``openai:`` and ``ollama:`` judges embed through the same server and key as the judge, with
  ``text-embedding-3-small`` unless the metric option ``embedding_model=`` names another model;
* any other judge has no embeddings API of its own, so the metric needs ``embedding_model=``:
  ``"local"`` for the offline model or ``"openai:MODEL"`` for OpenAI (``OPENAI_API_KEY``,
  ``OPENAI_BASE_URL``).

Embedding calls are not a side channel: a metric asks its asker to ``embed`` (see
:meth:`~pytest_rag.engine.evaluation.BoundAsker.embed`), which wraps the embedder in
:class:`EmbeddingJudge`, a :class:`~pytest_rag.judges.protocol.Judge`, and sends the texts through the
judgment engine as an ordinary request. They are therefore cached under a key covering the embedding
provider, model, base URL and the texts, retried with backoff, refused in replay mode when missing,
and counted in the result's call tally (the offline model is computed, never cached, like the offline
judge).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ..errors import InputError, JudgeError, JudgeUnavailableError, UnsupportedMetricError
from ..judges.protocol import Judge, JudgeOptions, JudgeReply, JudgeSpec
from ..judges.request import JudgeRequest, JudgeTask, Message, Sampling

DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
EMBEDDING_TEMPLATE_ID = "embeddings"
EMBEDDING_TEMPLATE_VERSION = "1"
_DIGITS = 7  # vectors are stored rounded: identical live and cached values, a fraction of the size


@dataclass(frozen=True)
class EmbeddingBatch:
    """Vectors for a list of texts, in input order, with the tokens the provider billed."""

    vectors: list[list[float]]
    input_tokens: int = 0


@runtime_checkable
class Embedder(Protocol):
    """What turns texts into vectors. ``identity`` goes into cache keys, so it never holds secrets."""

    @property
    def label(self) -> str: ...

    @property
    def offline(self) -> bool: ...

    def identity(self) -> Mapping[str, Any]: ...

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch: ...


class LocalEmbedder:
    """The offline judge's embedding model (WordLlama static embeddings, CPU, no network)."""

    offline = True
    label = "local:embeddings"

    def identity(self) -> Mapping[str, Any]:
        from ..offline.scorer import LocalScorer

        return {"provider": "local", "model": "embeddings", "version": LocalScorer.load().version}

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        from ..offline.scorer import LocalScorer

        matrix = LocalScorer.load().embed(list(texts))
        return EmbeddingBatch([[float(x) for x in row] for row in matrix])


class OpenAIEmbedder:
    """The OpenAI embeddings API, or any server that speaks it at ``base_url``."""

    offline = False

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_EMBEDDING_MODEL,
        *,
        base_url: str | None = None,
        key_env: str = "OPENAI_API_KEY",
        timeout_s: float = JudgeOptions.timeout_s,
    ) -> None:
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL).rstrip("/")
        self.key_env = key_env
        self.timeout_s = timeout_s

    @property
    def label(self) -> str:
        return f"openai:{self.model}"

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "openai-embeddings", "model": self.model, "base_url": self.base_url}

    def _api_key(self) -> str:
        key = os.environ.get(self.key_env)
        if key:
            return key
        if self.base_url != OPENAI_DEFAULT_BASE_URL:
            return "not-needed"  # self-hosted servers usually take any key
        raise JudgeUnavailableError(
            f"{self.key_env} is not set, so the embeddings model {self.model} cannot be called. Export it, "
            "or pass embedding_model='local' to embed offline",
            judge=self.label,
            kind="unavailable",
        )

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        import openai

        from ..judges.faults import translate, unreadable

        # One short-lived client per call: embedders are not closed by the session, and a client
        # must not outlive the event loop it was created on.
        client = openai.AsyncOpenAI(
            api_key=self._api_key(), base_url=self.base_url, timeout=self.timeout_s, max_retries=0
        )
        try:
            response = await client.embeddings.create(model=self.model, input=list(texts))
        except openai.OpenAIError as exc:
            raise translate(
                exc, openai, judge=self.label, key_env=self.key_env, base_url=self.base_url
            ) from None
        finally:
            await client.close()
        if not isinstance(getattr(response, "data", None), list):  # a proxy's page instead of the API
            raise unreadable(self.label, "no list of embeddings in the body", response, self.key_env)
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise JudgeError(
                f"the embeddings API returned {len(rows)} vectors for {len(texts)} texts", judge=self.label
            )
        usage = getattr(response, "usage", None)
        return EmbeddingBatch(
            [[float(x) for x in row.embedding] for row in rows],
            int(getattr(usage, "prompt_tokens", 0) or 0),
        )


class EmbeddingVectors(BaseModel):
    """The 'verdict' of an embedding request: one vector per text."""

    # A NaN or infinite component is invalid (the engine reports a judge error): no similarity can be
    # computed from it. (The docstring is the schema's description, part of the cache key: keep it.)
    vectors: list[list[Annotated[float, Field(allow_inf_nan=False)]]]


class EmbeddingJudge:
    """An :class:`Embedder` dressed as a :class:`~pytest_rag.judges.protocol.Judge`, so the engine
    caches, retries and counts embedding calls exactly as it does judgments."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        provider, _, model = embedder.label.partition(":")
        self.spec = JudgeSpec(provider, model or "embeddings", None)

    @property
    def offline(self) -> bool:
        return bool(self.embedder.offline)

    @property
    def cacheable(self) -> bool:
        return not self.embedder.offline

    def identity(self) -> Mapping[str, Any]:
        return self.embedder.identity()

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        texts = [str(t) for t in request.task.inputs["texts"]]
        batch = await self.embedder.embed(texts)
        rounded = [[round(x, _DIGITS) for x in row] for row in batch.vectors]
        return JudgeReply(
            text=json.dumps({"vectors": rounded}, separators=(",", ":")),
            input_tokens=batch.input_tokens,
            model=self.spec.model,
        )

    async def aclose(self) -> None:
        return None


def embedding_request(metric: str, texts: Sequence[str]) -> JudgeRequest:
    """The engine request for embedding ``texts``; the texts themselves are the message."""
    return JudgeRequest(
        metric=metric,
        template_id=EMBEDDING_TEMPLATE_ID,
        template_version=EMBEDDING_TEMPLATE_VERSION,
        messages=(Message("user", json.dumps(list(texts), ensure_ascii=False)),),
        response_model=EmbeddingVectors,
        task=JudgeTask("embeddings", {"texts": list(texts)}),
        sampling=Sampling(temperature=None, max_tokens=0),
    )


def embedder_for(judge: Judge, model: str | None = None) -> Embedder:
    """The embedder that goes with ``judge`` (see the module docstring); ``model`` overrides it."""
    if model is not None:
        if not isinstance(model, str) or not model.strip():
            raise InputError(f"embedding_model must be a model name or 'local', got {model!r}")
        if model == "local":
            return LocalEmbedder()
    if bool(getattr(judge, "offline", False)) and model is None:
        return LocalEmbedder()
    own = getattr(judge, "embedder", None)
    if callable(own):  # a third-party judge may bring its own embeddings
        found = own(model)
        if isinstance(found, Embedder):
            return found
    provider = judge.spec.provider
    name = model or DEFAULT_OPENAI_EMBEDDING_MODEL
    if name.startswith("openai:"):
        return OpenAIEmbedder(name.partition(":")[2] or DEFAULT_OPENAI_EMBEDDING_MODEL)
    if provider in ("openai", "ollama"):
        return OpenAIEmbedder(
            name,
            base_url=getattr(judge, "base_url", None) or judge.spec.base_url,
            key_env=str(getattr(judge, "key_env", "OPENAI_API_KEY")),
            timeout_s=float(getattr(judge, "timeout_s", JudgeOptions.timeout_s)),
        )
    if model is not None:
        return OpenAIEmbedder(name)
    raise UnsupportedMetricError(
        f"the judge {judge.spec.label} has no embeddings API; pass embedding_model='local' (offline "
        "model) or embedding_model='openai:text-embedding-3-small' (needs OPENAI_API_KEY)"
    )


def check_embeddable(metric: str, texts: Sequence[str]) -> None:
    """Every text must have words: an empty text has no meaning to compare."""
    for i, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{metric}: text {i + 1} to embed is empty; embeddings need words")
