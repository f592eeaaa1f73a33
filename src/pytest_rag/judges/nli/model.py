"""A user's own NLI cross-encoder, loaded from a directory on disk and run on CPU.

pytest-rag ships no NLI weights. A user who has a natural-language inference model (premise,
hypothesis -> entailment / neutral / contradiction) can point the ``nli`` judge at its directory
(or name it on the Hugging Face hub, see :mod:`.hub`, which fetches it into such a directory), in
one of two formats:

* **ONNX**: ``model.onnx`` plus a ``tokenizer.json`` (the `tokenizers` format), run with
  onnxruntime (``pip install pytest-rag[onnx]``);
* **transformers**: ``config.json`` plus weights, as written by ``save_pretrained``, run with
  ``AutoModelForSequenceClassification`` (``pip install pytest-rag[transformers]``).

Either way the meaning of each output column comes from ``config.json``'s ``id2label``; a model
whose labels cannot be read as entailment / neutral / contradiction is refused rather than
guessed, because a swapped column would turn every verdict upside down.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ...ground.integer_keys import integer_keyed
from .errors import NliModelError
from .formats import CONFIG_FILE, ONNX, ONNX_FILE, TOKENIZER_FILE, TRANSFORMERS, ModelFiles, Runtime

__all__ = [
    "LabelMap",
    "ModelDir",
    "NliModel",
    "NliModelError",
    "describe_model_dir",
    "describe_model_files",
    "load_nli_model",
    "read_label_map",
]

FloatArray = npt.NDArray[np.float64]

BATCH_SIZE = 16
DEFAULT_MAX_LENGTH = 512

_LABEL_WORDS = {
    "entailment": ("entail",),
    "neutral": ("neutral",),
    "contradiction": ("contradict",),
}


@dataclass(frozen=True)
class LabelMap:
    """Which output column of the model means what (``None``: the model has no such class)."""

    entailment: int
    neutral: int | None
    contradiction: int | None
    size: int


def _classify_label(name: str) -> str | None:
    lowered = name.strip().lower().replace("-", "_")
    if lowered.startswith(("not_", "non_", "no_")):
        return None  # "not_entailment" is the negative class of a two-way model, not entailment
    for meaning, stems in _LABEL_WORDS.items():
        if any(lowered.startswith(s) for s in stems):
            return meaning
    return None


def read_label_map(config: Mapping[str, Any], where: Path) -> LabelMap:
    """Read ``id2label`` from a model config and find the entailment (and other) columns."""
    raw = config.get("id2label")
    if not isinstance(raw, Mapping) or not raw:
        raise NliModelError(
            f"{where} has no 'id2label' mapping, so pytest-rag cannot tell which output is entailment. "
            'Add e.g. "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"} '
            "(in the model's own output order) to config.json."
        )
    labels = integer_keyed(
        raw, lambda key: NliModelError(f"{where}: id2label key {key!r} is not an integer index")
    )
    names = {index: str(label) for index, label in labels.items()}
    columns: dict[str, int] = {}
    for index, name in names.items():
        meaning = _classify_label(name)
        if meaning is None:
            continue
        if meaning in columns:
            raise NliModelError(f"{where}: id2label names {meaning} twice ({raw!r}); fix config.json")
        columns[meaning] = index
    size = max(names) + 1
    if sorted(names) != list(range(size)):
        raise NliModelError(f"{where}: id2label indices {sorted(names)} are not 0..{size - 1}")
    if "entailment" not in columns:
        raise NliModelError(
            f"{where}: id2label {dict(sorted(names.items()))} has no entailment label, so pytest-rag "
            "cannot tell which output means 'supported'. Name the classes in config.json, e.g. "
            '"id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"} in the model\'s '
            "own output order."
        )
    return LabelMap(columns["entailment"], columns.get("neutral"), columns.get("contradiction"), size)


def _read_config(directory: Path) -> dict[str, Any]:
    path = directory / CONFIG_FILE
    if not path.is_file():
        raise NliModelError(
            f"{directory} has no {CONFIG_FILE}; pytest-rag reads the label order (id2label) from it. "
            "Save the model with save_pretrained, or write a config.json with an id2label mapping."
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NliModelError(f"{path} cannot be read as JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise NliModelError(f"{path} must hold a JSON object")
    return data


@dataclass(frozen=True)
class ModelDir:
    """A checked model directory: its format, config and label map, before any weights load."""

    path: Path
    format: str  # "onnx" or "transformers"
    labels: LabelMap
    config: Mapping[str, Any]
    onnx_file: str = ONNX_FILE  # the ONNX graph, relative to path (ONNX format only)

    def fingerprint(self) -> str:
        """Short hash of the files' names, sizes and modification times (for the judge identity)."""
        digest = hashlib.sha256()
        for item in sorted(self.path.iterdir()):
            if item.is_file():
                stat = item.stat()
                digest.update(f"{item.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
        return digest.hexdigest()[:16]


def describe_model_dir(path: str | Path) -> ModelDir:
    """Check a model directory (exists, format, extra installed, label map) without loading it."""
    text = str(path).strip()
    if not text:
        raise NliModelError(
            "the nli judge needs the directory of an NLI model: --rag-judge=nli:/path/to/model_dir"
        )
    directory = Path(text).expanduser()
    if not directory.is_dir():
        raise NliModelError(
            f"NLI model directory {str(directory)!r} does not exist (or is not a directory); "
            "pass the folder holding model.onnx + tokenizer.json or a save_pretrained model: "
            "--rag-judge=nli:/path/to/model_dir"
        )
    directory = directory.resolve()
    if (directory / ONNX_FILE).is_file():
        if not (directory / TOKENIZER_FILE).is_file():
            raise NliModelError(
                f"{directory} has {ONNX_FILE} but no {TOKENIZER_FILE}; save the model's fast tokenizer "
                "there (tokenizer.save_pretrained(dir) writes it)"
            )
        runtime = ONNX
    elif (directory / CONFIG_FILE).is_file():
        runtime = TRANSFORMERS
    else:
        raise NliModelError(
            f"{directory} holds neither {ONNX_FILE} (ONNX format) nor {CONFIG_FILE} (transformers "
            "format); point --rag-judge=nli: at the model's own folder"
        )
    return _checked(directory, runtime, ONNX_FILE)


def describe_model_files(directory: Path, files: ModelFiles) -> ModelDir:
    """Check a folder whose files were chosen already (a hub snapshot), in the format chosen."""
    return _checked(directory.resolve(), files.runtime, files.onnx_file)


def _checked(directory: Path, runtime: Runtime, onnx_file: str) -> ModelDir:
    runtime.require()
    config = _read_config(directory)
    labels = read_label_map(config, directory / CONFIG_FILE)
    return ModelDir(directory, runtime.format, labels, config, onnx_file)


def _softmax(logits: FloatArray) -> FloatArray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    out: FloatArray = e / e.sum(axis=1, keepdims=True)
    return out


class _Backend(Protocol):
    def logits(self, premises: Sequence[str], hypotheses: Sequence[str]) -> FloatArray: ...


class _OnnxBackend:
    """model.onnx through onnxruntime, tokenised with the `tokenizers` library."""

    def __init__(self, model_dir: ModelDir) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(
                str(model_dir.path / model_dir.onnx_file), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(model_dir.path / TOKENIZER_FILE))
        except Exception as exc:  # onnxruntime and tokenizers raise their own untyped errors
            raise NliModelError(f"cannot load the ONNX NLI model in {model_dir.path}: {exc}") from exc
        max_length = int(model_dir.config.get("max_position_embeddings", DEFAULT_MAX_LENGTH))
        self._tokenizer.enable_truncation(min(max_length, DEFAULT_MAX_LENGTH))
        self._tokenizer.enable_padding()
        self._inputs = {i.name for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise NliModelError(
                f"{model_dir.path / model_dir.onnx_file} does not take {sorted(missing)}; pytest-rag feeds "
                "input_ids, attention_mask (and token_type_ids when the graph asks for it)"
            )

    def logits(self, premises: Sequence[str], hypotheses: Sequence[str]) -> FloatArray:
        encodings = self._tokenizer.encode_batch(list(zip(premises, hypotheses, strict=True)))
        feed: dict[str, npt.NDArray[np.int64]] = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        }
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        outputs = self._session.run(None, feed)
        return np.asarray(outputs[0], dtype=np.float64)


class _TransformersBackend:
    """A save_pretrained sequence-classification model through transformers and torch (CPU)."""

    def __init__(self, model_dir: ModelDir) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(model_dir.path), local_files_only=True)
            self._model = AutoModelForSequenceClassification.from_pretrained(
                str(model_dir.path), local_files_only=True
            )
        except Exception as exc:  # transformers raises OSError/ValueError/... for broken folders
            raise NliModelError(f"cannot load the transformers NLI model in {model_dir.path}: {exc}") from exc
        self._model.eval()
        self._torch = torch
        limit = getattr(self._model.config, "max_position_embeddings", DEFAULT_MAX_LENGTH)
        self._max_length = min(int(limit), DEFAULT_MAX_LENGTH)

    def logits(self, premises: Sequence[str], hypotheses: Sequence[str]) -> FloatArray:
        batch = self._tokenizer(
            list(premises),
            list(hypotheses),
            padding=True,
            truncation=True,
            max_length=self._max_length,
            return_tensors="pt",
        )
        with self._torch.no_grad():
            out = self._model(**batch)
        return np.asarray(out.logits.float().numpy(), dtype=np.float64)


