"""A text split into statements by one judge call, and numbered statements judged in one call.

The claim-based metrics of several families work this way: the answer's claims (faithfulness in
claims mode), its main points (answer consistency), the reference's facts (context recall by
attribution), both texts' claims (factual correctness). Each asks with its own template, and every
one of them receives a :class:`ClaimList`. The statements then go back to the judge numbered (many
at once in batches, as faithfulness by claims and the nugget labels ask), and a reply must name each
number exactly once.

That rule is checked while the reply is parsed into its verdict (:func:`numbered_reply`), not after:
a reply numbered from 0, or one that skips an item, is then an invalid verdict like a malformed one,
so the engine asks for a repair and never caches it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, create_model, model_validator
from pydantic_core import PydanticCustomError

from .base import Asker
from .judging import ITEM_TOKENS, REPLY_TOKENS, batches, judge_request, room_for, room_to_restate
from .prompts import Template, block, numbered_list
from .verdict_shapes import NumberedVerdictsQuestion


class ClaimList(BaseModel):
    claims: list[str] = Field(description="the atomic factual claims, each a standalone sentence")


def claim_list_fields(asked: str) -> dict[str, str]:
    """The template fields of an extraction: the one list :class:`ClaimList` reads (``asked`` says
    what it holds), so every extraction template asks for the field its reply is validated by."""
    (listed,) = ClaimList.model_fields
    return {listed: asked}


async def extract_statements(
    ask: Asker,
    metric: str,
    template: Template,
    tag: str,
    text: str,
    question: str = "",
    contexts: Sequence[str] = (),
    *,
    show_question: bool = False,
) -> list[str]:
    """One extraction call; blank items are dropped (they carry no statement). ``question`` and
    ``contexts`` go to the task inputs (the offline judge reads a bare "yes" with the question and
    words its claim after the contexts); with ``show_question`` the question also opens the prompt,
    for a template that says it is shown only to read what the text asserts."""
    inputs: dict[str, Any] = {"text": text}
    user = block(tag, text)
    if question:
        inputs.update(question=question, contexts=list(contexts))
        if show_question:
            user = "\n\n".join([block("question", question), user])
    request = judge_request(metric, template, user, ClaimList, inputs, max_tokens=room_to_restate(text))
    verdict = await ask(request, ClaimList)
    return [c.strip() for c in verdict.claims if c.strip()]


@dataclass(frozen=True)
class NumberedQuestion:
    """A question about numbered items: each item a ``tag`` block after the ``head`` blocks, the
    reply a model whose one field lists a verdict per item, naming its number (``what`` names the
    items in the error when a reply does not). The parts every batch of items shares, said once."""

    metric: str
    template: Template
    head: Sequence[str]
    tag: str
    what: str
    max_tokens: int = REPLY_TOKENS
    """The least room of a reply; a reply about many items gets ``item_tokens`` more for each."""
    item_tokens: int = ITEM_TOKENS
    reply: type[BaseModel] | None = None
    """The reply model, for a template declared without one; a
    :class:`~.verdict_shapes.NumberedVerdictsQuestion` carries its own."""
    item_check: ItemCheck | None = None
    """What else one item's verdict must hold (a context number that exists), checked with the
    numbering as the reply is parsed."""

    @property
    def model(self) -> type[BaseModel]:
        if isinstance(self.template, NumberedVerdictsQuestion):
            return self.template.verdict
        if self.reply is None:
            raise TypeError(f"{self.template.id} does not carry its reply model; pass reply=")
        return self.reply

    async def judge(self, ask: Asker, items: Sequence[str], inputs: Mapping[str, Any]) -> list[Any]:
        """One call about ``items``; the verdicts of the reply in the order of the items."""
        user = "\n\n".join([*self.head, numbered_list(self.tag, list(items))])
        model = numbered_reply(self.model, len(items), self.what, self.item_check)
        room = room_for(len(items), self.item_tokens, self.max_tokens)
        request = judge_request(self.metric, self.template, user, model, inputs, max_tokens=room)
        reply = await ask(request, model)
        (listed,) = type(reply).model_fields
        return sorted(getattr(reply, listed), key=lambda v: int(v.index))

    async def judge_in_batches(
        self,
        ask: Asker,
        items: Sequence[str],
        size: int,
        inputs_of: Callable[[int, Sequence[str]], Mapping[str, Any]],
    ) -> list[Any]:
        """:meth:`judge` over ``items`` cut into batches of at most ``size``, all batches asked
        concurrently; every verdict in the order of the items. ``inputs_of`` gives a batch's task
        inputs from the index of its first item and its items."""
        replies = await ask.gather(
            *(self.judge(ask, chunk, inputs_of(start, chunk)) for start, chunk in batches(items, size))
        )
        return [verdict for ordered in replies for verdict in ordered]


class ItemCheck:
    """A check of one numbered verdict beyond its number: called with the verdict, it says what is
    wrong with it (None when nothing is). Instances are compared and hashed by value (a frozen
    dataclass), since each distinct check makes its own reply model."""

    def __call__(self, verdict: Any) -> str | None:
        raise NotImplementedError


@functools.lru_cache(maxsize=256)
def numbered_reply(
    model: type[BaseModel], count: int, what: str, item_check: ItemCheck | None = None
) -> type[BaseModel]:
    """``model`` (one list of verdicts, each naming its item's 1-based ``index``) as the reply about
    ``count`` items (``what`` names them): the same name, fields and docstring, so the same schema
    and cache key, and a validator that rejects a reply unless it names every number from 1 to
    ``count`` exactly once and every verdict passes ``item_check``. The reply is then rejected
    while it is parsed, where the engine's repair turn sees it and its cache never does."""
    (listed,) = model.model_fields

    def check(reply: BaseModel) -> BaseModel:
        verdicts = list(getattr(reply, listed))
        numbers = [int(v.index) for v in verdicts]
        if sorted(numbers) != list(range(1, count + 1)):
            raise PydanticCustomError(
                "numbering",
                "the verdicts are numbered {numbers} but there are {count} {what} (1-{count}); give "
                "every one exactly one verdict, numbered as they are",
                {"numbers": str(numbers), "count": count, "what": what},
            )
        for verdict in verdicts if item_check is not None else ():
            problem = item_check(verdict)  # type: ignore[misc]
            if problem is not None:
                raise PydanticCustomError("item", "{problem}", {"problem": problem})
        return reply

    checked: type[BaseModel] = create_model(
        model.__name__,
        __base__=model,
        __module__=model.__module__,
        __doc__=model.__doc__,
        __validators__={"numbered": model_validator(mode="after")(check)},  # type: ignore[dict-item]
    )
    return checked
