"""What the reStructuredText and MyST readers share: which directives hold prose, and what a role shows.

Sphinx and its extensions define hundreds of directives and roles that plain docutils does not
know. A reader cannot run them, so it sorts them: a directive whose body is prose for the reader
(a note, a "versionadded", a tab, a card) is read as prose; every other directive (code, API
documentation, a table of contents, an image, a diagram, a directive the reader has never heard of)
is dropped with its body, so none of it lands in the text. A role shows the text a reader of the
built page sees: the title of ``:ref:`Installation <install>``` ("Installation"), the target of
``{class}`~requests.Session``` without its hidden part ("Session").
"""

from __future__ import annotations

import re

from .blocks import ELIDED

_PROSE_DIRECTIVES_TEXT = """
    note warning tip hint important caution attention danger error admonition seealso topic sidebar
    only glossary hlist centered container compound epigraph highlights pull-quote rst-class
    tab tabs tab-item tab-set grid grid-item grid-item-card card dropdown margin div ifconfig
    important-note versionadded versionchanged deprecated versionremoved
    """
PROSE_DIRECTIVES = frozenset(_PROSE_DIRECTIVES_TEXT.split())
"""Directives whose body is prose a reader of the page reads."""

VERSION_DIRECTIVES = {
    "versionadded": "New in version {}",
    "versionchanged": "Changed in version {}",
    "deprecated": "Deprecated since version {}",
    "versionremoved": "Removed in version {}",
}
"""Directives whose argument is a version the built page names before the body."""

_TEXT_ARGUMENT_DIRECTIVES_TEXT = """
    note warning tip hint important caution attention danger error seealso centered important-note
"""
TEXT_ARGUMENT_DIRECTIVES = frozenset(_TEXT_ARGUMENT_DIRECTIVES_TEXT.split())
"""Prose directives whose argument is the first words of their body (``.. note:: Read this.``); the
argument of the others is a title or a layout (``{grid} 1 2 2 3``), not a sentence."""

UNSHOWN_TARGET_ROLES = frozenset({"ref", "doc", "numref", "any", "external", "std:ref", "std:doc"})
"""Roles that show the title of what they point at, which a reader of the source cannot know
without building the project: without an explicit title they are elided."""

HIDDEN_ROLES = frozenset(
    {"sup", "superscript", "sub", "subscript", "index", "footcite", "cite", "cite:p", "cite:t"}
)
"""Roles whose text is not part of the sentence (a footnote mark, an index entry, a citation key)."""

_EXPLICIT_TITLE_RE = re.compile(r"^(.+?)\s*<([^<>]*)>$", re.S)


def role_text(name: str, text: str) -> str:
    """The text the built page shows for role ``name`` with content ``text``."""
    if name.lower() in HIDDEN_ROLES:
        return ""
    titled = _EXPLICIT_TITLE_RE.match(text.strip())
    if titled:
        return titled.group(1).strip()
    if name.lower() in UNSHOWN_TARGET_ROLES:
        return ELIDED
    target = text.strip().lstrip("!")
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return target


def directive_version(name: str, argument: str) -> str:
    """The words a version directive's body starts with on the built page ("New in version 2.1: ")."""
    version = argument.split(None, 1)[0] if argument.strip() else ""
    return f"{VERSION_DIRECTIVES[name].format(version)}: " if version else ""
