"""Numbered items judged in batches (faithfulness by claims, the nugget labels): each batch is one
question, and the verdicts come back in the items' order however a reply orders them."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel, Field

from pytest_rag.errors import JudgeError
from pytest_rag.judges.request import JudgeRequest
from pytest_rag.metrics.prompts import Template
from pytest_rag.metrics.statements import NumberedQuestion
from stand_in_asker import StandInAsker, V

T = TypeVar("T")

ASK = Template(id="test.numbered", version="1", task="Task: say each item back.", fields={"verdicts": "list"})


class Echo(BaseModel):
    index: int
    said: str


class Echoes(BaseModel):
    verdicts: list[Echo] = Field(description="one per item")


class ReversingAsker(StandInAsker):
    """Answers every numbered question with its items said back, last number first; ``drop`` leaves
    that number out of every reply (a judge that skipped an item)."""

    judge_label = "reversing"

    def __init__(self, drop: int | None = None) -> None:
        super().__init__()
        self.drop = drop

    def answer(self, request: JudgeRequest, model: type[V]) -> V:
        items = re.findall(r'<item index="(\d+)">\n(.*?)\n</item>', request.messages[-1].content)
        echoed = [{"index": int(i), "said": text} for i, text in items if int(i) != self.drop]
        return model.model_validate({"verdicts": echoed[::-1]})

    async def gather(self, *awaitables: Awaitable[T]) -> list[T]:
        return list(await asyncio.gather(*awaitables))


def inputs_of(start: int, chunk: Sequence[str]) -> dict[str, Any]:
    return {"first": start, "items": list(chunk)}


def judged(asker: ReversingAsker, items: Sequence[str], size: int) -> list[Any]:
    return asyncio.run(
        NumberedQuestion("m", ASK, ["<head/>"], "item", "items", reply=Echoes).judge_in_batches(
            asker, items, size, inputs_of
        )
    )


def test_every_batch_is_one_question_and_the_verdicts_keep_the_items_order() -> None:
    asker = ReversingAsker()
    items = ["a", "b", "c", "d", "e"]
    verdicts = judged(asker, items, size=2)
    assert [v.said for v in verdicts] == items
    assert [dict(r.task.inputs) for r in asker.requests] == [
        {"first": 0, "items": ["a", "b"]},
        {"first": 2, "items": ["c", "d"]},
        {"first": 4, "items": ["e"]},
    ]
    assert all(r.messages[-1].content.startswith("<head/>\n\n") for r in asker.requests)


def test_a_batch_whose_reply_skips_an_item_is_a_judge_error() -> None:
    with pytest.raises(JudgeError, match="numbered \\[1\\] but there are 2 items"):
        judged(ReversingAsker(drop=2), ["a", "b", "c"], size=2)


def test_no_items_asks_nothing() -> None:
    asker = ReversingAsker()
    assert judged(asker, [], size=3) == []
    assert asker.requests == []
