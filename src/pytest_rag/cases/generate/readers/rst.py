"""reStructuredText read with docutils, Sphinx's markup included, into blocks of prose.

docutils parses the file into its document tree; the reader walks the tree and keeps what a reader
of the built page reads as text: paragraphs, list items, definitions, table rows and the bodies of
notes and warnings, under the titles of their sections. Comments, code and literal blocks,
substitution definitions, targets, images, raw blocks and the directives of :mod:`.markup` that are
not prose are dropped with their bodies. Sphinx's own roles and directives, which plain docutils
does not know, are read as :mod:`.markup` sorts them, for the length of one parse only (the lookup
functions of docutils are wrapped, then restored), so nothing stays registered in the process.
Includes and raw blocks are off: reading a document never reads another file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .blocks import DOCS_EXTRA, ELIDED, PSEUDO_HEADING, BlockWriter, Unreadable
from .markup import (
    PROSE_DIRECTIVES,
    TEXT_ARGUMENT_DIRECTIVES,
    VERSION_DIRECTIVES,
    directive_version,
    role_text,
)

_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "doctitle_xform": False,
    "sectsubtitle_xform": False,
    "input_encoding": "unicode",
    "syntax_highlight": "none",
}


def read_rst(text: str, writer: BlockWriter) -> None:
    """The blocks of reStructuredText ``text``, added to ``writer``."""
    try:
        from docutils import nodes  # noqa: F401
        from docutils.core import publish_doctree
    except ImportError:
        raise Unreadable(
            f"reading reStructuredText needs docutils, which is not installed: {DOCS_EXTRA}"
        ) from None
    with _sphinx_markup():
        tree = publish_doctree(text, settings_overrides=_SETTINGS)
    _walk(tree, writer, 0)


@contextmanager
def _sphinx_markup() -> Iterator[None]:
    """docutils' role and directive lookups, falling back to :mod:`.markup`'s reading of the names
    it does not know, while the block runs."""
    from docutils.parsers.rst import directives, roles

    known_role, known_directive = roles.role, directives.directive

    def role(name: str, *args: Any) -> tuple[Any, list[Any]]:
        found, messages = known_role(name, *args)
        return (found or _generic_role, messages)

    def directive(name: str, *args: Any) -> tuple[Any, list[Any]]:
        found, messages = known_directive(name, *args)
        return (found or _directive_class(), messages)

    roles.role, directives.directive = role, directive  # type: ignore[assignment]
    try:
        yield
    finally:
        roles.role, directives.directive = known_role, known_directive


def _generic_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
) -> tuple[list[Any], list[Any]]:
    from docutils import nodes
    from docutils.utils import unescape

    shown = role_text(name.split(":")[-1], unescape(text))
    return ([nodes.inline(rawtext, shown)] if shown else []), []


class _AnyOption(dict[str, Callable[[str | None], Any]]):
    """Every option name accepted, as text: an unknown directive's options are never an error."""

    def __missing__(self, key: str) -> Callable[[str | None], Any]:
        return lambda value: value


def _directive_class() -> type:
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class SphinxDirective(Directive):
        """A directive docutils does not know: its body read as prose or dropped (see :mod:`.markup`)."""

        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = _AnyOption()  # type: ignore[assignment]  # any option of a directive it does not know

        def run(self) -> list[Any]:
            name = self.name.lower()
            if name not in PROSE_DIRECTIVES:
                return []
            box = nodes.container()
            argument = self.arguments[0] if self.arguments else ""
            lead = ""
            if name in VERSION_DIRECTIVES:
                lead = directive_version(name, argument)
                rest = argument.split(None, 1)[1] if len(argument.split(None, 1)) > 1 else ""
                argument = ""
                if rest:
                    box += nodes.paragraph(rest, lead + rest)
                    lead = ""
            elif name in TEXT_ARGUMENT_DIRECTIVES and argument:
                box += nodes.paragraph(argument, argument)
            if self.content:
                body = nodes.container()
                self.state.nested_parse(self.content, self.content_offset, body)
                first = body.next_node(nodes.paragraph)
                if lead and first is not None:
                    first.insert(0, nodes.Text(lead))
                box += body.children
            return [box]

    return SphinxDirective


_DROPPED = (
    "comment literal_block doctest_block raw substitution_definition target image figure "
    "system_message pending footnote citation transition meta math_block rubric caption legend "
    "decoration title subtitle line_block"
)


def _dropped(node: Any) -> bool:
    return type(node).__name__ in _DROPPED.split()


def _walk(node: Any, writer: BlockWriter, depth: int) -> None:
    for child in node.children:
        _read(child, writer, depth)


def _read(child: Any, writer: BlockWriter, depth: int) -> None:
    """One node of the document tree."""
    from docutils import nodes

    if isinstance(child, nodes.section):
        title = next((c for c in child.children if isinstance(c, nodes.title)), None)
        if title is not None:
            writer.heading(depth + 1, inline_text(title))
        _walk(child, writer, depth + 1)
    elif isinstance(child, nodes.paragraph):
        parts = [c for c in child.children if not (isinstance(c, nodes.Text) and not str(c).strip())]
        titled = len(parts) == 1 and isinstance(parts[0], nodes.strong)
        if titled and not inline_text(child).rstrip().endswith((".", ":")):
            writer.heading(PSEUDO_HEADING, inline_text(child))
        else:
            writer.add(inline_text(child))
    elif isinstance(child, nodes.list_item):
        _item(child, writer, depth)
    elif isinstance(child, nodes.definition_list_item):
        term = " ".join(inline_text(t) for t in child.children if isinstance(t, nodes.term))
        definition = next((d for d in child.children if isinstance(d, nodes.definition)), None)
        _item(definition, writer, depth, lead=f"{term}: " if term else "")
    elif isinstance(child, nodes.field):
        name = inline_text(child.children[0])
        _item(child.children[1], writer, depth, lead=f"{name}: ")
    elif isinstance(child, nodes.row):
        writer.add("; ".join(inline_text(entry) for entry in child.children), "row")
    elif not _dropped(child) and not isinstance(child, nodes.Text):
        _walk(child, writer, depth)


def _item(node: Any, writer: BlockWriter, depth: int, lead: str = "") -> None:
    """A list item (a definition, a field body): its paragraphs as one ``item`` block, then its
    nested lists and other blocks."""
    from docutils import nodes

    if node is None:
        return
    paragraphs: list[Any] = []
    rest: list[Any] = []
    for child in node.children:
        (paragraphs if isinstance(child, nodes.paragraph) and not rest else rest).append(child)
    text = " ".join(inline_text(p) for p in paragraphs)
    if lead or text:
        writer.add(lead + text, "item")
    for child in rest:
        _read(child, writer, depth)


_REFERENCE_RE = re.compile(r"^`?([^`<|]+?)`?__?$")
_INLINE_DROPPED = (
    "footnote_reference citation_reference image raw target substitution_definition system_message"
)


def inline_text(node: Any) -> str:
    """The text a reader sees of an inline node: markup gone, footnote marks and images dropped,
    a reference docutils could not resolve (an unknown substitution, a bad role) elided."""
    from docutils import nodes

    if isinstance(node, nodes.Text):
        return str(node.astext())  # without the marks of backslash escapes ("v\\ |version|")
    if isinstance(node, nodes.problematic):
        named = _REFERENCE_RE.match(node.astext())  # a link whose target is in another file
        return named.group(1) if named else ELIDED
    name = type(node).__name__
    if name in _INLINE_DROPPED.split() and not (name == "target" and node.children):
        return ""
    return "".join(inline_text(child) for child in node.children)
