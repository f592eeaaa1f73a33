"""Where the report marks an answer: its sentences, the context sentence each one comes from, and
the sentences that hold a statement the judge rejected.

Matching is lexical and cheap (shares of stemmed content words), enough to place a mark and a link
on the page; it judges nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...scoring.text import content_words, split_sentences, stem

#: An answer sentence is linked to the context sentence that covers at least this share of its terms.
MATCH_MIN = 0.34
#: A judge's statement is placed on the answer sentence covering at least this share of its terms.
FLAG_MIN = 0.5


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text`` (as :func:`pytest_rag.scoring.text.split_sentences` cuts)."""
    spans, at = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence, at)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        at = start + len(sentence)
    return spans


def _terms(text: str) -> set[str]:
    return {stem(word) for word in content_words(text)}


def _coverage(needle: set[str], hay: set[str]) -> float:
    return len(needle & hay) / len(needle) if needle else 0.0


def match_sentences(answer: str, contexts: Sequence[str]) -> list[tuple[int, int, int, int, int]]:
    """For every answer sentence, the context sentence that covers most of its content words.

    Returns ``(start, end, context_index, context_start, context_end)`` per answer sentence, with
    ``context_index`` -1 when no context sentence covers :data:`MATCH_MIN` of its words.
    """
    candidates = [
        (k, start, end, _terms(context[start:end]))
        for k, context in enumerate(contexts)
        for start, end in sentence_spans(context)
    ]
    out = []
    for start, end in sentence_spans(answer):
        terms = _terms(answer[start:end])
        best, where = 0.0, (-1, 0, 0)
        for k, c_start, c_end, c_terms in candidates:
            score = _coverage(terms, c_terms)
            if score > best:
                best, where = score, (k, c_start, c_end)
        out.append((start, end, *where) if best >= MATCH_MIN else (start, end, -1, 0, 0))
    return out


def flag_sentences(answer: str, spans: Sequence[tuple[int, int]], statements: Sequence[str]) -> set[int]:
    """Indices of the answer sentences that hold a flagged statement (verbatim or by most words)."""
    lowered = answer.lower()
    flagged: set[int] = set()
    sentence_terms = [_terms(answer[s:e]) for s, e in spans]
    for statement in statements:
        text = statement.strip().lower()
        at = lowered.find(text) if text else -1
        if at >= 0:
            flagged |= {i for i, (s, e) in enumerate(spans) if s < at + len(text) and at < e}
            continue
        terms = _terms(statement)
        scores = [_coverage(terms, sentence) for sentence in sentence_terms]
        if scores and max(scores) >= FLAG_MIN:
            flagged.add(scores.index(max(scores)))
    return flagged
