"""Token log-probabilities of the fake chat completions (a request with ``logprobs: true``).

The content is cut into tokens roughly the way GPT tokenisers cut text: a run of letters with the
punctuation mark before it, digits in groups of up to three, runs of other punctuation, whitespace.
Only a reply that scripts the odds of a top-level value has log-probabilities
(``Reply.json({...}, odds={"score": {4: 0.6, 5: 0.3, 3: 0.1}})``): that value's token carries them,
most likely first, as its ``top_logprobs``, and its own log-probability is its scripted one; every
other token is certain (log-probability 0).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from .wire import ScriptMisuseError

_TOKEN = re.compile(r"[^\s\w]?[^\W\d]+|\d{1,3}| ?[^\s\w]+|\s+")


def value_offsets(value: Mapping[str, object]) -> dict[str, int]:
    """Where each top-level value starts in ``json.dumps(value)`` (default separators)."""
    offsets: dict[str, int] = {}
    position = 1  # after "{"
    for index, (key, item) in enumerate(value.items()):
        if index:
            position += len(", ")
        position += len(json.dumps(key)) + len(": ")
        offsets[key] = position
        position += len(json.dumps(item))
    return offsets


def content_logprobs(
    content: str, top: int, odds_at: Mapping[int, Mapping[str, float]]
) -> list[dict[str, Any]]:
    """The ``logprobs.content`` list of a completion: one entry per token with up to ``top``
    alternatives; ``odds_at`` maps a character offset to the probabilities of the tokens that could
    start there (the token found there must be one of them)."""
    entries = []
    for match in _TOKEN.finditer(content):
        token = match.group()
        odds = odds_at.get(match.start())
        if odds is None:
            ranked = [(token, 0.0)]
        elif token not in odds:
            raise ScriptMisuseError(
                f"the scripted odds at offset {match.start()} name {sorted(odds)}, but the token there is "
                f"{token!r}; script odds for a value written as one token (a grade of 1-3 digits)"
            )
        else:
            ranked = sorted(((text, math.log(p)) for text, p in odds.items()), key=lambda pair: -pair[1])
        entries.append(
            {
                "token": token,
                "logprob": dict(ranked)[token],
                "bytes": list(token.encode("utf-8")),
                "top_logprobs": [
                    {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}
                    for text, logprob in ranked[:top]
                ],
            }
        )
    return entries
