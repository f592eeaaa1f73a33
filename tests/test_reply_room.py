"""The room a reply gets (``max_tokens``) grows with what it must hold.

A reply cut off at its limit holds no verdict; a fixed limit cuts off the reply about many claims or
passages, and the list of statements restating a long answer. The room stays at the usual 1024 (one
verdict) or 2048 (a list) for what a usual check asks, so those requests keep their cache keys.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.grounding import FaithfulnessClaims
from pytest_rag.metrics.judging import room_for, room_to_restate
from stand_in_asker import StandInAsker, V


class Claims(StandInAsker):
    """Extraction gives ``n`` claims; every verification names each claim once, supported."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def answer(self, request: JudgeRequest, model: type[V]) -> V:
        if "claims" in model.model_fields:
            return model.model_validate({"claims": [f"claim {i}" for i in range(self.n)]})
        count = len(request.task.inputs["claims"])
        rows: list[dict[str, Any]] = [
            {"index": i, "reasoning": "r", "support": "supported"} for i in range(1, count + 1)
        ]
        return model.model_validate({"verdicts": rows})


def rooms(asker: Claims, answer: str) -> list[tuple[str, int]]:
    sample = Sample(answer=answer, contexts=(Chunk("context"),))
    asyncio.run(FaithfulnessClaims().score(asker, sample, {}))
    return [(r.template_id.rsplit(".", 1)[-1], r.sampling.max_tokens) for r in asker.requests]


def test_a_short_answer_and_a_few_claims_keep_the_usual_room() -> None:
    assert rooms(Claims(3), "It is red. It is big.") == [("extract", 2048), ("verify", 1024)]


def test_a_long_answer_and_many_claims_get_room_for_all_of_them() -> None:
    answer = "The tower was built long ago by many workers, in the year 1889. " * 200
    assert len(answer) == 12_800
    assert rooms(Claims(20), answer) == [("extract", 256 + 6400), ("verify", 256 + 160 * 20)]


def test_room_grows_with_the_items_and_never_falls_below_the_least() -> None:
    assert room_for(0) == room_for(4) == 1024
    assert room_for(10) == 1856 and room_for(10, per_item=40) == 1024
    assert room_for(1, least=2048) == 2048
    assert room_to_restate("short") == 2048 and room_to_restate("x" * 10_000) == 5256
