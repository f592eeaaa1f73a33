"""The "app": answers from the retrieved passages by picking their most relevant sentences.

A real app would call an LLM here; an extractive answerer keeps the example runnable offline.
"""

from __future__ import annotations

import re

from .retriever import Passage, words

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def answer(question: str, passages: list[Passage], max_sentences: int = 2) -> str:
    wanted = set(words(question))
    candidates = []
    for rank, passage in enumerate(passages):
        for position, sentence in enumerate(_SENTENCE.split(passage.text)):
            overlap = len(wanted & set(words(sentence)))
            candidates.append((overlap, -rank, -position, sentence))
    candidates.sort(reverse=True)
    best = [c for c in candidates[:max_sentences] if c[0] > 0]
    if not best:
        return "I cannot find this in the help centre."
    return " ".join(sentence for *_, sentence in best)
