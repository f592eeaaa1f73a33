"""Does a reference give what its question asks for? A check that reads only the two texts.

A generated case is kept only when a check that did not write its reference agrees that the
reference answers the question (:mod:`.metric`). This one reads the question's wh-word and looks in
the reference for a thing of that kind which the question does not already hold: a number for
"how many" and "how much", a version for "which version", a year, a date or a clause of time for
"when" and "in which year", a means for "how" ("by ...", "using ...", "with ..."), and for "what",
"which", "who" and "where" some words the question lacks. It writes nothing and knows nothing of
how the question was made, so it applies to an LLM's cases as to the offline generator's, and a
reference that merely restates its question, or answers another one, fails it.
"""

from __future__ import annotations

import re

from ...scoring.text import STOPWORDS, stem, tokenize

_WH_RE = re.compile(
    r"(?:^|,\s+|\band\s+)(?:[a-z]+\s+)?(how many|how much|how long|how often|which versions?|"
    r"(?:in|since|until|by|before|after|from) which year|what percentage|what time|when|where|who|why|how|which|what)\b",
    re.I,
)
_NUMBER_RE = re.compile(
    r"(?<![\w/.-])(?:\d[\d,]*(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred)(?![\w/-])",
    re.I,
)
_MONEY_RE = re.compile(r"[$€£]\s?\d")
_VERSION_RE = re.compile(r"\d+(?:\.\d+)+\+?|\d+\+")
_TIME_RE = re.compile(
    r"\b(?:(?:1[89]|20)\d\d|january|february|march|april|june|july|august|september|october|november|"
    r"december|when|whenever|after|before|until|once|during|while|if)\b",
    re.I,
)
_MEANS_RE = re.compile(r"\b(?:by|using|with|via|through)\b|\b\w+ing\b", re.I)
MIN_NEW_WORDS = 2
"""Content words a reference must add to its question for a "what" question to be answered."""


_AUXILIARY_RE = re.compile(
    r"\s+(?:is|are|was|were|can|could|will|would|should|may|might|must|shall|has|have|had|does|do|did)\b",
    re.I,
)


def asked_kind(question: str) -> str:
    """The wh-phrase ``question`` asks with, lower-cased ("how many", "when", "what" ...), or
    "yes or no" for a question that starts with its auxiliary ("Can links expire?"): a "when",
    "where", "who", "why" or "how" counts when an auxiliary follows it, so "When X is set, what
    ...?" asks "what"."""
    for found in _WH_RE.finditer(question):
        kind = found.group(1).lower()
        if kind in ("when", "where", "who", "why", "how") and not _AUXILIARY_RE.match(question, found.end()):
            continue
        return kind
    return "yes or no" if _AUXILIARY_RE.match(" " + question) and question.rstrip().endswith("?") else ""


def _new(pattern: re.Pattern[str], question: str, reference: str) -> bool:
    asked = {m.lower() for m in pattern.findall(question)}
    return any(m.lower() not in asked for m in pattern.findall(reference))


def gives_what_is_asked(question: str, reference: str) -> str | None:
    """None when ``reference`` gives the kind of thing ``question`` asks for and the question does
    not already hold it; else the reason, in a few words."""
    kind = asked_kind(question)
    if not kind:
        return "the question asks for nothing (no wh-word)"
    question = re.sub(
        rf"\b{re.escape(kind)}\b", " ", question, count=1, flags=re.I
    )  # the wh-word is no answer
    asked = {stem(t) for t in tokenize(question)}
    new_words = [t for t in tokenize(reference) if t not in STOPWORDS and stem(t) not in asked]
    if len(new_words) < 1:
        return "the reference adds nothing to its question"
    if kind in ("how many", "what percentage", "how long", "how often") and not (
        _new(_NUMBER_RE, question, reference) or (kind != "how many" and _new(_TIME_RE, question, reference))
    ):
        return f'the reference gives no number for "{kind}"'
    if kind == "how much" and not (
        _new(_MONEY_RE, question, reference) or _new(_NUMBER_RE, question, reference)
    ):
        return 'the reference gives no amount for "how much"'
    if kind.startswith("which version") and not (
        _new(_VERSION_RE, question, reference) or len(set(new_words)) >= MIN_NEW_WORDS
    ):
        return "the reference gives no version"  # nor words that name them ("all supported versions")
    if (kind in ("when", "what time") or kind.endswith("which year")) and not _new(
        _TIME_RE, question, reference
    ):
        return f'the reference gives no time for "{kind}"'
    if kind == "how" and not _new(_MEANS_RE, question, reference):
        return 'the reference gives no means for "how"'
    if kind in ("what", "which", "who", "where", "why") and len(set(new_words)) < MIN_NEW_WORDS:
        return f'the reference adds fewer than {MIN_NEW_WORDS} words to its "{kind}" question'
    return None
