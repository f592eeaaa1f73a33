"""Every built-in metric, in the order docs/metrics.md lists them (registered by ``builtin.py``).

The catalog is a table of names pointing at classes, so that start-up can register an ini key
``rag_threshold_<name>`` for every metric without importing one (metric modules import pydantic);
the classes load when a test first needs a metric. A metric is registered under (name, mode): the
claim-based and generated-questions forms are modes of the metrics they answer the same question
as. ``ALIASES`` maps the short names that ``assert_rag`` accepts (``relevancy=3``) onto (name, mode);
the few in ``DEPRECATED_ALIASES`` still do, with a warning naming the alias to use instead.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Metric

#: (metric name, mode, "module:Class" within pytest_rag.metrics)
CATALOG: tuple[tuple[str, str, str], ...] = (
    ("faithfulness", "default", "grounding:Faithfulness"),
    ("answer_relevancy", "default", "relevance:AnswerRelevancy"),
    ("context_recall", "default", "reference.context_recall:ContextRecall"),
    ("faithfulness", "claims", "grounding:FaithfulnessClaims"),
    ("context_recall", "attribution", "reference.context_recall:ContextRecallAttribution"),
    ("answer_relevancy", "questions", "relevance:AnswerRelevancyQuestions"),
    ("context_precision", "default", "retrieval:ContextPrecision"),
    ("umbrela", "default", "retrieval:Umbrela"),
    ("retrieval_precision", "default", "retrieval:RetrievalPrecision"),
    ("augmentation_precision", "default", "context_use:AugmentationPrecision"),
    ("augmentation_accuracy", "default", "context_use:AugmentationAccuracy"),
    ("answer_consistency", "default", "grounding:AnswerConsistency"),
    ("answer_consistency_binary", "default", "grounding:AnswerConsistencyBinary"),
    ("answer_similarity", "default", "reference.agreement:AnswerSimilarity"),
    ("semantic_similarity", "default", "reference.agreement:SemanticSimilarity"),
    ("factual_correctness", "default", "reference.agreement:FactualCorrectness"),
    ("nuggets", "default", "nuggets:Nuggets"),
    ("citation", "default", "citation:Citation"),
    ("hallucination", "default", "grounding:Hallucination"),
    ("no_answer", "default", "relevance:NoAnswer"),
    ("answer_accuracy", "default", "reference.agreement:AnswerAccuracy"),
    ("context_relevance", "default", "retrieval:ContextRelevance"),
    ("response_groundedness", "default", "grounding:ResponseGroundedness"),
    ("consistency", "default", "consistency:Consistency"),
    ("consistency", "lexical", "consistency:LexicalConsistency"),
    ("rubric", "default", "rubric:Rubric"),
    ("turn_faithfulness", "default", "conversation:TurnFaithfulness"),
    ("turn_relevancy", "default", "conversation:TurnRelevancy"),
    ("knowledge_retention", "default", "conversation:KnowledgeRetention"),
    ("conversation_consistency", "default", "conversation:ConversationConsistency"),
    ("passage_recall", "default", "expectations:PassageRecall"),
    ("abstention", "default", "expectations:Abstention"),
)

#: Metrics computed from other results rather than judged (``rag_judge.overall_score``): not
#: registered as Metric classes, but they take thresholds like the others.
COMPUTED: tuple[str, ...] = ("overall_score",)

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

#: Aliases that still resolve as they did but warn once: alias -> (the alias to use, why). An alias
#: means one metric, and ``grounded`` clashed with ``assert_grounded``.
DEPRECATED_ALIASES: dict[str, tuple[str, str]] = {
    "grounded": (
        "faithful",
        "'grounded' means faithfulness, but rag_judge.assert_grounded checks response_groundedness",
    ),
}


def metric_names() -> tuple[str, ...]:
    """Every built-in metric name that takes a threshold, judged or computed, in catalog order."""
    return tuple(dict.fromkeys([name for name, _, _ in CATALOG] + list(COMPUTED)))


def builtin_metrics() -> tuple[type[Metric], ...]:
    """The classes of the catalog, imported on first use (not memoised here: the registry keeps
    them for the session, and a module imported afresh must give its classes afresh)."""
    classes = []
    for _, _, where in CATALOG:
        module, _, name = where.partition(":")
        classes.append(getattr(importlib.import_module(f"{__package__}.{module}"), name))
    return tuple(classes)


def resolve_metric(name: str, mode: str | None = None) -> tuple[str, str | None]:
    """(metric name, mode) for a registered name or a short alias; an explicit mode wins."""
    if name in DEPRECATED_ALIASES:
        from ..deprecation import warn_renamed

        replacement, why = DEPRECATED_ALIASES[name]
        warn_renamed(f"the metric alias {name!r}", repr(replacement), why)
    canonical, alias_mode = ALIASES.get(name, (name, None))
    return canonical, mode if mode is not None else alias_mode
