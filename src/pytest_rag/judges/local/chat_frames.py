"""The chat around a claim: "Oh yeah, I think it first came out back in 1989!" claims "it first came
out in 1989".

A dialogue reply restates its knowledge wrapped in the speaker's voice: an opening interjection
("oh yeah,", "wow,", "sure,"), a frame of belief ("I think", "I'm pretty sure", "I heard that"), a
tag at the end (", right?", ", I guess") and fillers ("back in 1989"). None of these states a fact
the knowledge could back, and each counts against the reply: the words are unmatched, and the
first person and chat words are what the sentence model learned to read as the speaker talking
about themselves. So they are cut off before the sentence is scored, as framing is
(:mod:`.framing`).

What the speaker says about themselves stays: "I love that show" and "we went there twice" are
claims no knowledge backs (annotators of grounded dialogue mark them not attributable), and so is
"me too"; so a frame of belief stays before a clause about the speaker ("I think my favourite was
..."). A lone "yes" or "no", or one followed by a short echo of the question ("Yes, it is."),
stays too: read with its question it makes a claim (:mod:`.question`). A sentence that is nothing
but chat is kept as it was, so it is still judged.
"""

from __future__ import annotations

import re

from ...scoring.text import tokenize
from .conversational_register import FIRST_PERSON_PRONOUNS

_OPENER_WORDS = (
    r"oh|ooh|ah|aw|well|yeah|yes|yep|yup|sure|wow|haha|hah|lol|hmm|ok|okay|right|so|actually|honestly|"
    r"absolutely|definitely|totally|exactly|indeed|true|nice|cool|great|awesome|interesting|fun fact"
)
_OPENERS_RE = re.compile(
    # each word followed by a mark or by another opener: "Well known artists" keeps its "well"
    rf"^(?:(?:{_OPENER_WORDS})(?:\s*[,!.;:-]+\s*|\s+(?=(?:{_OPENER_WORDS}|i think|i believe|i guess)\b)))+",
    re.IGNORECASE,
)
_BELIEF_RE = re.compile(
    r"^(?:(?:i|we) (?:think|believe|guess|suppose|heard|read|recall)|(?:i'm|i am|we're|we are) "
    r"(?:pretty |fairly |quite )?(?:sure|certain)|did you know|apparently|as far as i know|"
    r"if i (?:remember|recall) (?:correctly|right)|from what i (?:know|remember|read|heard))"
    r"(?: that)?\b[\s,]*",
    re.IGNORECASE,
)
_ASKS_TO_TELL_RE = re.compile(r"^did you know\b", re.IGNORECASE)
_TAIL_RE = re.compile(
    r"[\s,]+(?:i think|i believe|i guess|right|you know|haha|lol|isn't it|wasn't it|didn't they)\s*(?=[?!.]*$)",
    re.IGNORECASE,
)
_BACK_IN_RE = re.compile(r"\bback (?=in (?:the )?\d)", re.IGNORECASE)
_MIN_LEFT = 4
"""Words a sentence must keep after its opener is cut, so "Yes, it is." stays whole."""
_MIN_CLAIM = 3
"""Words the claim must keep once all the chat is cut; else the sentence stays as it was."""


def strip_chat(sentence: str) -> str:
    """The claim of ``sentence`` without the chat around it (see the module docstring); the
    sentence as it was when nothing, or too little, would be left."""
    text = sentence.strip().replace("’", "'")
    opener = _OPENERS_RE.match(text)
    if opener and len(tokenize(text[opener.end() :])) >= _MIN_LEFT:
        text = text[opener.end() :]
    believed = _BELIEF_RE.sub("", text, count=1)
    if not FIRST_PERSON_PRONOUNS & set(tokenize(believed)):  # "I think I'd recommend it" is about the speaker
        if _ASKS_TO_TELL_RE.match(text):  # "Did you know that it opened in 1962?" states it
            believed = believed.rstrip("?") + "."
        text = believed
    untagged = _TAIL_RE.sub("", text)
    if untagged != text:  # "It opened in 1962, right?" asks nothing: it states
        text = untagged.rstrip("?") + ("." if untagged.endswith("?") else "")
    text = _BACK_IN_RE.sub("", text).strip(" ,;:-")
    if len(tokenize(text)) < _MIN_CLAIM:  # "Yes I think so." is not "So."
        return sentence
    if text == sentence.strip().replace("’", "'"):
        return sentence
    return text[:1].upper() + text[1:]
