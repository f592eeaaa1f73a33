"""Plain text into blocks: paragraphs, bulleted items, and short lines on their own as headings.

Text has no markup to say what a heading is, so a reader guesses as a person does: a paragraph of
one short line (at most :data:`HEADING_WORDS` words) that does not end a sentence is the title of
what follows. A line that starts with a bullet (``-``, ``*``, ``•``, ``1.``) starts a list item, and
the lines after it belong to that item until the next bullet or a blank line.
"""

from __future__ import annotations

import re

from .blocks import BlockWriter

HEADING_WORDS = 10
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def read_plain(text: str, writer: BlockWriter) -> None:
    """The blocks of plain ``text``, added to ``writer``."""
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        if not lines:
            continue
        single = " ".join(lines).strip()
        if (
            len(lines) == 1
            and len(single.split()) <= HEADING_WORDS
            and not single.endswith((".", "!", "?", ":", ";", ","))
        ):
            writer.heading(1, single)
            continue
        items: list[str] = []
        prose: list[str] = []
        for line in lines:
            bullet = _BULLET_RE.match(line)
            if bullet:
                items.append(line[bullet.end() :])
            elif items:
                items[-1] += " " + line
            else:
                prose.append(line)
        writer.add(" ".join(prose))
        for item in items:
            writer.add(item, "item")
