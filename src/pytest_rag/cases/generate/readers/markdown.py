"""CommonMark and MyST Markdown read with markdown-it-py into blocks of prose.

markdown-it-py parses CommonMark (with tables); mdit-py-plugins adds what MyST writes: front matter,
roles (``{class}`Session```), directives in backtick or colon fences (```` ```{note} ````,
``:::{tip}``), targets (``(label)=``), comments (``% ...``), block breaks, definition lists,
footnotes and substitutions (``{{ version }}``). The reader walks the syntax tree: a paragraph is a
``prose`` block, a list item is one ``item`` block however many lines it was wrapped onto, a heading
is the title of what follows. Fenced code, HTML blocks, images and directives that are not prose
(:mod:`.markup`) are dropped; a prose directive's body is read as Markdown, and an ``{eval-rst}``
body as reStructuredText.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .blocks import DOCS_EXTRA, ELIDED, PSEUDO_HEADING, BlockWriter, Unreadable
from .markup import (
    PROSE_DIRECTIVES,
    TEXT_ARGUMENT_DIRECTIVES,
    VERSION_DIRECTIVES,
    directive_version,
    role_text,
)

_DIRECTIVE_RE = re.compile(r"^\{([\w:.-]+)\}\s*(.*)$", re.S)
_OPTIONS_RE = re.compile(r"\A(?:---\n.*?\n---\n|(?::[\w-]+:[^\n]*\n)+)", re.S)
_FRONT_TITLE_RE = re.compile(r"^title:\s*[\"']?(.+?)[\"']?\s*$", re.M)


@lru_cache(maxsize=1)
def _parser() -> Any:
    try:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
        from mdit_py_plugins.colon_fence import colon_fence_plugin
        from mdit_py_plugins.deflist import deflist_plugin
        from mdit_py_plugins.field_list import fieldlist_plugin
        from mdit_py_plugins.footnote import footnote_plugin
        from mdit_py_plugins.front_matter import front_matter_plugin
        from mdit_py_plugins.myst_blocks import myst_block_plugin
        from mdit_py_plugins.myst_role import myst_role_plugin
        from mdit_py_plugins.substitution import substitution_plugin
    except ImportError:
        raise Unreadable(
            f"reading Markdown needs markdown-it-py and mdit-py-plugins, which are not installed: {DOCS_EXTRA}"
        ) from None
    parser = MarkdownIt("commonmark").enable("table")
    for plugin in (
        front_matter_plugin,
        myst_role_plugin,
        myst_block_plugin,
        colon_fence_plugin,
        deflist_plugin,
        fieldlist_plugin,
        footnote_plugin,
        attrs_plugin,
        attrs_block_plugin,
        substitution_plugin,
    ):
        parser = parser.use(plugin)
    return parser


def read_markdown(text: str, writer: BlockWriter) -> None:
    """The blocks of Markdown ``text``, added to ``writer``."""
    parser = _parser()  # first: it names the extra when markdown-it-py is missing
    from markdown_it.tree import SyntaxTreeNode

    tokens = parser.parse(fence_admonitions(text))
    _walk(SyntaxTreeNode(tokens), writer)


_DROPPED_TEXT = """
    code_block html_block hr myst_target myst_line_comment myst_block_break footnote_block
    math_block math_block_label amsmath
