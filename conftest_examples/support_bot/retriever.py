"""A small TF-IDF retriever: ranks articles by cosine similarity to the question."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from .corpus import ARTICLES

_WORD = re.compile(r"[a-z0-9$]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "how",
        "i",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


@dataclass(frozen=True)
class Passage:
    """A retrieved article: pytest-rag reads ``text`` and ``id`` from objects like this."""

    id: str
    text: str
    score: float


class Retriever:
    def __init__(self, articles: dict[str, str] | None = None) -> None:
        self.articles = dict(articles or ARTICLES)
        self.counts = {doc_id: Counter(words(text)) for doc_id, text in self.articles.items()}
        n = len(self.articles)
        document_frequency = Counter(w for counts in self.counts.values() for w in counts)
        self.idf = {w: math.log((1 + n) / (1 + df)) + 1 for w, df in document_frequency.items()}

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        return {w: c * self.idf.get(w, 0.0) for w, c in counts.items()}

    def search(self, question: str, k: int = 3) -> list[Passage]:
        query = self._vector(Counter(words(question)))
        query_norm = math.sqrt(sum(v * v for v in query.values())) or 1.0
        scored = []
        for doc_id, counts in self.counts.items():
            doc = self._vector(counts)
            doc_norm = math.sqrt(sum(v * v for v in doc.values())) or 1.0
            dot = sum(weight * doc.get(w, 0.0) for w, weight in query.items())
            scored.append(Passage(doc_id, self.articles[doc_id], dot / (query_norm * doc_norm)))
        scored.sort(key=lambda p: (-p.score, p.id))
        return scored[:k]
