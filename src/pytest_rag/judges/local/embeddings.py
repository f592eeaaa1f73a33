"""The offline judge's embedder: the metrics that compare meanings embed with its model when the
judge is offline, or when ``embedding_model="local"`` asks for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..embeddings import EmbeddingBatch


class LocalEmbedder:
    """The offline judge's embedding model (WordLlama static embeddings, CPU, no network)."""

    offline = True
    label = "local:embeddings"

    def identity(self) -> Mapping[str, Any]:
        from .scorer import LocalScorer

        return {"provider": "local", "model": "embeddings", "version": LocalScorer.load().version}

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        from .scorer import LocalScorer

        return EmbeddingBatch(LocalScorer.load().embed(list(texts)))
