"""Reference: does the answer say what the reference (gold) answer says?

* ``context_recall`` (:mod:`.context_recall`): one 1-5 judgment of how many of the reference's key
  facts the answer covers; in mode ``attribution``, each fact attributed to the context stating it.
* ``answer_similarity``, ``semantic_similarity`` and ``answer_accuracy`` (:mod:`.similarity`): how
  closely the answer matches the reference in meaning, judged 0-5, by embeddings, or rated twice.
* ``factual_correctness`` (:mod:`.factual_correctness`): the claims of both texts, each side's
  checked for entailment by the other.
"""

from __future__ import annotations

from .context_recall import ContextRecallHelpers
from .factual_correctness import FactualCorrectnessHelpers
from .similarity import SimilarityHelpers


class ReferenceHelpers(ContextRecallHelpers, SimilarityHelpers, FactualCorrectnessHelpers):
    """The ``rag_judge`` helpers of the reference metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""
