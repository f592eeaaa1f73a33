"""The two formats an NLI model can come in, which files each one reads and what runs it.

A model folder on disk is taken as the user laid it out. A model on the Hugging Face hub often
ships several formats at once (PyTorch weights, safetensors, a folder of ONNX variants), and
downloading all of them would cost gigabytes for files that are never read. So for the hub the
judge looks at the repository's file list, picks the first format whose runtime is installed and
whose files are all there (ONNX first: it starts faster and needs no torch), and downloads exactly
those files.
"""

from __future__ import annotations

import fnmatch
import importlib.util
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .errors import NliModelError

__all__ = [
    "ONNX",
    "RUNTIMES",
    "TRANSFORMERS",
    "ModelFiles",
    "Runtime",
    "choose_files",
    "installed_runtimes",
    "what_formats_need",
]

CONFIG_FILE = "config.json"
ONNX_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"

#: Where a hub repository may keep its ONNX graph: at the top, or in the ``onnx/`` folder that
#: sentence-transformers and Optimum exports use (next to quantised variants, which are not used).
ONNX_GRAPHS = (ONNX_FILE, f"onnx/{ONNX_FILE}")

#: The weights transformers reads, best first; a sharded checkpoint is its index plus the shards.
TRANSFORMERS_WEIGHTS = (
    ("model.safetensors",),
    ("model.safetensors.index.json", "model-*-of-*.safetensors"),
    ("pytorch_model.bin",),
    ("pytorch_model.bin.index.json", "pytorch_model-*-of-*.bin"),
)

#: Top-level files that make up a tokenizer in the formats AutoTokenizer reads.
TOKENIZER_PATTERNS = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spm.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)


@dataclass(frozen=True)
class Runtime:
    """One way to run an NLI model on CPU: the format it reads, the packages it needs, their extra."""

    format: str
    packages: tuple[str, ...]
    extra: str

    def missing(self) -> list[str]:
        """The packages of this runtime that are not installed."""
        return [name for name in self.packages if importlib.util.find_spec(name) is None]

    def require(self) -> None:
        """Fail with the pip command when a package of this runtime is missing."""
        missing = self.missing()
        if missing:
            raise NliModelError(
                f"this NLI model needs the '{missing[0]}' package, which is not installed; "
                f"install it with `pip install pytest-rag[{self.extra}]`"
            )


ONNX = Runtime("onnx", ("onnxruntime", "tokenizers"), "onnx")
TRANSFORMERS = Runtime("transformers", ("transformers", "torch"), "transformers")
#: Every runtime, in the order a hub model that ships both formats is run.
RUNTIMES = (ONNX, TRANSFORMERS)


def installed_runtimes() -> tuple[Runtime, ...]:
    """The runtimes whose packages are all installed, in order of preference."""
    return tuple(runtime for runtime in RUNTIMES if not runtime.missing())


@dataclass(frozen=True)
class ModelFiles:
    """The files of one model in one format: what to download, and what the loader opens."""

    runtime: Runtime
    files: tuple[str, ...]
    """Every file the runtime reads, as paths inside the model's folder (``/``-separated)."""
    onnx_file: str = ONNX_FILE
    """The ONNX graph (ONNX format only)."""


def _top_level(available: Collection[str], pattern: str) -> list[str]:
    return sorted(path for path in available if "/" not in path and fnmatch.fnmatchcase(path, pattern))


def _onnx_files(available: Collection[str]) -> ModelFiles | None:
    if CONFIG_FILE not in available or TOKENIZER_FILE not in available:
        return None
    for graph in ONNX_GRAPHS:
        if graph in available:
            external = [f"{graph}_data", f"{graph}.data"]  # weights of graphs over 2 GB live beside them
            files = (CONFIG_FILE, TOKENIZER_FILE, graph, *(f for f in external if f in available))
            return ModelFiles(ONNX, files, graph)
    return None


def _transformers_files(available: Collection[str]) -> ModelFiles | None:
    tokenizer = [f for pattern in TOKENIZER_PATTERNS for f in _top_level(available, pattern)]
    if CONFIG_FILE not in available or not tokenizer:
        return None
    for patterns in TRANSFORMERS_WEIGHTS:
        found = [_top_level(available, pattern) for pattern in patterns]
        if all(found):
            weights = [f for group in found for f in group]
            return ModelFiles(TRANSFORMERS, (CONFIG_FILE, *tokenizer, *weights))
    return None


def choose_files(available: Collection[str], runtimes: Sequence[Runtime]) -> ModelFiles | None:
    """The files of the first runtime (in ``runtimes``' order) that ``available`` holds completely."""
    for runtime in runtimes:
        found = _onnx_files(available) if runtime is ONNX else _transformers_files(available)
        if found is not None:
            return found
    return None


def what_formats_need() -> str:
    """One sentence on the files each format needs, for errors about a folder that has neither."""
    return (
        f"the ONNX format needs {CONFIG_FILE}, {TOKENIZER_FILE} and {' or '.join(ONNX_GRAPHS)} "
        f"(run with onnxruntime: pip install pytest-rag[{ONNX.extra}]); the transformers format needs "
        f"{CONFIG_FILE}, tokenizer files and model.safetensors or pytorch_model.bin (run with "
        f"transformers and torch: pip install pytest-rag[{TRANSFORMERS.extra}])"
    )
