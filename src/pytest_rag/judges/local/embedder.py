"""The offline judge's embedding model: WordLlama's static token embeddings, loaded from disk.

WordLlama ships its weights and tokenizer inside the wheel (``wordllama/weights`` and
``wordllama/tokenizers``), so the judge needs no network and no model hub. We load it with
downloads disabled, check the files first so a broken install gets a clear message rather than a
download attempt, and keep one instance per process.

Because the model is a bag of token vectors averaged together, the embedding of a span of
sentences is just the summed token vectors divided by the token count. ``TokenSums`` exposes
those sums so the scorer can embed sliding windows of context sentences without re-tokenising.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["PIECE_RE", "EmbedderUnavailableError", "StaticEmbedder", "TokenSums", "load_embedder"]

FloatArray = npt.NDArray[np.float32]

_CONFIG = "l2_supercat"
_DIM = 256
_WEIGHTS_FILE = f"{_CONFIG}_{_DIM}.safetensors"
_TOKENIZER_FILE = f"{_CONFIG}_tokenizer_config.json"


class EmbedderUnavailableError(RuntimeError):
    """The local embedding model cannot be loaded (package or weight files missing)."""


@dataclass(frozen=True)
class TokenSums:
    """Per-text sums of token vectors and token counts, for pooling any run of texts."""

    sums: FloatArray  # (n_texts, dim)
    counts: FloatArray  # (n_texts,)

    def pooled(self, start: int, stop: int) -> FloatArray:
        """Unit-norm mean embedding of texts ``start`` to ``stop - 1`` taken together."""
        total: FloatArray = self.sums[start:stop].sum(axis=0)
        pooled: FloatArray = _unit(total[None, :])[0]
        return pooled

    def each(self) -> FloatArray:
        """Unit-norm mean embedding of each text on its own."""
        return _unit(self.sums)


def _unit(matrix: FloatArray) -> FloatArray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: FloatArray = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class StaticEmbedder:
    """Mean-pooled static token embeddings with unit-norm output."""

    def __init__(self, matrix: FloatArray, tokenizer: Any) -> None:
        self._matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self._tokenizer = tokenizer
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._word_cache: dict[str, FloatArray] = {}
        self._piece_sums: dict[str, FloatArray] = {}
        self._lock = threading.Lock()
        # ids only: the fast batch (tokenizers 0.20 and later) skips the character offsets, which
        # a sum does not need; older tokenizers have only the full one, with the same ids
        self._encode_ids = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    @property
    def tokenizer(self) -> Any:
        """WordLlama's tokenizer (no padding, no truncation): for models that read the same tokens,
        such as :mod:`.entailment`, so a process holds one copy."""
        return self._tokenizer

    @property
    def token_matrix(self) -> FloatArray:
        """The token vectors, one row per token id (read-only use: it is shared)."""
        return self._matrix

    @property
    def dim(self) -> int:
        """Length of every embedding vector."""
        return int(self._matrix.shape[1])

    def token_sums(self, texts: Sequence[str]) -> TokenSums:
        """Summed token vectors and token counts of each text (empty text: zero vector, 0)."""
        sums = np.zeros((len(texts), self.dim), dtype=np.float32)
        counts = np.zeros(len(texts), dtype=np.float32)
        if not texts:
            return TokenSums(sums, counts)
        encoded = self._encode_ids(list(texts), add_special_tokens=False)
        vocab = self._matrix.shape[0]
        each = [e.ids for e in encoded]
        sizes = [len(row) for row in each]
        ids = np.fromiter(chain.from_iterable(each), dtype=np.int64, count=sum(sizes))
        row_of = np.repeat(np.arange(len(encoded)), sizes)
        known = (ids >= 0) & (ids < vocab)
        ids, row_of = ids[known], row_of[known]
        lengths = np.bincount(row_of, minlength=len(encoded))
        counts[:] = lengths
        starts = np.cumsum(lengths) - lengths
        # a text's token vectors are added in order, as ``matrix[ids].sum(axis=0)`` adds them, so
        # the sums are the same to the bit; short texts (words, pieces, sentences) all at once, the
        # k-th vector of every one in one step, long ones one text at a time
        short = lengths <= _STEPPED_TOKENS
        position = np.arange(ids.size) - np.repeat(starts, lengths)
        stepped = short[row_of]
        order = np.argsort(position[stepped], kind="stable")
        rows, at, steps = row_of[stepped][order], ids[stepped][order], position[stepped][order]
        bounds = np.searchsorted(steps, np.arange(int(steps.max(initial=-1)) + 2))
        for first, stop in pairwise(bounds):
            sums[rows[first:stop]] += self._matrix[at[first:stop]]
        for row in np.flatnonzero(~short):
            sums[row] = self._matrix[ids[starts[row] : starts[row] + lengths[row]]].sum(axis=0)
        return TokenSums(sums, counts)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Unit-norm embeddings, one row per text (an empty text gives a zero row)."""
        return self.token_sums(texts).each()

    def word_vectors(self, words: Sequence[str]) -> FloatArray:
        """Unit-norm embeddings of single words, cached for the life of the process."""
        missing = [w for w in dict.fromkeys(words) if w not in self._word_cache]
        if missing:
            vectors = self.embed([" " + w for w in missing])
            with self._lock:
                for word, vector in zip(missing, vectors, strict=False):
                    self._word_cache[word] = vector
        if not words:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._word_cache[w] for w in words])

    def pooled_from_pieces(self, counts: Mapping[str, int]) -> FloatArray:
        """Unit-norm mean embedding of a text given as counts of its pieces (words as written,
        and single punctuation marks; see ``PIECE_RE``), without tokenising the text itself.

        Tokenising a megabyte costs more than judging it; a word's tokens are nearly always the
        same wherever it stands, so the sum of each piece's token vectors times its count is the
        text's token sum up to the few merges across piece boundaries. Pieces are cached for
        the life of the process. A punctuation mark is read as it follows a word ("a." less "a"),
        since the tokenizer marks a standalone piece as the start of a word."""
        missing = [p for p in counts if p not in self._piece_sums]
        if missing:
            words = [p for p in missing if p[0].isalnum()]
            marks = [p for p in missing if not p[0].isalnum()]
            found = {**self._sums_by_text(words, words)}
            if marks:
                base = self.token_sums(["a"]).sums[0]
                attached = self._sums_by_text(marks, ["a" + m for m in marks])
                found.update({m: v - base for m, v in attached.items()})
            with self._lock:
                self._piece_sums.update(found)
        if not counts:
            return np.zeros(self.dim, dtype=np.float32)
        weights = np.array(list(counts.values()), dtype=np.float32)
        total = weights @ np.stack([self._piece_sums[p] for p in counts])
        pooled: FloatArray = _unit(total[None, :])[0]
        return pooled

    def _sums_by_text(self, keys: Sequence[str], texts: Sequence[str]) -> dict[str, FloatArray]:
        sums = self.token_sums(list(texts)).sums if texts else np.zeros((0, self.dim), dtype=np.float32)
        return dict(zip(keys, sums, strict=True))


