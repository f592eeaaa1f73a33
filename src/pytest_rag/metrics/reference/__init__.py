"""Reference: does the answer say what the reference (gold) answer says?

* ``context_recall`` (:mod:`.context_recall`): one 1-5 judgment of how many of the reference's key
  facts the answer covers; in mode ``attribution``, each fact attributed to the context stating it.
* ``answer_similarity``, ``semantic_similarity``, ``answer_accuracy`` and ``factual_correctness``
  (:mod:`.agreement`): how closely the answer matches the reference in meaning, judged 0-5, by
  embeddings or rated twice, and whether the claims of the two texts entail each other.
"""

from __future__ import annotations

from .agreement import AgreementHelpers
from .context_recall import ContextRecallHelpers


class ReferenceHelpers(ContextRecallHelpers, AgreementHelpers):
    """The ``rag_judge`` helpers of the reference metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""