"""
_ADMONITION_RE = re.compile(r"^( *)(?:!!!|\?\?\?\+?) *([\w-]+)(?: +\"[^\"]*\")? *$")
_FENCE_RE = re.compile(r"^ *(```|~~~)")


def fence_admonitions(text: str) -> str:
    """mkdocs admonitions (``!!! note "Title"`` with an indented body, ``??? tip`` for a
    collapsible one) as MyST colon fences, so that CommonMark does not read their body as an
    indented code block: the body is prose, the title is structure."""
    lines = text.splitlines()
    out: list[str] = []
    in_code = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE_RE.match(line):
            in_code = not in_code
        found = None if in_code else _ADMONITION_RE.match(line)
        if found is None:
            out.append(line)
            i += 1
            continue
        indent = found.group(1)
        body_indent = indent + "    "
        body: list[str] = []
        i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(body_indent)):
            body.append(lines[i][len(body_indent) :])
            i += 1
        out += [
            f"{indent}::::::{{admonition}} {found.group(2)}",
            *(indent + b for b in body),
            f"{indent}::::::",
            "",
        ]
    return "\n".join(out)


_DROPPED = frozenset(_DROPPED_TEXT.split())


def _walk(node: Any, writer: BlockWriter) -> None:
    for child in node.children:
        _read(child, writer)


_TERMED = {"field_list": ("fieldlist_name", "fieldlist_body"), "dl": ("dt", "dd")}
"""Lists of a term and its body (a field list, a definition list), each pair read as one item
"term: body"."""


def _read(child: Any, writer: BlockWriter) -> None:
    """One block node of the syntax tree."""
    kind = child.type
    if kind == "heading":
        writer.heading(int(child.tag[1:]), inline_text(child))
    elif kind == "paragraph":
        if _bold_title(child):
            writer.heading(PSEUDO_HEADING, inline_text(child))
        else:
            writer.add(inline_text(child))
    elif kind == "list_item":
        _item(child, writer)
    elif kind in _TERMED:
        term_type, body_type = _TERMED[kind]
        term = ""
        for part in child.children:
            if part.type == term_type:
                term = inline_text(part)
            elif part.type == body_type:
                _item(part, writer, lead=f"{term}: " if term else "")
    elif kind == "tr":
        writer.add("; ".join(inline_text(cell) for cell in child.children), "row")
    elif kind in ("fence", "colon_fence"):
        _directive(child, writer)
    elif kind == "front_matter":
        title = _FRONT_TITLE_RE.search(child.content)
        if title:
            writer.heading(0, title.group(1))
    elif kind not in _DROPPED:
        _walk(child, writer)


def _bold_title(paragraph: Any) -> bool:
    """Whether a paragraph is only bold text that ends no sentence (``**Extra features**``): a
    heading in all but name."""
    inline = paragraph.children[0] if paragraph.children else None
    parts = [
        c for c in (inline.children if inline is not None else []) if c.type != "text" or c.content.strip()
    ]
    return (
        len(parts) == 1
        and parts[0].type == "strong"
        and not inline_text(parts[0]).rstrip().endswith((".", ":"))
    )


def _item(node: Any, writer: BlockWriter, lead: str = "") -> None:
    """A list item: its leading paragraphs as one ``item`` block, then its nested lists."""
    paragraphs: list[Any] = []
    rest: list[Any] = []
    for child in node.children:
        (paragraphs if child.type == "paragraph" and not rest else rest).append(child)
    text = " ".join(inline_text(p) for p in paragraphs)
    if lead or text:
        writer.add(lead + text, "item")
    for child in rest:
        _read(child, writer)


def _directive(node: Any, writer: BlockWriter) -> None:
    """A fenced block: code is dropped; a MyST directive is read as :mod:`.markup` sorts it."""
    found = _DIRECTIVE_RE.match(node.info.strip())
    if found is None:
        return  # code
    name, argument = found.group(1).lower(), found.group(2).strip()
    body = _OPTIONS_RE.sub("", node.content, count=1)
    if name == "eval-rst":
        from .rst import read_rst

        read_rst(body, writer)
        return
    if name not in PROSE_DIRECTIVES:
        return
    if name in VERSION_DIRECTIVES:
        lead = directive_version(name, argument)
        rest = argument.split(None, 1)[1] if len(argument.split(None, 1)) > 1 else ""
        body = f"{lead}{rest}\n\n{body}" if rest else f"{lead}{body}"
    elif argument and name in TEXT_ARGUMENT_DIRECTIVES:
        body = f"{argument}\n\n{body}"
    read_markdown(body, writer)


def inline_text(node: Any) -> str:
    """The text a reader sees of an inline node: markup gone, images and HTML tags dropped, a role
    shown as :func:`~.markup.role_text` says, an unknown substitution elided."""
    kind = node.type
    if kind == "text":
        return str(node.content)
    if kind in ("softbreak", "hardbreak"):
        return " "
    if kind in ("code_inline", "math_inline"):
        return str(node.content)
    if kind == "myst_role":
        return role_text(str(node.meta.get("name", "")), str(node.content))
    if kind == "substitution_inline":
        return ELIDED
    if kind in ("image", "html_inline", "footnote_ref"):
        return ""
    if kind == "link":
        shown = "".join(inline_text(child) for child in node.children).strip()
        href = str(node.attrs.get("href", ""))
        # an empty text or a bare internal target ("<project:#usage>") shows a title the source lacks
        return ELIDED if not shown or (shown == href and "://" not in href and "@" not in href) else shown
    return "".join(inline_text(child) for child in node.children)
