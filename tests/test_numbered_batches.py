"""Numbered items judged in batches (faithfulness by claims, the nugget labels): each batch is one
question, and the verdicts come back in the items' order however a reply orders them."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel, Field, ValidationError

from pytest_rag.judges.request import JudgeRequest
from pytest_rag.judges.schema import provider_schema_json
from pytest_rag.metrics.prompts import Template
from pytest_rag.metrics.statements import NumberedQuestion, numbered_reply
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


def test_a_batch_whose_reply_skips_an_item_is_not_a_valid_reply() -> None:
    """The reply model a batch is asked with rejects it as it is read (where the engine's repair
    turn sees it, and its cache never does), not the metric after it was accepted."""
    with pytest.raises(ValidationError, match="numbered \\[1\\] but there are 2 items"):
        judged(ReversingAsker(drop=2), ["a", "b", "c"], size=2)


def test_the_reply_model_of_a_batch_keeps_the_schema_and_so_the_cache_key() -> None:
    checked = numbered_reply(Echoes, 3, "items")
    assert checked is numbered_reply(Echoes, 3, "items")  # one model per count, made once
    assert provider_schema_json(checked) == provider_schema_json(Echoes)
    assert checked.model_validate({"verdicts": [{"index": i, "said": "x"} for i in (3, 1, 2)]})
    with pytest.raises(ValidationError, match=r"numbered \[0, 1, 2\] but there are 3 items \(1-3\)"):
        checked.model_validate({"verdicts": [{"index": i, "said": "x"} for i in (0, 1, 2)]})
    with pytest.raises(ValidationError, match=r"numbered \[1, 1, 3\]"):  # a number twice
        checked.model_validate({"verdicts": [{"index": i, "said": "x"} for i in (1, 1, 3)]})


def test_no_items_asks_nothing() -> None:
    asker = ReversingAsker()
    assert judged(asker, [], size=3) == []
    assert asker.requests == []
