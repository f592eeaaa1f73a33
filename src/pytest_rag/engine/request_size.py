"""The largest request pytest-rag sends a judge, checked where every provider's request passes.

A 5 MB context used to be sent as it was: billed (or refused by the provider after the upload) for a
check whose inputs were almost surely a mistake, a whole document passed where its retrieved passages
were meant. :func:`check_request` runs in the engine before a request goes anywhere (a live call of
any provider, a request queued for a provider batch, a repair request, and the dry run's count) and
refuses one whose messages hold more than ``--rag-max-request-chars`` characters
(:attr:`~.limits.EngineSettings.max_request_chars`), naming its size, the limit, its largest input
and the two ways out. The offline judges send nothing and are not held to it (the offline judge
bounds its own work: docs/offline-judge.md).

It is also the last guard against text that cannot be encoded: the inputs of a check are checked
where they are read (:func:`~pytest_rag.inputs.require_text`), but a metric's options (a rubric's
criteria, a list of nuggets) reach the messages too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import JudgeError
from ..inputs import require_text

if TYPE_CHECKING:
    from ..judges.protocol import Judge
    from ..judges.request import JudgeRequest


class RequestTooLargeError(JudgeError):
    """A request above ``--rag-max-request-chars``: not sent, so no verdict (and nothing spent)."""


def _largest_input(request: JudgeRequest) -> str:
    """``, most of it the contexts (4,999,120 characters)``: the input that makes the request large."""
    sizes: dict[str, int] = {}
    for name, value in request.task.inputs.items():
        if isinstance(value, str):
            sizes[name] = len(value)
        elif isinstance(value, (list, tuple)):
            sizes[name] = sum(len(item) for item in value if isinstance(item, str))
    if not sizes:
        return ""
    name = max(sizes, key=sizes.__getitem__)
    return f", most of it the {name} ({sizes[name]:,} characters)"


def check_request(judge: Judge, request: JudgeRequest, limit: int) -> None:
    """Raise :class:`RequestTooLargeError` for a request of ``judge`` whose messages hold more than
    ``limit`` characters, and an input error for a message that cannot be encoded."""
    if judge.offline:
        return
    size = sum(len(message.content) for message in request.messages)
    if size > limit:
        raise RequestTooLargeError(
            f"the request holds {size:,} characters{_largest_input(request)}, more than the {limit:,} "
            "a request may hold (--rag-max-request-chars); it was not sent. Pass shorter contexts (the "
            "retrieved passages, not whole documents) or a shorter answer, or raise the limit with "
            "--rag-max-request-chars=N (ini rag_max_request_chars) for a judge whose context window "
            "holds it",
            judge=judge.spec.label,
            metric=request.metric,
            kind="request too large",
        )
    for number, message in enumerate(request.messages, start=1):
        require_text(message.content, f"message {number} ({message.role}) of the request", allow_empty=True)
