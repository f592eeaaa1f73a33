"""Reading a folder of documents as blocks of text: plain text, Markdown (CommonMark and MyST),
reStructuredText, HTML, and PDF.

Each file becomes a :class:`Document` with its path relative to the folder (how passages and cases
name it), a title (the first heading, an HTML ``<title>``, else the file name) and its blocks
(:mod:`.readers.blocks`): the paragraphs and list items a reader of the built page reads, each under
the titles of its sections, with code, comments, directives and markup removed. Markdown and
reStructuredText are read by their parsers (the ``docs`` extra), PDF by pypdf (the ``pdf`` extra).

A file that cannot be read (a format the command does not read, a missing parser, text that is
not UTF-8, a template, a file with no text once its markup is removed) is never read as something
else and never skipped silently: :func:`read_documents` returns it with the reason, which the
command prints; a folder where nothing was read is an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ConfigError
from .readers.blocks import Block, BlockWriter, Unreadable
from .readers.html import read_html
from .readers.markdown import read_markdown
from .readers.plain import read_plain
from .readers.rst import read_rst

TEXT_SUFFIXES = (".txt", ".text")
MARKDOWN_SUFFIXES = (".md", ".markdown")
RST_SUFFIXES = (".rst", ".rest")
HTML_SUFFIXES = (".html", ".htm")
PDF_SUFFIXES = (".pdf",)
SUFFIXES = TEXT_SUFFIXES + MARKDOWN_SUFFIXES + RST_SUFFIXES + HTML_SUFFIXES + PDF_SUFFIXES
PDF_EXTRA = "pip install 'pytest-rag[pdf]'"
OTHER_FORMAT = f"not a format generate reads ({', '.join(SUFFIXES)})"


@dataclass(frozen=True)
class Document:
    path: str
    """Relative to the folder read, with forward slashes: ``guides/refunds.md``."""
    title: str
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        """The blocks as paragraphs separated by a blank line (list items and rows after "- ")."""
        return "\n\n".join(block_line(b) for b in self.blocks)


def block_line(block: Block) -> str:
    """A block as one line of a passage: a list item or table row after "- ", so it reads as one."""
    return block.text if block.kind == "prose" else f"- {block.text}"


@dataclass
class Reading:
    """What a folder gave: its documents, and each file not read with the reason."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def skipped_lines(self, shown: int = 5) -> list[str]:
        """The files not read, grouped by reason, at most ``shown`` names per reason."""
        by_reason: dict[str, list[str]] = {}
        for name, reason in self.skipped:
            by_reason.setdefault(reason, []).append(name)
        lines = []
        for reason, names in by_reason.items():
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            lines.append(f"  {', '.join(names[:shown])}{more}: {reason}")
        return lines


def read_documents(folder: Path) -> Reading:
    """Every document under ``folder`` (or the one file ``folder`` names), sorted by path, so the
    same folder always gives the same passages in the same order; files in hidden folders
    (``.git``) are not looked at."""
    if folder.is_file():
        files, base = [folder], folder.parent
    elif folder.is_dir():
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        files = [p for p in files if not any(part.startswith(".") for part in p.relative_to(folder).parts)]
        base = folder
    else:
        raise ConfigError(f"{folder} does not exist; give the folder of documents to generate cases from")
    reading = Reading()
    for path in files:
        name = path.relative_to(base).as_posix()
        try:
            document = read_document(path, name)
        except Unreadable as exc:
            reading.skipped.append((name, str(exc)))
            continue
        if document.blocks:
            reading.documents.append(document)
        else:
            reading.skipped.append((name, "no text once its markup, code and directives are removed"))
    return reading


_READERS: dict[str, Callable[[str, BlockWriter], object]] = {
    **dict.fromkeys(TEXT_SUFFIXES, read_plain),
    **dict.fromkeys(MARKDOWN_SUFFIXES, read_markdown),
    **dict.fromkeys(RST_SUFFIXES, read_rst),
    **dict.fromkeys(HTML_SUFFIXES, read_html),
}


def read_document(path: Path, name: str) -> Document:
    """One file as a :class:`Document`; :class:`Unreadable` with the reason when it cannot be read."""
    suffix = path.suffix.lower()
    writer = BlockWriter()
    if suffix in PDF_SUFFIXES:
        for page in _pdf_pages(path):
            read_plain(page, writer)
        return Document(name, _title_from_name(path), tuple(writer.blocks))
    reader = _READERS.get(suffix)
    if reader is None:
        raise Unreadable(OTHER_FORMAT)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save it as UTF-8"
        ) from None
    try:
        title = reader(text, writer)
    except Unreadable:
        raise
    except Exception as exc:  # a parser's own failure on one file is that file's reason, not the run's end
        raise Unreadable(f"its markup could not be parsed ({type(exc).__name__}: {exc})") from None
    heading = writer.first_heading or (title if isinstance(title, str) else "")
    return Document(name, heading or _title_from_name(path), tuple(writer.blocks))


def _title_from_name(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().capitalize()


def _pdf_pages(path: Path) -> Sequence[str]:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise Unreadable(f"reading PDF needs pypdf, which is not installed: {PDF_EXTRA}") from None
    return [page.extract_text() or "" for page in PdfReader(str(path)).pages]
