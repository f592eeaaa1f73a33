"""Documents cut into passages with ids that stay the same from run to run.

A passage is a run of whole blocks of one document (paragraphs, list items: :mod:`.readers.blocks`),
one block a line, about ``words`` words long: short blocks join the next ones, a block much longer
than that is cut between sentences, and a passage that holds enough ends where a new section
starts. Its title is the titles of the section it starts in ("Quickstart › Timeouts"): headings are
the passage's title, never a line of its text. Its id is the document's path and a hash of the passage's text with the
whitespace normalised: ``guides/refunds.md#3f9a1c2e``.

Why a hash of the text rather than the passage's position: a reviewed case names the passages its
reference rests on. When someone edits another part of the document, or inserts a paragraph above,
positions shift and a case would silently point at another passage; the hash keeps the id of every
passage whose text did not change. When the passage itself changes, its id changes too, which is
right: the case's reference may no longer hold, and ``passage_recall`` says so. Two identical
passages in one document get ``-2``, ``-3`` ... after the hash, in document order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ...scoring.text import split_sentences
from .documents import Document, block_line

DEFAULT_WORDS = 120
"""Words a passage aims at: long enough to hold a fact with its context, short enough to retrieve."""


@dataclass(frozen=True)
class Passage:
    id: str
    document: str
    title: str
    text: str

    @property
    def words(self) -> int:
        return len(self.text.split())


def passage_id(document: str, text: str) -> str:
    normalised = " ".join(text.split())
    return f"{document}#{hashlib.sha256(normalised.encode('utf-8')).hexdigest()[:8]}"


def _pieces(paragraph: str, words: int) -> list[str]:
    """A paragraph, cut between sentences into pieces of at most about ``words`` words."""
    if len(paragraph.split()) <= words * 3 // 2:
        return [paragraph]
    pieces: list[str] = []
    current: list[str] = []
    for sentence in split_sentences(paragraph):
        if current and len(" ".join([*current, sentence]).split()) > words:
            pieces.append(" ".join(current))
            current = []
        current.append(sentence)
    if current:
        pieces.append(" ".join(current))
    return pieces


def split_passages(document: Document, words: int = DEFAULT_WORDS) -> list[Passage]:
    """The document's passages in document order (see the module docstring)."""
    pieces = [
        (piece, block.section) for block in document.blocks for piece in _pieces(block_line(block), words)
    ]
    runs: list[tuple[str, tuple[str, ...]]] = []
    current: list[str] = []
    section: tuple[str, ...] = ()
    for piece, where in pieces:
        held = len(" ".join(current).split())
        if held >= words // 3 and (held + len(piece.split()) > words or where != section):
            runs.append(("\n".join(current), section))
            current = []
        if not current:
            section = where
        current.append(piece)
    if current:
        runs.append(("\n".join(current), section))
    passages = []
    seen: dict[str, int] = {}
    for text, where in runs:
        ident = passage_id(document.path, text)
        seen[ident] = seen.get(ident, 0) + 1
        if seen[ident] > 1:
            ident = f"{ident}-{seen[ident]}"
        passages.append(Passage(ident, document.path, " › ".join(where) or document.title, text))
    return passages
