"""A condition the context puts on a claim, which an answer that copies the claim leaves out.

"The Pro plan costs $12 per month when billed annually" and the answer "The Pro plan costs $12 per
month": every word of the answer is found in one context sentence, so the lexical evidence, the
word vectors and the entailment model (which reads the premise as holding more than the claim) rate
it supported, yet the answer states without its condition what the context states with one. A
condition here is a clause opened by "if", "unless", "provided (that)", "as long as", "only when",
or a "when" before a participle ("when billed annually", "when taken with food"); a "when" before
a subject is mostly a time ("moved to Memphis when he was 13"), which an answer about the rest of
the sentence may leave out. The clause runs to the next comma, semicolon or sentence end. The answer drops it when it says none
of the clause's content words (by stem) and states no condition of its own. Only the context
sentence the answer copies is read: a condition of its neighbour in the span is another claim's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...scoring.text import content_words, split_sentences, tokenize
from .lexical import cached_stem

_CONDITION = re.compile(
    r"\b(?:if|unless|provided(?: that)?|as long as|only when)\b"
    r"|\b(?:when|whenever)(?=\s+(?:\w+(?:ed|en)|paid|sold|made|bought|held|sent|kept|built)\b)",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[,;:.!?]")
_ANSWER_CONDITION_WORDS = frozenset({"if", "unless", "provided", "when", "whenever", "only"})


def dropped_condition(answer_tokens: Sequence[str], span_text: str) -> str:
    """The condition clause of ``span_text`` (the context span the answer restates) that the
    answer leaves out, as written in the context; "" when there is none or the answer states it
    (any of its content words) or a condition of its own."""
    if any(t in _ANSWER_CONDITION_WORDS for t in answer_tokens):
        return ""
    said = {cached_stem(t) for t in answer_tokens}
    # a span may be two or three sentences: the condition must be the copied sentence's own
    copied = max(split_sentences(span_text) or [span_text], key=lambda s: len(said & _stems(s)))
    for found in _CONDITION.finditer(copied):
        rest = copied[found.end() :]
        end = _CLAUSE_END.search(rest)
        clause = rest[: end.start()] if end else rest
        words = content_words(tokenize(clause))
        if words and not any(cached_stem(w) in said for w in words):
            return f"{found.group().strip()} {clause.strip()}"
    return ""


def _stems(text: str) -> set[str]:
    return {cached_stem(t) for t in tokenize(text)}