_STEPPED_TOKENS = 256
"""Texts of at most this many tokens are summed together, a token position at a time (see
``StaticEmbedder.token_sums``)."""

PIECE_RE = re.compile(r"[^\W_]+|[^\w\s]")
"""The pieces ``StaticEmbedder.pooled_from_pieces`` counts: runs of letters or digits, and single marks."""


def _package_dir() -> Path:
    try:
        import wordllama
    except ImportError as exc:  # pragma: no cover - wordllama is a hard dependency
        raise EmbedderUnavailableError(
            "The offline judge needs the 'wordllama' package, which is not importable. "
            "Reinstall pytest-rag (`pip install --force-reinstall pytest-rag`) or "
            "`pip install wordllama`."
        ) from exc
    return Path(wordllama.__file__).parent


def _load() -> StaticEmbedder:
    package_dir = _package_dir()
    weights = package_dir / "weights" / _WEIGHTS_FILE
    tokenizer = package_dir / "tokenizers" / _TOKENIZER_FILE
    for path in (weights, tokenizer):
        if not path.is_file():
            raise EmbedderUnavailableError(
                f"The offline judge's model file is missing: {path}. pytest-rag never downloads "
                "weights; reinstall the wheel that ships them with "
                "`pip install --force-reinstall wordllama`, or choose an API judge."
            )
    # wordllama.inference calls logging.basicConfig() at import time; keep the host's root
    # logger (pytest's capture, the user's handlers) exactly as it was.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from wordllama import WordLlama

        model = WordLlama.load(config=_CONFIG, dim=_DIM, cache_dir=package_dir, disable_download=True)
    except FileNotFoundError as exc:
        raise EmbedderUnavailableError(
            f"wordllama could not find its bundled files under {package_dir}: {exc}"
        ) from exc
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return StaticEmbedder(model.embedding, model.tokenizer)


_INSTANCE: StaticEmbedder | None = None
_INSTANCE_LOCK = threading.Lock()


def load_embedder() -> StaticEmbedder:
    """The process-wide embedder, loaded on first use."""
    global _INSTANCE
    if _INSTANCE is None:
        with _INSTANCE_LOCK:
            if _INSTANCE is None:
                _INSTANCE = _load()
    return _INSTANCE
