"""Response groundedness: two ratings of the answer's grounding in the contexts, averaged."""

from __future__ import annotations

from typing import Any

from ...helper_forms import Check, score_form
from ...inputs import ContextLike, Sample
from ..base import Scale
from ..dual_rating import DualTemplateMetric, ThreeLevelRating
from ..prompts import SHORT_REASON, Template, block, context_blocks

GROUNDED_1 = Template(
    id="response_groundedness.template1",
    version="1",
    task=(
        "Task: rate how well the answer is grounded in the retrieved contexts: whether each of its "
        "statements can be found in, or inferred from, the contexts."
    ),
    scale=(
        "Ratings:\n"
        "2 - fully grounded: every statement is found in or inferred from the contexts.\n"
        "1 - partly grounded.\n"
        "0 - not grounded in the contexts at all."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)


GROUNDED_2 = Template(
    id="response_groundedness.template2",
    version="1",
    task=(
        "Task: check the answer against the source passages. Could a reader who has only these "
        "passages confirm what the answer says? Use only the passages, not your own knowledge."
    ),
    scale=(
        "Ratings:\n"
        "0 - no statement of the answer can be confirmed from the passages.\n"
        "1 - some statements can be confirmed, others cannot.\n"
        "2 - every statement can be confirmed."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)


class ResponseGroundedness(DualTemplateMetric):
    """Is the answer grounded in the retrieved contexts?

    The NVIDIA metric of RAGAS: two 0/1/2 ratings of the answer against the contexts by two
    differently worded templates, averaged (:mod:`.dual_rating`).
    """

    name = "response_groundedness"
    scale = Scale(0, 2)
    default_threshold = 1
    required = ("answer", "contexts")
    templates = (GROUNDED_1, GROUNDED_2)
    verdict = ThreeLevelRating

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([context_blocks(sample.contexts), block("answer", sample.answer)])
        return user, {"answer": sample.answer, "contexts": [c.text for c in sample.contexts]}


class ResponseGroundednessHelpers:
    """The ``rag_judge`` helpers of response groundedness."""

    @score_form("response_groundedness")
    def response_groundedness(
        self, output: str, context: ContextLike, threshold: float | None = None
    ) -> Check:
        """Two 0/1/2 judgments of the answer's grounding in the contexts, averaged."""
        return Check(answer=output, context=context, threshold=threshold)

    assert_grounded, aresponse_groundedness, aassert_grounded = response_groundedness.other_forms()
