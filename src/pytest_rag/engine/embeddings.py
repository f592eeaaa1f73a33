"""Text embeddings for the metrics that compare meanings by cosine (semantic similarity, the
generated-questions mode of answer relevancy, consistency across runs).

The seam is a small :class:`Embedder` protocol with two implementations: the OpenAI embeddings API
(any OpenAI-compatible ``/v1/embeddings``) and the offline judge's static embedding model. A metric
does not choose one itself; it asks for the embedder that goes with the judge it was given:

* the offline judge (``local``) embeds with :meth:`~pytest_rag.judges.local.scorer.LocalScorer.embed`;
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

Vectors travel as float32 matrices, never as lists of Python floats: the API is asked for base64
float32 (what it sends anyway) and the reply is stored that way, one base64 string per text
(:class:`StoredVectors`), about half the size of the JSON numbers it replaces and decoded with one
``numpy.frombuffer`` on a cache hit. Entries stored before (``{"vectors": [[...]]}``, rounded to 7
decimals) still read, as float64, with the very numbers they gave before; the cache key is
unchanged (it covers :class:`EmbeddingVectors`'s schema, not the stored form). An ``openai:``
embedder shares its judge's client (one per event loop, see :mod:`pytest_rag.judges.clients`).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError, JudgeError, JudgeUnavailableError, UnsupportedMetricError
from ..judges.clients import LoopClients
from ..judges.openai_chat import OPENAI_DEFAULT_BASE_URL, api_key_for
from ..judges.protocol import Judge, JudgeOptions, JudgeReply, JudgeSpec
from ..judges.request import JudgeRequest, JudgeTask, Message, Sampling

DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"
EMBEDDING_TEMPLATE_ID = "embeddings"
EMBEDDING_TEMPLATE_VERSION = "1"
STORED_FIELD = "float32"  # the stored reply: {"float32": [base64 of little-endian float32, one per text]}

Vectors = NDArray[np.floating[Any]]
"""Embedding vectors, one row per text (float32 as providers send them)."""


@dataclass(frozen=True)
class EmbeddingBatch:
    """Vectors for a list of texts, in input order, with the tokens the provider billed.

    ``vectors`` is a matrix with one row per text: a numpy array, or rows of floats."""

    vectors: Vectors | Sequence[Sequence[float]]
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
        from ..judges.local.scorer import LocalScorer

        return {"provider": "local", "model": "embeddings", "version": LocalScorer.load().version}

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        from ..judges.local.scorer import LocalScorer

        return EmbeddingBatch(LocalScorer.load().embed(list(texts)))


class OpenAIEmbedder:
    """The OpenAI embeddings API, or any server that speaks it at ``base_url``.

    ``clients`` is where its SDK client comes from: the chat judge's own when it embeds through the
    judge's server (the same base URL and key), else one shared by every embedder of this base URL,
    key and timeout (closed by :func:`close_embedding_clients` at the end of the session)."""

    offline = False

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

        from ..judges.faults import translate, unreadable

        try:
            # base64 float32 is what the API sends when the SDK is left to choose; asking for it
            # explicitly leaves the decoding to one numpy call instead of a list of Python floats
            response = await self.clients.get().embeddings.create(
                model=self.model, input=list(texts), encoding_format="base64"
            )
        except openai.OpenAIError as exc:
            raise translate(
                exc, openai, judge=self.label, key_env=self.key_env, base_url=self.base_url
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


class EmbeddingVectors(BaseModel):
    """The 'verdict' of an embedding request: one vector per text."""

    # A NaN or infinite component is invalid (the engine reports a judge error): no similarity can be
    # computed from it. (The docstring is the schema's description, part of the cache key: keep it.)
    vectors: list[list[Annotated[float, Field(allow_inf_nan=False)]]]


class StoredVectors(BaseModel):
    """An embedding reply as stored and read back: ``{"float32": [base64, ...]}`` (one little-endian
    float32 vector per text), or the older ``{"vectors": [[...], ...]}``. The request's schema stays
    :class:`EmbeddingVectors` (the cache key); this is only how the reply is read."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    matrix: Any = Field(description="float matrix, one row per text")

    @model_validator(mode="before")
    @classmethod
    def _decode(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "matrix" in data:
            return data
        if STORED_FIELD in data:
            rows = data[STORED_FIELD]
            if not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
                raise ValueError(f"{STORED_FIELD} must be a list of base64 strings")
            try:
                vectors = [np.frombuffer(base64.b64decode(r, validate=True), dtype="<f4") for r in rows]
            except ValueError as exc:
                raise ValueError(
                    f"{STORED_FIELD} holds a string that is not base64 float32 ({exc})"
                ) from None
        elif "vectors" in data:  # stored before the float32 form: the same float64 numbers as then
            rows = data["vectors"]
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise ValueError("vectors must be a list of lists of numbers")
            vectors = [np.asarray(r, dtype=np.float64) for r in rows]
        else:
            raise ValueError(f"an embedding reply holds {STORED_FIELD!r} (or 'vectors')")
        return {"matrix": _matrix(vectors)}


def _matrix(vectors: Sequence[Vectors]) -> Vectors:
    """Rows of one length stacked, every component finite; a ValueError says what is wrong."""
    if not vectors:
        raise ValueError("no vectors")
    sizes = {len(v) for v in vectors}
    if len(sizes) != 1 or 0 in sizes:
        raise ValueError(f"vectors must be non-empty and of one length, got lengths {sorted(sizes)}")
    matrix = np.stack(vectors)
    if not np.isfinite(matrix).all():
        raise ValueError("vectors hold NaN or infinite components; no similarity can be computed from them")
    return matrix


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
        try:
            matrix = np.asarray(batch.vectors, dtype="<f4")  # float32: what providers send
        except (ValueError, TypeError) as exc:  # rows of different lengths, or not numbers
            raise JudgeError(
                f"the embedder returned vectors that are not a matrix of numbers ({exc})",
                judge=self.spec.label,
            ) from None
        if matrix.ndim != 2:
            raise JudgeError(
                f"the embedder returned a {matrix.ndim}-dimensional array for {len(texts)} texts, not one "
                "vector per text",
                judge=self.spec.label,
            )
        stored = [base64.b64encode(row.tobytes()).decode("ascii") for row in matrix]
        return JudgeReply(
            text=json.dumps({STORED_FIELD: stored}, separators=(",", ":")),
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
        shared = getattr(judge, "clients", None)  # the judge's own client: same server, same key
        return OpenAIEmbedder(
            name,
            base_url=getattr(judge, "base_url", None) or judge.spec.base_url,
            key_env=str(getattr(judge, "key_env", "OPENAI_API_KEY")),
            timeout_s=float(getattr(judge, "timeout_s", JudgeOptions.timeout_s)),
            clients=shared if isinstance(shared, LoopClients) else None,
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
