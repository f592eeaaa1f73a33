"""How sure the judge was of its grade: the token that wrote a verdict's ``score``, and the
alternatives the model weighed there.

A JSON verdict is generated token by token, so its grade is written by one token, which tokenisers
may merge with the ``":`` before it or the ``,`` after it. :func:`score_alternatives` finds the
top-level ``score`` value in the reply's JSON, the token whose bytes cover it, and returns that
token's alternatives. Only those few pairs are stored in the cache with the reply (not every token's
alternatives), so a replay gives the very same odds; :func:`grade_odds` turns them into a
distribution over the verdict's grades.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel

from ..judges.protocol import JudgeReply, TokenLogprob
from ..judges.schema import GRADE_FIELD, verdict_grades
from ..scoring.grade_odds import GradeOdds
from .cache import CachedReply
from .parsing import extract_json_text

_INTEGER = re.compile(r"-?\d+(?![\d.eE])")


def score_alternatives(reply: JudgeReply) -> tuple[tuple[str, float], ...] | None:
    """The ``(token, log-probability)`` alternatives at the token that wrote the reply's top-level
    ``score``; None when the reply carries no log-probabilities or alternatives, has no integer
    ``score``, or writes it across two tokens (then no one token says how likely each grade was)."""
    if not reply.logprobs:
        return None
    start = _value_offset(reply.text, GRADE_FIELD)
    if start is None:
        return None
    if reply.text.startswith('"', start):  # "4": a grade written as a string, which validation accepts
        start += 1
    digits = _INTEGER.match(reply.text, start)
    if digits is None:
        return None
    first = len(reply.text[:start].encode("utf-8"))
    last = first + len(digits.group())
    offset = 0
    for token in reply.logprobs:
        end = offset + token.size
        if offset <= first < end:
            return token.top if last <= end and token.top else None
        offset = end
    return None


def reply_of_stored(found: CachedReply) -> JudgeReply:
    """A stored reply as a judge's reply again, with the alternatives stored at its grade's token.

    The cache keeps only those alternatives, not the reply's tokens, so they ride on one token that
    spans the whole text: :func:`score_alternatives` reads the token that covers the grade, and
    finds them. A reply rebuilt without them would store the verdict again with no odds."""
    if not found.score_logprobs:
        return JudgeReply(found.text, found.input_tokens, found.output_tokens, found.model)
    whole = TokenLogprob(found.text, len(found.text.encode("utf-8")), 0.0, found.score_logprobs)
    return JudgeReply(found.text, found.input_tokens, found.output_tokens, found.model, logprobs=(whole,))


def grade_odds(model: type[BaseModel], alternatives: Sequence[tuple[str, float]] | None) -> GradeOdds | None:
    """The odds of the grades of ``model``'s verdicts from the alternatives at the grade's token;
    None when the verdict has no grade or nothing is known."""
    grades = verdict_grades(model)
    if grades is None or not alternatives:
        return None
    return GradeOdds.from_alternatives(alternatives, grades)


def _value_offset(text: str, key: str) -> int | None:
    """Where the value of ``key`` starts in ``text``, in the JSON object the verdict is read from
    (:func:`~.parsing.extract_json_text`), at the object's top level; the last one when the key is
    repeated, as a JSON reader keeps the last. None when the key is not there."""
    candidate = extract_json_text(text)
    base = text.find(candidate)
    if base < 0 or not candidate.startswith("{"):
        return None
    quoted = f'"{key}"'
    depth, found, i = 0, None, 0
    last_string = ""  # the most recent string at the top level: the key when a colon follows
    while i < len(candidate):
        char = candidate[i]
        if char == '"':
            end = _string_end(candidate, i)
            if end is None:
                break
            if depth == 1:
                last_string = candidate[i:end]
            i = end
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                break
        elif char == ":" and depth == 1 and last_string == quoted:
            value = i + 1
            while value < len(candidate) and candidate[value] in " \t\r\n":
                value += 1
            found = base + value
        i += 1
    return found


def _string_end(text: str, start: int) -> int | None:
    """The index just past the JSON string that opens at ``start``; None when it never closes."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return None
