"""How untrusted text travels inside a judge prompt's data blocks, and back out of a verdict.

Answers, contexts and questions are fenced in tagged blocks (``<answer>...</answer>``); the judge is
told that a block's content is data. That only holds if nothing inside a block can read as a tag.
Defusing a few known tag names was not enough: ``&`` stayed as it was, so a literal ``&lt;/answer&gt;``
looked like a defused tag, and lookalikes of ``<`` (fullwidth ``＜``, small ``﹤``, ``‹``, ``〈`` ...)
or a zero-width joiner inside a tag slipped past a pattern written for ASCII.

So every ``&`` and ``<`` in block text is escaped, the HTML way, and so is every character that
looks like one of them. With no ``<`` (real or lookalike) left, no text can open or close a block,
whatever characters it hides inside the tag name. Judges read entities as the characters they stand
for; text a verdict quotes back from a block (claims, unsupported statements, evidence) is unescaped
by :func:`unescape_data` so it matches the user's text again.

Text with neither ``&`` nor ``<`` (nor a lookalike) is unchanged, and so are the cache keys of its
judgments.
"""

from __future__ import annotations

import re

#: Characters a reader (or a model) may take for ``<`` or ``&``: those that NFKC folds into them, and
#: angle brackets of other scripts that look the same in most fonts.
LOOKALIKES = frozenset(
    {
        "\uff1c",  # FULLWIDTH LESS-THAN SIGN
        "\ufe64",  # SMALL LESS-THAN SIGN
        "\uff06",  # FULLWIDTH AMPERSAND
        "\ufe60",  # SMALL AMPERSAND
        "\u2039",  # SINGLE LEFT-POINTING ANGLE QUOTATION MARK
        "\u2329",  # LEFT-POINTING ANGLE BRACKET
        "\u3008",  # LEFT ANGLE BRACKET
        "\u27e8",  # MATHEMATICAL LEFT ANGLE BRACKET
        "\u276c",  # MEDIUM LEFT-POINTING ANGLE BRACKET ORNAMENT
        "\u2770",  # HEAVY LEFT-POINTING ANGLE BRACKET ORNAMENT
        "\u02c2",  # MODIFIER LETTER LEFT ARROWHEAD
        "\u1438",  # CANADIAN SYLLABICS PA
    }
)

_TO_ESCAPE = re.compile("[&<" + "".join(sorted(LOOKALIKES)) + "]")
_ESCAPED = re.compile(r"&(amp|lt|#x[0-9A-F]{2,5});")


_NAMED = {"&": "amp", "<": "lt"}
"""The characters escaped by entity name; every lookalike is escaped by its code point."""
_BY_NAME = {name: char for char, name in _NAMED.items()}


def _entity(match: re.Match[str]) -> str:
    char = match.group(0)
    return f"&{_NAMED.get(char) or f'#x{ord(char):X}'};"


def escape_data(text: str) -> str:
    """``text`` with ``&``, ``<`` and their lookalikes as entities: it cannot contain a tag."""
    return _TO_ESCAPE.sub(_entity, text)


def _character(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _BY_NAME:
        return _BY_NAME[name]
    char = chr(int(name[2:], 16))
    return char if char in LOOKALIKES else match.group(0)


def unescape_data(text: str) -> str:
    """The inverse of :func:`escape_data`, for text a judge quotes back from a data block."""
    if "&" not in text:
        return text
    return _ESCAPED.sub(_character, text)
