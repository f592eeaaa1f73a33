"""Grounding: is what the answer says backed by its retrieved contexts?

* ``faithfulness`` (:mod:`.faithfulness`): one 1-5 judgment of the answer against the contexts; in
  mode ``claims``, the answer's claims verified against the contexts, scored supported / total.
* ``hallucination`` (:mod:`.hallucination`): a 0-1 factual-consistency score.
* ``answer_consistency`` and ``answer_consistency_binary`` (:mod:`.answer_consistency`): the share
  of the answer's main points attributable to the contexts; whether anything is not derived from them.
* ``response_groundedness`` (:mod:`.response_groundedness`): two 0/1/2 ratings, averaged.

Where a judge names the answer's unsupported statements, the evidence keeps them
(:class:`~.faithfulness.UnsupportedStatements`) and the HTML report marks them in the answer.
"""

from __future__ import annotations

from .answer_consistency import AnswerConsistencyHelpers
from .faithfulness import FaithfulnessHelpers
from .hallucination import HallucinationHelpers
from .response_groundedness import ResponseGroundednessHelpers


class GroundingHelpers(
    FaithfulnessHelpers, HallucinationHelpers, AnswerConsistencyHelpers, ResponseGroundednessHelpers
):
    """The ``rag_judge`` helpers of the grounding metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""
