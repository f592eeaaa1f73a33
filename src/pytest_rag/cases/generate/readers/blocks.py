"""What a reader writes: a document as blocks of plain text under the titles of their sections.

A heading is structure, not text: it becomes the title of the blocks that follow it, never a block
of its own (nor is a paragraph of bold text alone, a heading in all but name), so no question is ever made from "Installation" or "Shell Variable Expansion On
Windows". A paragraph is a ``prose`` block; a list item is an ``item`` block however many lines it
was wrapped onto; a table row is a ``row`` block. Each block is one line of text with its
whitespace collapsed, so the text either side of a removed code block or directive stays in two
blocks and is never glued into one sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DOCS_EXTRA = "pip install 'pytest-rag[docs]'"
ELIDED = "…"
"""Written where a reader removed something that a sentence needed (an unknown substitution, a
reference it cannot resolve): the sentence stays in its passage, and no question is made from it."""


PSEUDO_HEADING = 7
"""The level of a paragraph of bold text alone (``**Extra features**``): a heading below every
real one, so the next real heading of any level ends its section."""


class Unreadable(Exception):
    """A file that cannot be read as a document, with the reason and its fix."""


@dataclass(frozen=True)
class Block:
    text: str
    kind: str = "prose"
    """``prose`` (a paragraph), ``item`` (a list item, a definition, a field) or ``row`` (a table row)."""
    section: tuple[str, ...] = ()
    """The titles of the sections the block sits in, outermost first."""


def collapse(text: str) -> str:
    """``text`` on one line, its runs of whitespace made one space."""
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class BlockWriter:
    """Collects the blocks of one document and the section each sits in."""

    blocks: list[Block] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)
    first_heading: str = ""

    def heading(self, level: int, text: str) -> None:
        text = collapse(text)
        if not text:
            return
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        self.first_heading = self.first_heading or text

    def add(self, text: str, kind: str = "prose") -> None:
        text = collapse(text)
        if any(ch.isalnum() for ch in text):
            self.blocks.append(Block(text, kind, tuple(title for _, title in self.headings)))
