"""A learned entailment signal: does a premise span entail a hypothesis sentence? In numpy, on CPU.

Everything else the offline judge measures compares bags of words and averaged word vectors, so
"the dog bit the man" and "the man bit the dog" look the same to it. This model reads order and
alignment. It is a small attention aligner (in the spirit of decomposable attention and ESIM)
over WordLlama's frozen 256-d token vectors, the ones :mod:`.embedder` already loads:

1. **Encode.** Each token of the premise and of the hypothesis becomes a ``d``-wide vector: a
   learned projection of its WordLlama vector plus a projection of a few word flags
   (``TOKEN_FLAGS``: does the word occur in the premise, as is or by stem; is it a number, a
   negation, a capitalised name, a stopword, a mark), then a width-3 convolution over
   neighbours, so a token knows the words beside it ("Anna hired" is not "hired Anna").
2. **Align.** Every hypothesis token attends over the premise tokens and takes their weighted
   mean. Where in the premise it looked (the expected position) is compared with where the
   previous hypothesis token looked: a hypothesis that reads the premise backwards (roles
   swapped) shows it there.
3. **Compare and pool.** A small network compares each hypothesis token with what it aligned to
   (``[h, a, h - a, h * a]`` plus the flags), a second convolution lets neighbours share what
   they found, and the mean and maximum over the hypothesis feed a classifier whose output is
   P(entailed). Contradiction and neutral are both "not entailed": the judge only needs support.

The weights (``entailment.npz``, well under a megabyte in float16) are trained by
``scripts/train_entailment.py`` on public NLI data and synthetic edits; see
``docs/learned-entailment.md`` for the data, the held-out figures and what it is good at. The
training script imports the featurisation (:mod:`.entailment_input`), so training and inference
read text the same way.

Inference is deterministic and thread-safe: the model holds only read-only arrays, and one
instance is shared per process (:func:`load_entailment_model`).
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_rag.judges.local.embedder import StaticEmbedder, load_embedder
from pytest_rag.judges.local.entailment_input import (
    TOKEN_FLAGS,
    FloatArray,
    IntArray,
    PairBatch,
    Tokenizer,
    batch_pairs,
)

__all__ = [
    "FORMAT_VERSION",
    "PARAMETER_SHAPES",
    "WEIGHTS_FILE",
    "EntailmentModel",
    "EntailmentWeightsError",
    "forward",
    "load_entailment_model",
    "one_blas_thread",
    "read_weights",
]

WEIGHTS_FILE = "entailment.npz"
FORMAT_VERSION = 1
PARAMETER_SHAPES: Mapping[str, tuple[str, ...]] = {
    "w_in": ("embed", "d"),
    "w_flags": ("flags", "d"),
    "b_in": ("d",),
    "w_conv": ("3", "d", "d"),
    "b_conv": ("d",),
    "w_att": ("d", "d"),
    "w_cmp1": ("compare", "d"),
    "b_cmp1": ("d",),
    "w_cmp2": ("d", "d"),
    "b_cmp2": ("d",),
    "w_mix": ("3", "d", "d"),
    "b_mix": ("d",),
    "w_out1": ("pooled", "d"),
    "b_out1": ("d",),
    "w_out2": ("d",),
    "b_out2": (),
}
"""Every learned array and its shape by name: ``embed`` = 256, ``flags`` = len(TOKEN_FLAGS),
``compare`` = 4 d + flags + 2 (the alignment step and the attention peak), ``pooled`` = 2 d."""

_POSITION_SCALE = 4.0
"""Steps between the expected premise positions of neighbouring hypothesis tokens are read
through tanh(step / 4): small forward steps are the normal case, large backward ones are not."""


class EntailmentWeightsError(RuntimeError):
    """The entailment model's weights file is missing or does not match this code."""


# ---------------------------------------------------------------------------------------------
# The forward pass


def _relu(x: FloatArray) -> FloatArray:
    out: FloatArray = np.maximum(x, 0.0)
    return out


@dataclass(frozen=True)
class _Rows:
    """The real tokens of a padded batch (texts fill their rows from the left), as flat rows:
    the model computes on these alone, so a short text costs no more for sharing a batch with a
    long one."""

    at: tuple[IntArray, IntArray]  # (text, position) of each real token, in order
    opens: npt.NDArray[np.bool_]  # the token is its text's first
    closes: npt.NDArray[np.bool_]  # the token is its text's last
    shape: tuple[int, int]

    @classmethod
    def of(cls, mask: FloatArray) -> _Rows:
        texts, positions = np.nonzero(mask > 0)
        lengths = (mask > 0).sum(axis=1)
        return cls((texts, positions), positions == 0, positions == lengths[texts] - 1, mask.shape)

    def padded(self, flat: FloatArray) -> FloatArray:
        """Flat rows back in their (text, position) places, zeros elsewhere."""
        out = np.zeros((*self.shape, *flat.shape[1:]), dtype=np.float32)
        out[self.at] = flat
        return out


