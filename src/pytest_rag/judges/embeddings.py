"""Embeddings as judge calls: what every provider's embedder offers, and the judge that carries it.

The metrics that compare meanings by cosine (semantic similarity, the generated-questions mode of
answer relevancy, consistency across runs) need text embeddings. An :class:`Embedder` turns texts
into vectors; a provider that has embeddings keeps its embedder in its folder
(:mod:`pytest_rag.judges.openai.embeddings`: any OpenAI-compatible ``/v1/embeddings``;
:mod:`pytest_rag.judges.local.embeddings`: the offline judge's static embedding model), and the
engine picks the one that goes with a metric's judge
(:func:`pytest_rag.engine.embeddings.embedder_for`).

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
unchanged (it covers :class:`EmbeddingVectors`'s schema, not the stored form).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import JudgeError
from .protocol import JudgeReply, JudgeSpec, set_up
from .request import JudgeRequest, JudgeTask, Message, Sampling

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

    def prepare(self) -> None:
        """The embedder's one-off set-up, if it has one (see :class:`~pytest_rag.judges.protocol.Judge`)."""
        set_up(self.embedder)

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


EMBEDDING_SAMPLING = Sampling(temperature=None, max_tokens=0)
"""Embeddings sample nothing: no temperature, no tokens written (one instance, its key JSON written once)."""


def embedding_request(metric: str, texts: Sequence[str]) -> JudgeRequest:
    """The engine request for embedding ``texts``; the texts themselves are the message."""
    return JudgeRequest(
        metric=metric,
        template_id=EMBEDDING_TEMPLATE_ID,
        template_version=EMBEDDING_TEMPLATE_VERSION,
        messages=(Message("user", json.dumps(list(texts), ensure_ascii=False)),),
        response_model=EmbeddingVectors,
        task=JudgeTask("embeddings", {"texts": list(texts)}),
        sampling=EMBEDDING_SAMPLING,
    )
