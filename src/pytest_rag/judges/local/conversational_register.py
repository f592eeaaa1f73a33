"""Whether a sentence reads as conversation rather than a statement of fact.

Dialogue replies ("me too, I love it!") talk about the speaker, ask back and chat; an answer built
from the contexts rarely does. These words are evidence of register, not noise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Words that mark a sentence as the speaker talking about themselves rather than stating a
# checkable fact. Dialogue responses ("me too, I love it!") carry them; an answer built from the
# contexts rarely does. They are kept apart from STOPWORDS' role: here they are evidence, not
# noise. Second-person forms are deliberately absent: RAG answers address the user ("you get
# your refund within 5 days"), and in the labelled data "you" says nothing about support
# (LFQA sentences with "you" are supported as often as those without), while in BEGIN it mostly
# comes with I/we anyway. Counting it taught the model to mark down faithful answers to a user.
_FIRST_PERSON_PRONOUNS_TEXT = """
    i me my mine myself we us our ours ourselves i'm i've i'd i'll we're we've we'd we'll
"""


FIRST_PERSON_PRONOUNS: frozenset[str] = frozenset(_FIRST_PERSON_PRONOUNS_TEXT.split())


_CONVERSATIONAL_WORDS_TEXT = """
    think believe love like favorite favourite should probably maybe guess hope feel agree wish
    enjoy cool awesome great interesting fun wow yes yeah no sure really
"""


CONVERSATIONAL_WORDS: frozenset[str] = frozenset(_CONVERSATIONAL_WORDS_TEXT.split())

# "I/we (have, really, ...) <verb of experience or taste>": a claim about the speaker that no
# context can back ("i have been to paris", "we watched it twice", "i love that show"). Dialogue
# replies add such claims to a grounded fact; annotators then call the reply not attributable.
_EXPERIENCE_RE = re.compile(
    r"\b(?:i|we)(?:'ve| have| had|'m| am| was| were| do| did| really| also| just| usually)?\s+"
    r"(?:love|like|liked|loved|enjoy|enjoyed|been|went|go|watch|watched|play|played|read|visited|"
    r"grew|used|prefer|hate|hated|want|wish|remember|think|thought|believe|feel|know|saw|seen|"
    r"tried)\b"
)


def register_features(sentence: str, tokens: Sequence[str]) -> tuple[float, float, float, float]:
    """Whether a sentence talks about the speaker, asks, chats, or reports the speaker's
    own experience (see SENTENCE_FEATURES)."""
    n = max(len(tokens), 1)
    return (
        sum(1 for t in tokens if t in FIRST_PERSON_PRONOUNS) / n,
        1.0 if sentence.rstrip().rstrip("\"'”’)]").endswith("?") else 0.0,
        sum(1 for t in tokens if t in CONVERSATIONAL_WORDS) / n,
        1.0 if _EXPERIENCE_RE.search(sentence.lower().replace("’", "'")) else 0.0,
    )