def _conv3(x: FloatArray, weight: FloatArray, bias: FloatArray, rows: _Rows) -> FloatArray:
    """Width-3 convolution along each text of the flat rows ``x`` (zero beyond a text's ends):
    ``out[t] = x[t-1] @ weight[0] + x[t] @ weight[1] + x[t+1] @ weight[2] + bias``."""
    out: FloatArray = x @ weight[1] + bias
    from_before = x[:-1] @ weight[0]
    from_after = x[1:] @ weight[2]
    out[1:] += np.where(rows.opens[1:, None], np.float32(0.0), from_before)
    out[:-1] += np.where(rows.closes[:-1, None], np.float32(0.0), from_after)
    return out


def _encode(
    vocabulary: FloatArray, ids: IntArray, flags: FloatArray, rows: _Rows, w: Mapping[str, FloatArray]
) -> FloatArray:
    """Token encodings of flat rows: projected word vector and flags, plus a width-3
    convolution of them.

    A batch repeats its tokens: premise spans overlap (sentences 1-2 and 2-3), and a hypothesis
    is read once per premise with mostly the same flags. A token's encoding before the
    convolution depends only on its id and flags, so that part and its three products with the
    convolution's weights are computed once per distinct (id, flags); the convolution then adds
    its neighbours' products in ``_conv3``'s order."""
    first, of = _distinct_tokens(ids, flags)
    base = _relu(vocabulary[ids[first]] + flags[first] @ w["w_flags"] + w["b_in"])
    weight, bias = w["w_conv"], w["b_conv"]
    conv: FloatArray = (base @ weight[1] + bias)[of]
    if len(of) > 1:
        from_before = (base @ weight[0])[of[:-1]]
        from_after = (base @ weight[2])[of[1:]]
        conv[1:] += np.where(rows.opens[1:, None], np.float32(0.0), from_before)
        conv[:-1] += np.where(rows.closes[:-1, None], np.float32(0.0), from_after)
    encoded: FloatArray = base[of] + _relu(conv)
    return encoded


def _distinct_tokens(ids: IntArray, flags: FloatArray) -> tuple[IntArray, IntArray]:
    """The distinct (id, flags) rows: the row where each first stands, and each row's distinct
    row. Flags are 0 or 1 (``token_flags``), packed as bits beside the id; any other flags value
    keeps every row its own."""
    if not np.all((flags == 0.0) | (flags == 1.0)):
        every = np.arange(len(ids), dtype=np.int64)
        return every, every
    bits = flags.astype(np.int64) @ (1 << np.arange(flags.shape[1], dtype=np.int64))
    keys = (ids << flags.shape[1]) | bits
    _, first, of = np.unique(keys, return_index=True, return_inverse=True)
    return first, of.reshape(-1)


