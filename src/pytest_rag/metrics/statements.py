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
from typing import Any

from pydantic import BaseModel, Field

from ..errors import JudgeError
from .base import Asker
from .judging import batches, judge_request
from .prompts import REASONING, Template, block, numbered_list


class ClaimList(BaseModel):
    claims: list[str] = Field(description="the atomic factual claims, each a standalone sentence")


class NumberedClaimVerdict(BaseModel):
    """A verdict on one numbered claim, naming the claim before reasoning about it; a base only
    (subclasses add the decision, and their own names and docstrings are what schemas show)."""

    index: int = Field(description="number of the claim this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)


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


async def judge_numbered(
    ask: Asker,
    metric: str,
    template: Template,
    model: type[BaseModel],
    head: Sequence[str],
    tag: str,
    items: Sequence[str],
    inputs: Mapping[str, Any],
    *,
    what: str,
    max_tokens: int = 1024,
) -> list[Any]:
    """One question about numbered ``items``, each a ``tag`` block after the ``head`` blocks; the
    verdicts of the reply (a model whose one field lists them) in the order of the items."""
    user = "\n\n".join([*head, numbered_list(tag, list(items))])
    reply = await ask(judge_request(metric, template, user, model, inputs, max_tokens=max_tokens), model)
    (listed,) = type(reply).model_fields
    return verdicts_in_order(metric, ask.judge_label, getattr(reply, listed), len(items), what)


async def judge_numbered_in_batches(
    ask: Asker,
    metric: str,
    template: Template,
    model: type[BaseModel],
    head: Sequence[str],
    tag: str,
    items: Sequence[str],
    size: int,
    inputs_of: Callable[[int, Sequence[str]], Mapping[str, Any]],
    *,
    what: str,
) -> list[Any]:
    """:func:`judge_numbered` over ``items`` cut into batches of at most ``size``, all batches asked
    concurrently; the verdicts of every batch in the order of the items. ``inputs_of`` gives a
    batch's task inputs from the index of its first item and its items."""
    replies = await ask.gather(
        *(
            judge_numbered(ask, metric, template, model, head, tag, chunk, inputs_of(start, chunk), what=what)
            for start, chunk in batches(items, size)
        )
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