class NliModel:
    """Batched (premise, hypothesis) -> class probabilities, with the columns named."""

    def __init__(self, model_dir: ModelDir, backend: _Backend) -> None:
        self.model_dir = model_dir
        self.labels = model_dir.labels
        self._backend = backend
        self._lock = threading.Lock()

    def probabilities(self, premises: Sequence[str], hypotheses: Sequence[str]) -> FloatArray:
        """Softmax over the model's classes, one row per pair, columns in the model's own order."""
        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses; pass one per pair")
        rows: list[FloatArray] = []
        with self._lock:  # the backends are not guaranteed thread-safe
            for start in range(0, len(premises), BATCH_SIZE):
                stop = start + BATCH_SIZE
                logits = self._backend.logits(premises[start:stop], hypotheses[start:stop])
                if logits.ndim != 2 or logits.shape[1] != self.labels.size:
                    raise NliModelError(
                        f"the NLI model in {self.model_dir.path} returned logits of shape "
                        f"{logits.shape}, but config.json's id2label names {self.labels.size} classes"
                    )
                rows.append(_softmax(logits))
        if not rows:
            return np.zeros((0, self.labels.size), dtype=np.float64)
        return np.concatenate(rows)

    def entailment(self, premises: Sequence[str], hypotheses: Sequence[str]) -> FloatArray:
        """Probability that each premise entails its hypothesis."""
        return self.probabilities(premises, hypotheses)[:, self.labels.entailment]


def load_nli_model(source: str | Path | ModelDir) -> NliModel:
    """Check the directory (unless ``source`` is checked already), then load its weights."""
    model_dir = source if isinstance(source, ModelDir) else describe_model_dir(source)
    backend: _Backend = (
        _OnnxBackend(model_dir) if model_dir.format == "onnx" else _TransformersBackend(model_dir)
    )
    return NliModel(model_dir, backend)
