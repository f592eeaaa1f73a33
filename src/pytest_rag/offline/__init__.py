"""The offline ("local") judge: no API key, no network, CPU only.

It scores grounding, relevance, coverage and correctness from lexical overlap and WordLlama's
static embeddings, turned into probabilities by small logistic models fitted on human-labelled
data (see ``docs/offline-judge.md`` for what it can and cannot see).
"""

from pytest_rag.offline.embedder import EmbedderUnavailableError, load_embedder
from pytest_rag.offline.scorer import (
    CalibrationError,
    GroundingReport,
    LocalScorer,
    SentenceSupport,
)

__all__ = [
    "CalibrationError",
    "EmbedderUnavailableError",
    "GroundingReport",
    "LocalScorer",
    "SentenceSupport",
    "load_embedder",
]
