"""pytest-rag: judged assertions for retrieval-augmented generation, as plain pytest tests.

The names a test file uses are importable from here (``from pytest_rag import Chunk, Sample``). They
load on first use: pytest imports this package for every run, and a suite that never judges anything
must not pay for pydantic at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .failures import RagAssertionError
    from .inputs import Chunk, Sample
    from .rag_judge import RagJudge
    from .results import MetricResult

#: Public name -> the module that defines it.
_EXPORTS = {
    "Chunk": "inputs",
    "Sample": "inputs",
    "MetricResult": "results",
    "RagAssertionError": "failures",
    "RagJudge": "rag_judge",
}

__all__ = ["Chunk", "MetricResult", "RagAssertionError", "RagJudge", "Sample", "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_rag' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
