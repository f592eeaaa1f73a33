"""HTML read with the standard library's parser into blocks of prose.

Headings (``h1`` ... ``h6``) are the titles of what follows; paragraphs are ``prose`` blocks, list
items and definitions ``item`` blocks, table rows ``row`` blocks. Scripts, styles, navigation,
preformatted code and forms are dropped. A page that holds template tags (``{% ... %}``,
``{{ ... }}``: a Jinja or Django template, as a Sphinx theme keeps in ``_templates``) is not a
document and is :class:`~.blocks.Unreadable`.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .blocks import BlockWriter, Unreadable

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_KINDS = {
    "p": "prose",
    "blockquote": "prose",
    "figcaption": "prose",
    "li": "item",
    "dd": "item",
    "dt": "item",
}
_KINDS.update({"tr": "row"})
_BREAKS_TEXT = """
    div section article main header footer ul ol dl table td th br body
"""
_BREAKS = frozenset(_BREAKS_TEXT.split())
_SKIPPED_TEXT = """
    script style nav noscript template svg pre form button select textarea
"""
_SKIPPED = frozenset(_SKIPPED_TEXT.split())
_TEMPLATE_RE = re.compile(r"\{%-?\s*\w+|\{\{[^{}\n]*\}\}")


class _BlocksOfHtml(HTMLParser):
    def __init__(self, writer: BlockWriter) -> None:
        super().__init__(convert_charrefs=True)
        self.writer = writer
        self.title = ""
        self._text: list[str] = []
        self._kind = "prose"
        self._heading = 0
        self._skipping = 0
        self._in_title = False

    def _flush(self) -> None:
        text = "".join(self._text)
        self._text = []
        if self._heading:
            self.writer.heading(self._heading, text)
        else:
            self.writer.add(text, self._kind)

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag == "title":
            self._in_title = True
        elif tag in _HEADINGS or tag in _KINDS or tag in _BREAKS:
            if tag in ("td", "th") and self._kind == "row":
                self._text.append("; ")
                return
            self._flush()
            self._heading = _HEADINGS.get(tag, 0)
            self._kind = _KINDS.get(tag, self._kind if tag in ("td", "th", "br") else "prose")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag in _HEADINGS or tag in _KINDS or (tag in _BREAKS and tag not in ("td", "th")):
            self._flush()
            self._heading, self._kind = 0, "prose"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skipping:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def read_html(text: str, writer: BlockWriter) -> str:
    """The blocks of HTML page ``text``, added to ``writer``; the page's ``<title>``."""
    if _TEMPLATE_RE.search(text):
        raise Unreadable("a template (it holds {% %} or {{ }} tags), not a document")
    parser = _BlocksOfHtml(writer)
    parser.feed(text)
    parser.close()
    return " ".join(parser.title.split())
