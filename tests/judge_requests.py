"""The judge request the judge and engine tests send, and the verdicts it asks for.

Those tests need a request of one shape (a system prompt, the answer in ``<answer>`` tags, a
faithfulness task) and differ only in the verdict they ask for, the answer, the template and the
sampling; building it here keeps the shape one, so a change of :class:`JudgeRequest` is made once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from pytest_rag.judges.protocol import Judge, JudgeReply
from pytest_rag.judges.request import JudgeRequest, JudgeTask, Message, Sampling


class GradeVerdict(BaseModel):
    """A verdict of reasoning and a grade from 1 to 5."""

    reasoning: str
    score: int = Field(ge=1, le=5)


class ClaimsVerdict(BaseModel):
    """A faithfulness-shaped verdict: the grade, and the statements the contexts do not back."""

    reasoning: str
    unsupported_statements: list[str]
    score: int = Field(ge=1, le=5)


def grading_request(
    response_model: type[BaseModel],
    text: str = "yes",
    *,
    template_id: str = "t",
    system: str = "Grade it.",
    inputs: Mapping[str, Any] | None = None,
    sampling: Sampling | None = None,
) -> JudgeRequest:
    """A faithfulness request grading the answer ``text`` into ``response_model``."""
    return JudgeRequest(
        metric="faithfulness",
        template_id=template_id,
        template_version="1",
        messages=(Message("system", system), Message("user", f"<answer>\n{text}\n</answer>")),
        response_model=response_model,
        task=JudgeTask("faithfulness.single", dict(inputs or {})),
        sampling=sampling or Sampling(),
    )


def complete_each(judge: Judge, *requests: JudgeRequest) -> list[JudgeReply]:
    """``judge``'s replies to ``requests``, asked one after the other on a fresh event loop, its
    clients closed after."""

    async def go() -> list[JudgeReply]:
        try:
            return [await judge.complete(r) for r in requests]
        finally:
            await judge.aclose()

    return asyncio.run(go())
