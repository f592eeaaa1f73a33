"""A text split into statements by one judge call, and numbered statements judged in one call.

The claim-based metrics of several families work this way: the answer's claims (faithfulness in
claims mode), its main points (answer consistency), the reference's facts (context recall by
attribution), both texts' claims (factual correctness). Each asks with its own template, and every
one of them receives a :class:`ClaimList`. The statements then go back to the judge numbered (many
at once in batches, as faithfulness by claims and the nugget labels ask), and a reply must name each
number exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ..errors import JudgeError
from .base import Asker
from .judging import batches, judge_request
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
) -> list[str]:
    """One extraction call; blank items are dropped (they carry no statement). ``question`` and
    ``contexts`` go to the task inputs only (the offline judge reads a bare "yes" with the question
    and words its claim after the contexts), not into the prompt."""
    inputs: dict[str, Any] = {"text": text}
    if question:
        inputs.update(question=question, contexts=list(contexts))
    request = judge_request(metric, template, block(tag, text), ClaimList, inputs, max_tokens=2048)
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
    max_tokens: int = 1024
    reply: type[BaseModel] | None = None
    """The reply model, for a template declared without one; a
    :class:`~.verdict_shapes.NumberedVerdictsQuestion` carries its own."""

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
        request = judge_request(
            self.metric, self.template, user, self.model, inputs, max_tokens=self.max_tokens
        )
        reply = await ask(request, self.model)
        (listed,) = type(reply).model_fields
        return verdicts_in_order(self.metric, ask.judge_label, getattr(reply, listed), len(items), self.what)

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


def verdicts_in_order(metric: str, judge: str, verdicts: Sequence[Any], n: int, what: str) -> list[Any]:
    """Verdicts sorted by their 1-based index, which must name each item exactly once."""
    ordered = sorted(verdicts, key=lambda v: int(v.index))
    if [int(v.index) for v in ordered] != list(range(1, n + 1)):
        raise JudgeError(
            f"the judge's verdicts are numbered {[int(v.index) for v in verdicts]} but there are {n} {what} "
            f"(1-{n}); every one needs exactly one verdict",
            judge=judge,
            metric=metric,
        )
    return ordered
