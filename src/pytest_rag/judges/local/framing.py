"""Sentences about the answer itself ("Here is a summary of the passage:"), which claim nothing.

An LLM answer often opens by naming what follows, or says where it comes from. Such a sentence
states no fact of the world, so the contexts cannot back it, and scoring it as a claim fails an
exact summary. It is neither support nor a claim: the judge leaves it out, as a person reading the
answer against its sources would. A lead-in that ends in a colon is cut off and the rest of the
sentence kept ("Based on the context: the museum opens at 10:00." keeps its claim).

A sentence counts as framing only when it is one of these moves and says nothing else: at most
``_MAX_LEFT`` content words beyond the framing phrase, none of them a digit, so "The passage says
the museum opened in 1921" stays a claim.
"""

from __future__ import annotations

import re

from ...scoring.text import content_words, tokenize
from .chat_frames import strip_chat

_SOURCE = r"(?:provided |given |above |following |retrieved |available )?(?:context|contexts|passage|passages|text|texts|document|documents|article|source|sources|information|excerpt|page|snippet)s?"
_KIND = r"(?:(?:short|brief|concise|quick|detailed|simple|clear|full) )*(?:summary|answer|overview|explanation|rundown|description|list|recap|response)"

_FRAMING_PATTERNS = tuple(
    re.compile(p)
    for p in (
        # "Here is a concise summary of the passage", "Below is the answer", "This is a short overview"
        rf"^(?:sure[,!.]? |certainly[,!.]? |okay[,!.]? |ok[,!.]? )?(?:here is|here's|here are|below is|below are|"
        rf"this is|the following is|what follows is|i have written|i've written|i will give|i'll give|let me give)"
        rf"(?: you)? (?:a |an |the |my )?{_KIND}\b",
        # "Based on the provided context, here is the answer", "According to the passage"
        rf"^(?:based on|according to|from|using|drawing on|going by) (?:the |this |these |your )?{_SOURCE}\b",
        # "The passage describes two different films", "The text is about the museum's opening hours"
        rf"^(?:the|this|these) {_SOURCE} (?:describes?|discuss(?:es)?|explains?|covers?|is about|are about|"
        rf"talks? about|deals? with|concerns?|gives?|provides?|summari[sz]es?|outlines?|presents?)\b",
        # "In summary", "To summarise", "In short"
        r"^(?:in summary|to summari[sz]e|in short|to sum up|in brief)\b",
        # A reply opener that is nothing else: "Sure!", "Certainly."
        r"^(?:sure|certainly|of course|okay|ok|absolutely|great question)[.!,]*$",
    )
)
_MAX_LEFT = 3  # content words a framing sentence may carry besides its framing phrase
_LEAD_IN_RE = re.compile(r"^(?P<lead>[^:]{3,120}):\s+(?P<rest>\S.*)$", re.DOTALL)


def _framing_match(sentence: str) -> re.Match[str] | None:
    text = " ".join(sentence.lower().replace("’", "'").split())
    for pattern in _FRAMING_PATTERNS:
        found = pattern.match(text)
        if found:
            return found
    return None


def is_framing(sentence: str) -> bool:
    """Whether the sentence only frames the answer (see the module docstring)."""
    found = _framing_match(sentence)
    if found is None:
        return False
    rest = " ".join(sentence.lower().replace("’", "'").split())[found.end() :]
    left = content_words(tokenize(rest))
    return len(left) <= _MAX_LEFT and not any(ch.isdigit() for ch in rest)


def strip_framing(sentence: str) -> str:
    """The sentence without a framing lead-in that ends in a colon; "" when it is all framing."""
    lead_in = _LEAD_IN_RE.match(sentence.strip())
    if lead_in and _framing_match(lead_in["lead"]) is not None:
        return lead_in["rest"].strip()
    return "" if is_framing(sentence) else sentence


def claim_units(sentences: list[str]) -> list[str]:
    """The sentences that make claims: framing removed, lead-ins cut off, and the chat around a
    claim ("Oh yeah, I think ...") left out (:mod:`.chat_frames`)."""
    kept = (strip_chat(strip_framing(s)) for s in sentences)
    return [s for s in kept if tokenize(s)]