def _align(
    queries: FloatArray,
    hyp_flat: FloatArray,
    prem_flat: FloatArray,
    h_rows: _Rows,
    p_rows: _Rows,
    premise_of: IntArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For every hypothesis token (flat rows), its attention-weighted premise vector, the premise
    position it looks at on average, and its largest attention weight.

    The hypotheses of one premise are aligned together against that premise's own tokens, so no
    product is spent on padding (premises in a batch differ in length by a factor of three). A
    premise without tokens is attended uniformly over the batch's padded width, as a padded
    pass would (its pair's probability is set to 0 by the caller)."""
    aligned = np.zeros_like(hyp_flat)
    position = np.zeros(len(hyp_flat), dtype=np.float32)
    peak = np.zeros(len(hyp_flat), dtype=np.float32)
    hyp_text, prem_text = h_rows.at[0], p_rows.at[0]
    prem_bounds = np.searchsorted(prem_text, np.arange(p_rows.shape[0] + 1))
    width = max(p_rows.shape[1], 1)
    for premise in np.unique(premise_of):
        rows = np.flatnonzero(premise_of[hyp_text] == premise)
        if not len(rows):
            continue
        tokens = prem_flat[prem_bounds[premise] : prem_bounds[premise + 1]]
        if not len(tokens):
            position[rows] = np.float32((width - 1) / 2)
            peak[rows] = np.float32(1.0 / width)
            continue
        scores = queries[rows] @ tokens.T
        scores = scores - scores.max(axis=-1, keepdims=True)
        attention = np.exp(scores)
        attention = attention / attention.sum(axis=-1, keepdims=True)
        aligned[rows] = attention @ tokens
        position[rows] = attention @ np.arange(len(tokens), dtype=np.float32)
        peak[rows] = attention.max(axis=-1)
    return aligned, position, peak


def forward(
    projected_vocabulary: FloatArray, weights: Mapping[str, FloatArray], batch: PairBatch
) -> FloatArray:
    """P(entailed) for every pair of ``batch``.

    ``projected_vocabulary`` is WordLlama's token matrix times ``w_in`` (computed once at load,
    since every token vector passes through that projection first). Token-wise steps run on the
    real tokens only (:class:`_Rows`), and so does the alignment, which compares every hypothesis
    token with every token of its premise (:func:`_align`).
    """
    w = weights
    if len(batch.premise_of) == 0:
        return np.zeros(0, dtype=np.float32)
    p_rows, h_rows = _Rows.of(batch.premise_mask), _Rows.of(batch.hypothesis_mask)
    prem_flat = _encode(
        projected_vocabulary, batch.premise_ids[p_rows.at], batch.premise_flags[p_rows.at], p_rows, w
    )
    h_flags = batch.hypothesis_flags[h_rows.at]
    hyp_flat = _encode(projected_vocabulary, batch.hypothesis_ids[h_rows.at], h_flags, h_rows, w)
    aligned, position, peak = _align(
        hyp_flat @ w["w_att"], hyp_flat, prem_flat, h_rows, p_rows, batch.premise_of
    )
    step = np.where(
        h_rows.opens, np.float32(0.0), np.tanh((position - np.roll(position, 1)) / _POSITION_SCALE)
    )

    compared = np.concatenate(
        [
            hyp_flat,
            aligned,
            hyp_flat - aligned,
            hyp_flat * aligned,
            h_flags,
            step[:, None],
            peak[:, None],
        ],
        axis=-1,
    )
    local = _relu(compared @ w["w_cmp1"] + w["b_cmp1"])
    local = _relu(local @ w["w_cmp2"] + w["b_cmp2"])
    local = h_rows.padded(local + _relu(_conv3(local, w["w_mix"], w["b_mix"], h_rows)))

    counts = np.maximum(batch.hypothesis_mask.sum(axis=1, keepdims=True), 1.0)
    pooled = np.concatenate([local.sum(axis=1) / counts, local.max(axis=1)], axis=-1)
    hidden = _relu(pooled @ w["w_out1"] + w["b_out1"])
    logits = hidden @ w["w_out2"] + w["b_out2"]
    probabilities: FloatArray = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
    return probabilities


# ---------------------------------------------------------------------------------------------
# The model as the judge uses it


def read_weights(data: bytes) -> tuple[dict[str, FloatArray], dict[str, Any]]:
    """Arrays (as float32) and metadata of a weights file's bytes; refuses a file that does not
    match this code (other flags, other format version, missing or misshapen arrays)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        stored = {name: archive[name] for name in archive.files}
    if "meta" not in stored:
        raise EntailmentWeightsError("the entailment weights file has no metadata")
    meta: dict[str, Any] = json.loads(bytes(stored.pop("meta")).decode("utf-8"))
    if meta.get("format") != FORMAT_VERSION or tuple(meta.get("token_flags", ())) != TOKEN_FLAGS:
        raise EntailmentWeightsError(
            f"the entailment weights file was written for another version of this model (format "
            f"{meta.get('format')}, flags {meta.get('token_flags')}); retrain it with scripts/train_entailment.py"
        )
    missing = sorted(set(PARAMETER_SHAPES) - set(stored))
    if missing:
        raise EntailmentWeightsError(f"the entailment weights file lacks {', '.join(missing)}")
    weights = {name: stored[name].astype(np.float32) for name in PARAMETER_SHAPES}
    d = weights["b_in"].shape[0]
    sizes = {"d": d, "3": 3, "embed": weights["w_in"].shape[0], "flags": len(TOKEN_FLAGS)}
    sizes["compare"] = 4 * d + len(TOKEN_FLAGS) + 2
    sizes["pooled"] = 2 * d
    for name, axes in PARAMETER_SHAPES.items():
        expected = tuple(sizes[a] for a in axes)
        if weights[name].shape != expected:
            raise EntailmentWeightsError(
                f"entailment weight {name} has shape {weights[name].shape}, not {expected}"
            )
    return weights, meta


class EntailmentModel:
    """P(premise entails hypothesis) for batches of pairs; see the module docstring."""

    def __init__(
        self, embedder: StaticEmbedder, weights: Mapping[str, FloatArray], meta: Mapping[str, Any]
    ) -> None:
        matrix = embedder.token_matrix
        if matrix.shape[1] != weights["w_in"].shape[0]:
            raise EntailmentWeightsError(
                f"the entailment weights expect {weights['w_in'].shape[0]}-d token vectors; the embedder has {matrix.shape[1]}"
            )
        self._weights = {name: np.asarray(a, dtype=np.float32, order="C") for name, a in weights.items()}
        self._projected: FloatArray = np.ascontiguousarray(matrix @ self._weights["w_in"], dtype=np.float32)
        self._tokenizer = Tokenizer.of(embedder)
        self.meta: Mapping[str, Any] = dict(meta)

    @classmethod
    def from_bytes(cls, data: bytes, embedder: StaticEmbedder | None = None) -> EntailmentModel:
        """A model from a weights file's bytes (the process's embedder unless one is given)."""
        weights, meta = read_weights(data)
        return cls(embedder if embedder is not None else load_embedder(), weights, meta)

    def probabilities(self, pairs: Sequence[tuple[str, str]], batch_size: int = 64) -> FloatArray:
        """P(entailed) of each ``(premise, hypothesis)`` pair, in order.

        An empty hypothesis claims nothing and gets 1.0; an empty premise supports nothing and
        gets 0.0 (when the hypothesis has words). Long texts are read up to
        ``MAX_PREMISE_TOKENS`` / ``MAX_HYPOTHESIS_TOKENS`` tokens.
        """
        out = np.zeros(len(pairs), dtype=np.float32)
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            batch = batch_pairs(self._tokenizer, chunk)
            with one_blas_thread():
                out[start : start + len(chunk)] = forward(self._projected, self._weights, batch)
            no_hypothesis = batch.hypothesis_mask.sum(axis=1) == 0
            no_premise = batch.premise_mask[batch.premise_of].sum(axis=1) == 0
            out[start : start + len(chunk)][no_premise] = 0.0
            out[start : start + len(chunk)][no_hypothesis] = 1.0
        return out

    def probability(self, premise: str, hypothesis: str) -> float:
        """P(entailed) of one pair."""
        return float(self.probabilities([(premise, hypothesis)])[0])


def one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """A context in which numpy's BLAS runs on one thread (nothing without threadpoolctl).

    The forward pass multiplies matrices of about a thousand rows by 128 columns: too small for
    threads to pay, large enough that OpenBLAS starts one per core. With a core's worth of other
    work running (xdist workers, other processes), those threads wait on each other and a check
    took 0.1 to 0.4 s instead of 10 ms. One thread also gives the same floats on every machine:
    a split across threads rounds differently (up to 2e-5 in the entailment log-odds)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - a dependency; without it, the threads stay
            return contextlib.nullcontext()
        _CONTROLLER = ThreadpoolController()
    limited: contextlib.AbstractContextManager[object] = _CONTROLLER.limit(limits=1, user_api="blas")
    return limited


_CONTROLLER: Any = None
_INSTANCE: EntailmentModel | None = None
_INSTANCE_LOCK = threading.Lock()


def _packaged_weights() -> bytes:
    resource = resources.files("pytest_rag.judges.local").joinpath(WEIGHTS_FILE)
    if not resource.is_file():
        raise EntailmentWeightsError(
            f"The offline judge's entailment weights ({WEIGHTS_FILE}) are missing from the installed "
            "pytest_rag package. pytest-rag never downloads weights: reinstall the wheel "
            "(`pip install --force-reinstall pytest-rag`), or rebuild the file with "
            "`python scripts/train_entailment.py --data DIR --write`."
        )
    return resource.read_bytes()


def load_entailment_model() -> EntailmentModel:
    """The process-wide entailment model, loaded on first use from the package's weights file."""
    global _INSTANCE
    if _INSTANCE is None:
        with _INSTANCE_LOCK:
            if _INSTANCE is None:
                _INSTANCE = EntailmentModel.from_bytes(_packaged_weights())
    return _INSTANCE
