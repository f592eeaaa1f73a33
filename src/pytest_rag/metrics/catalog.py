"""Every built-in metric, in the order docs/metrics.md lists them (registered by builtin.py).

A metric is registered under (name, mode); the claim-based and generated-questions forms are modes
of the seed-000 metrics they answer the same question as. ``ALIASES`` maps the short names that
``assert_rag`` accepts (``relevancy=3``) onto (name, mode).
"""

from __future__ import annotations

from .base import Metric
from .citation import CITATION_METRICS
from .claims import CLAIM_METRICS
from .consistency import CONSISTENCY_METRICS
from .hallucination import HALLUCINATION_METRICS
from .no_answer import NO_ANSWER_METRICS
from .nuggets import NUGGET_METRICS
from .nvidia import NVIDIA_METRICS
from .questions import QUESTION_METRICS
from .reference import REFERENCE_METRICS
from .retrieval import RETRIEVAL_METRICS
from .rubric import RUBRIC_METRICS
from .single import SINGLE_JUDGMENT_METRICS
from .tonic import TONIC_METRICS
from .umbrela import UMBRELA_METRICS

ALL_METRICS: tuple[type[Metric], ...] = (
    *SINGLE_JUDGMENT_METRICS,
    *CLAIM_METRICS,
    *QUESTION_METRICS,
    *RETRIEVAL_METRICS,
    *UMBRELA_METRICS,
    *TONIC_METRICS,
    *REFERENCE_METRICS,
    *NUGGET_METRICS,
    *CITATION_METRICS,
    *HALLUCINATION_METRICS,
    *NO_ANSWER_METRICS,
    *NVIDIA_METRICS,
    *CONSISTENCY_METRICS,
    *RUBRIC_METRICS,
)

ALIASES: dict[str, tuple[str, str | None]] = {
    "faithful": ("faithfulness", None),
    "grounded": ("faithfulness", None),
    "faithfulness_claims": ("faithfulness", "claims"),
    "relevancy": ("answer_relevancy", None),
    "relevance": ("answer_relevancy", None),
    "relevant": ("answer_relevancy", None),
    "answer_relevancy_questions": ("answer_relevancy", "questions"),
    "recall": ("context_recall", None),
    "context_recall_attribution": ("context_recall", "attribution"),
    "precision": ("context_precision", None),
    "similarity": ("answer_similarity", None),
    "accuracy": ("answer_accuracy", None),
    "groundedness": ("response_groundedness", None),
    "citations": ("citation", None),
    "answered": ("no_answer", None),
}


def resolve_metric(name: str, mode: str | None = None) -> tuple[str, str | None]:
    """(metric name, mode) for a registered name or a short alias; an explicit mode wins."""
    canonical, alias_mode = ALIASES.get(name, (name, None))
    return canonical, mode if mode is not None else alias_mode
