"""The arithmetic of RAG metrics, separated from the judges that produce their inputs.

Judges decide whether a passage is relevant, a nugget is supported or a citation holds;
these functions turn those decisions into scores. They are pure and deterministic, never
return NaN, and return None where a score has nothing to measure.
"""

from pytest_rag.scoring.citations import (
    SUPPORT_SCORES,
    CitationScores,
    CitationSupport,
    citation_scores,
    citation_support_score,
)
from pytest_rag.scoring.dispersion import Dispersion, dispersion
from pytest_rag.scoring.fscore import PrecisionRecallF1, f1_score, precision_recall_f1
from pytest_rag.scoring.grade_odds import GradeOdds
from pytest_rag.scoring.nuggets import (
    ASSIGNMENT_SCORES,
    OKAY_WEIGHT,
    Assignment,
    Importance,
    NuggetJudgement,
    NuggetScores,
    nugget_scores,
)
from pytest_rag.scoring.ranking import (
    RELEVANCE_THRESHOLD,
    average_precision,
    average_precision_at_k,
    binary_relevance,
    precision_at_k,
    reciprocal_rank,
)

__all__ = [
    "ASSIGNMENT_SCORES",
    "OKAY_WEIGHT",
    "RELEVANCE_THRESHOLD",
    "SUPPORT_SCORES",
    "Assignment",
    "CitationScores",
    "CitationSupport",
    "Dispersion",
    "GradeOdds",
    "Importance",
    "NuggetJudgement",
    "NuggetScores",
    "PrecisionRecallF1",
    "average_precision",
    "average_precision_at_k",
    "binary_relevance",
    "citation_scores",
    "citation_support_score",
    "dispersion",
    "f1_score",
    "nugget_scores",
    "precision_at_k",
    "precision_recall_f1",
    "reciprocal_rank",
]
