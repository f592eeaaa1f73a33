"""The kinds of answer a grounding check can be told it is judging (``answer_kind=``).

A judge that sets its pass mark from labelled data (the offline one) finds that one mark does not
fit every kind of text: a multi-sentence summary that copies its article passes too easily, a
chatty reply that restates its knowledge in other words fails too often. So the offline judge reads
the kind from the answer, and a user who knows better can name it. The names live here, apart from
any judge, so a metric can check a user's value before anything is asked.
"""

from __future__ import annotations

from typing import Any

from .errors import InputError

ANSWER_KINDS: dict[str, str] = {
    "short": "one or two plain sentences answering a question",
    "summary": "three or more sentences that restate a document",
    "conversational": "a chat reply: first person, 'yeah', '!' or a question back",
}
"""Each kind of answer, with what it describes (quoted by the error for a wrong value)."""


def check_answer_kind(value: Any, where: str) -> str | None:
    """``value`` when it names a kind (None stays None: the judge reads the kind from the answer);
    otherwise an input error naming the allowed values and ``where`` the value was given."""
    if value is None:
        return None
    if isinstance(value, str) and value in ANSWER_KINDS:
        return value
    allowed = "; ".join(f"{name!r} ({meaning})" for name, meaning in ANSWER_KINDS.items())
    raise InputError(
        f"{where}: answer_kind must be one of {allowed}, or left out to let the judge read the kind "
        f"from the answer; got {value!r}"
    )
