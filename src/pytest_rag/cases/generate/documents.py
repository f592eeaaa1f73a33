"""Reading a folder of documents as plain text: text, Markdown, HTML, and PDF through an extra.

Each file becomes a :class:`Document` with its path relative to the folder (how passages and cases
name it), a title (the first heading, an HTML ``<title>``, else the file name) and its text as
paragraphs separated by blank lines. Markdown loses its markup but keeps its paragraphs, list items
and headings as lines of text; HTML keeps the text of its block elements, without scripts, styles
and navigation. PDF needs pypdf (``pip install 'pytest-rag[pdf]'``); a PDF found without it is an
error naming the extra, never a file silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ...errors import ConfigError

TEXT_SUFFIXES = (".txt", ".text")
MARKDOWN_SUFFIXES = (".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
PDF_SUFFIXES = (".pdf",)
SUFFIXES = TEXT_SUFFIXES + MARKDOWN_SUFFIXES + HTML_SUFFIXES + PDF_SUFFIXES
PDF_EXTRA = "pip install 'pytest-rag[pdf]'"


@dataclass(frozen=True)
class Document:
    path: str
    """Relative to the folder read, with forward slashes: ``guides/refunds.md``."""
    title: str
    text: str


def read_documents(folder: Path) -> list[Document]:
    """Every document under ``folder`` (or the one file ``folder`` names), sorted by path, so the
    same folder always gives the same passages in the same order."""
    if folder.is_file():
        files, base = [folder], folder.parent
    elif folder.is_dir():
        files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        files = [p for p in files if not any(part.startswith(".") for part in p.relative_to(folder).parts)]
        base = folder
    else:
        raise ConfigError(f"{folder} does not exist; give the folder of documents to generate cases from")
    documents = [read_document(path, path.relative_to(base).as_posix()) for path in files]
    documents = [d for d in documents if d.text.strip()]
    if not documents:
        raise ConfigError(f"{folder} holds no document with text ({', '.join(SUFFIXES)})")
    return documents


def read_document(path: Path, name: str) -> Document:
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return Document(name, _title_from_name(path), _pdf_text(path))
    raw = path.read_text(encoding="utf-8", errors="replace")
    if suffix in MARKDOWN_SUFFIXES:
        text = markdown_text(raw)
        heading = re.search(r"^#{1,6}\s+(.+?)\s*#*\s*$", raw, re.M)
        return Document(name, heading.group(1).strip() if heading else _title_from_name(path), text)
    if suffix in HTML_SUFFIXES:
        title, text = html_text(raw)
        return Document(name, title or _title_from_name(path), text)
    return Document(name, _title_from_name(path), _paragraphs(raw))


def _title_from_name(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().capitalize()


def _paragraphs(text: str) -> str:
    """Paragraphs separated by one blank line, each with its whitespace collapsed."""
    blocks = [re.sub(r"\s+", " ", block).strip() for block in re.split(r"\n\s*\n", text)]
    return "\n\n".join(block for block in blocks if block)


_FENCE_RE = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS_RE = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")
_LINE_MARK_RE = re.compile(r"^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)")


def markdown_text(markdown: str) -> str:
    """Markdown as plain paragraphs: code blocks, images and markup dropped, link texts kept. A
    heading or list item is a paragraph of its own (it ends with a full stop when it had none, so
    it is not read as the start of the next sentence)."""
    text = _FENCE_RE.sub("", markdown)
    text = _IMAGE_RE.sub(r"\1", text)
    text = _LINK_RE.sub(r"\1", text)
    lines = []
    for line in text.splitlines():
        marked = _LINE_MARK_RE.match(line)
        if marked:
            line = line[marked.end() :].rstrip().rstrip("#").strip()
            line = line if line.endswith((".", "!", "?", ":")) else line + "."
            lines += ["", line, ""]
        else:
            lines.append(line)
    return _paragraphs(_EMPHASIS_RE.sub(r"\2", "\n".join(lines)))


_BLOCKS_TEXT = """
    p div section article main header footer li ul ol h1 h2 h3 h4 h5 h6 table tr td th br
    blockquote pre dd dt figcaption
"""
_BLOCKS = frozenset(_BLOCKS_TEXT.split())
_SKIPPED = frozenset({"script", "style", "nav", "noscript", "template", "svg"})


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skipping = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag == "title":
            self._in_title = True
        elif tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skipping:
            self.parts.append(data)


def html_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page: the text of its block elements as paragraphs."""
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    return " ".join(parser.title.split()), _paragraphs("".join(parser.parts))


def _pdf_text(path: Path) -> str:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise ConfigError(f"{path}: reading PDF needs pypdf, which is not installed: {PDF_EXTRA}") from None
    pages = [page.extract_text() or "" for page in PdfReader(str(path)).pages]
    return "\n\n".join(_paragraphs(page) for page in pages if page.strip())


def document_words(documents: list[Document]) -> Iterator[str]:
    """Every lower-cased word of the documents (to tell which words a corpus never uses)."""
    for document in documents:
        yield from re.findall(r"[a-z0-9]+", document.text.lower())
