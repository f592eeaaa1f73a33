"""``pytest-rag generate`` reads documents as they are written: reStructuredText with Sphinx's markup,
MyST and CommonMark Markdown, HTML and plain text become blocks of prose under the titles of their
sections; a file it cannot read is listed with the reason, and a folder where nothing was read is an
error."""

from __future__ import annotations

import builtins
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_rag.cases.generate.documents import Document, read_documents
from pytest_rag.cases.generate.readers.blocks import ELIDED
from pytest_rag.cli import main

RST = """\
.. Requests documentation master file, created by
   sphinx-quickstart on Sun Feb 13 23:54:25 2011.

.. |project| replace:: Nimbus

Nimbus: storage for humans
==========================

Release v\\ |version|. (:ref:`Installation <install>`)

**Nimbus** keeps every file you save, and :class:`~nimbus.Session` objects
keep their settings between calls.

.. code-block:: python

   session = nimbus.Session()

Sessions are closed when the program ends.

Features
--------

- Automatic retries of failed uploads, which wrap onto
  a second line without breaking the item.
- Shared folders

.. note::

   |project| encrypts files at rest with AES-256.

.. versionadded:: 2.1
   Uploads resume after a lost connection.

.. toctree::
   :maxdepth: 2

   user/install
   user/quickstart

Usage::

    >>> nimbus.upload("a.txt")

See :doc:`the quickstart <user/quickstart>` and :ref:`install`.
"""

MYST = """\
---
title: Working with Nimbus
---

(usage)=
# Usage

% a comment for the authors only

The {class}`~nimbus.Session` object keeps uploads in
a queue until the network is back.

```python
queue = session.queue
```

Uploads of more than 5 GB are split into parts.

```{note}
Parts are uploaded in parallel.
```

:::{tip}
:class: dropdown
Call {meth}`Session.flush` to send the queue at once.
:::

- Retries happen three times, each one waiting
  longer than the one before.
- {{ product }} keeps the queue on disk.

```{eval-rst}
.. note:: The queue survives a restart.
```

## Limits

Files are kept for 30 days in the trash.
"""

COMMONMARK = """\
Quota
=====

Every account starts with 15 GB of storage.
The quota counts files in the trash too.

```bash
nimbus quota --show
```

Extra storage can be bought by the month.

**Plans**

1. The Plus plan adds 100 GB
   for four dollars a month.
2. The Pro plan adds 1 TB.

![diagram](quota.png) See [the pricing page](https://example.com/pricing) for details.

<div class="banner">Sale!</div>

!!! warning "Careful"
    Files above the quota are not synced.

    They stay on the device.
"""

HTML = """\
<html><head><title>Support</title><script>var x = 1;</script></head><body>
<nav>Home | Plans</nav>
<h1>Support</h1>
<p>Support is available by email around the clock.</p>
<pre>curl https://example.com/status</pre>
<h2>Chat</h2>
<p>Pro customers get live chat
between 8:00 and 20:00 on working days.</p>
<ul><li>English</li><li>Portuguese</li></ul>
</body></html>
"""

TEXT = """\
Trash

Deleted files stay in the trash for 30 days,
after which they are removed for good.

- Restoring a file puts it back in its
  original folder.
- Emptying the trash cannot be undone.
"""


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


def read_one(tmp_path: Path, name: str, content: str) -> Document:
    reading = read_documents(write(tmp_path, {name: content}))
    assert reading.skipped == []
    [document] = reading.documents
    return document


MARKUP = re.compile(r"[`*{}|<>\[\]]|:\w+:|\.\. |^#|%|\(\w+\)=")


def assert_no_markup(document: Document) -> None:
    for block in document.blocks:
        assert not MARKUP.search(block.text), block.text


def test_restructuredtext_is_read_with_sphinx_markup_handled(tmp_path: Path) -> None:
    document = read_one(tmp_path, "index.rst", RST)
    texts = [b.text for b in document.blocks]
    assert document.title == "Nimbus: storage for humans"
    assert texts == [
        f"Release v{ELIDED}. (Installation)",  # an undefined substitution is elided, not kept as |version|
        "Nimbus keeps every file you save, and Session objects keep their settings between calls.",
        "Sessions are closed when the program ends.",  # not glued to the text before the code block
        "Automatic retries of failed uploads, which wrap onto a second line without breaking the item.",
        "Shared folders",
        "Nimbus encrypts files at rest with AES-256.",  # a note's body is prose; |project| replaced
        "New in version 2.1: Uploads resume after a lost connection.",
        "Usage:",
        f"See the quickstart and {ELIDED}.",  # a reference without its title shows what it cannot know
    ]
    assert [b.kind for b in document.blocks][3:5] == ["item", "item"]
    assert {b.section for b in document.blocks[3:]} == {("Nimbus: storage for humans", "Features")}
    assert "sphinx-quickstart" not in document.text and "toctree" not in document.text
    assert "session = nimbus" not in document.text and "upload(" not in document.text
    assert_no_markup(document)


def test_myst_is_read_with_roles_directives_and_front_matter_handled(tmp_path: Path) -> None:
    document = read_one(tmp_path, "usage.md", MYST)
    texts = [b.text for b in document.blocks]
    assert document.title == "Working with Nimbus"  # the front matter's title
    assert texts == [
        "The Session object keeps uploads in a queue until the network is back.",
        "Uploads of more than 5 GB are split into parts.",
        "Parts are uploaded in parallel.",
        "Call Session.flush to send the queue at once.",
        "Retries happen three times, each one waiting longer than the one before.",
        f"{ELIDED} keeps the queue on disk.",
        "The queue survives a restart.",
        "Files are kept for 30 days in the trash.",
    ]
    assert [b.kind for b in document.blocks][4:6] == ["item", "item"]
    assert document.blocks[-1].section == ("Working with Nimbus", "Usage", "Limits")
    assert "queue = session.queue" not in document.text and "comment" not in document.text
    assert_no_markup(document)


def test_commonmark_keeps_paragraphs_items_and_link_text_and_drops_code_images_and_html(
    tmp_path: Path,
) -> None:
    document = read_one(tmp_path, "quota.md", COMMONMARK)
    texts = [b.text for b in document.blocks]
    assert texts == [
        "Every account starts with 15 GB of storage. The quota counts files in the trash too.",
        "Extra storage can be bought by the month.",  # the code block between is gone, not glued
        "The Plus plan adds 100 GB for four dollars a month.",
        "The Pro plan adds 1 TB.",
        "See the pricing page for details.",
        "Files above the quota are not synced.",  # a mkdocs admonition's body is prose, not code
        "They stay on the device.",
    ]
    assert document.blocks[2].section == ("Quota", "Plans")  # a paragraph of bold text alone titles
    assert "Careful" not in document.text and "Sale" not in document.text and "diagram" not in document.text
    assert_no_markup(document)


def test_html_and_plain_text_keep_headings_as_titles(tmp_path: Path) -> None:
    html = read_one(tmp_path / "h", "support.html", HTML)
    assert [(b.text, b.kind, b.section) for b in html.blocks] == [
        ("Support is available by email around the clock.", "prose", ("Support",)),
        ("Pro customers get live chat between 8:00 and 20:00 on working days.", "prose", ("Support", "Chat")),
        ("English", "item", ("Support", "Chat")),
        ("Portuguese", "item", ("Support", "Chat")),
    ]
    text = read_one(tmp_path / "t", "trash.txt", TEXT)
    assert [(b.text, b.kind) for b in text.blocks] == [
        ("Deleted files stay in the trash for 30 days, after which they are removed for good.", "prose"),
        ("Restoring a file puts it back in its original folder.", "item"),
        ("Emptying the trash cannot be undone.", "item"),
    ]
    assert text.title == "Trash" and text.blocks[0].section == ("Trash",)


def test_a_file_that_cannot_be_read_is_listed_with_its_reason(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        {
            "guide.rst": RST,
            "old.txt": "Caf\xe9 menus are printed weekly.".encode("latin-1"),
            "logo.png": b"\x89PNG",
            "_templates/sidebar.html": "<p>{{ _('Useful Links') }}</p>",
            "index.rst": ".. toctree::\n\n   guide\n",
        },
    )
    reading = read_documents(folder)
    assert [d.path for d in reading.documents] == ["guide.rst"]
    assert dict(reading.skipped) == {
        "_templates/sidebar.html": "a template (it holds {% %} or {{ }} tags), not a document",
        "index.rst": "no text once its markup, code and directives are removed",
        "logo.png": "not a format generate reads (.txt, .text, .md, .markdown, .rst, .rest, .html, .htm, .pdf)",
        "old.txt": "not UTF-8 text (byte 0xe9 at offset 3); save it as UTF-8",
    }


@pytest.mark.parametrize(
    ("name", "module", "needs"),
    [
        ("guide.rst", "docutils", "reStructuredText needs docutils, which is"),
        ("guide.md", "markdown_it", "Markdown needs markdown-it-py and mdit-py-plugins, which are"),
    ],
)
def test_a_missing_parser_is_named_with_the_extra_that_brings_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, module: str, needs: str
) -> None:
    from pytest_rag.cases.generate.readers import markdown

    markdown._parser.cache_clear()
    real_import = builtins.__import__

    def without(imported: str, *args: Any, **kwargs: Any) -> Any:
        if imported.split(".")[0] == module:
            raise ImportError(imported)
        return real_import(imported, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without)
    try:
        reading = read_documents(
            write(tmp_path, {name: RST if name.endswith("rst") else MYST, "a.txt": TEXT})
        )
    finally:
        markdown._parser.cache_clear()
    assert [d.path for d in reading.documents] == ["a.txt"]  # read as nothing else, never as plain text
    assert reading.skipped == [(name, f"reading {needs} not installed: pip install 'pytest-rag[docs]'")]


def generate(*args: str) -> int:
    return main(["generate", *args])


def test_generate_reads_a_folder_of_rst_myst_and_markdown_and_lists_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write(
        tmp_path / "docs", {"index.rst": RST, "usage.md": MYST, "quota.md": COMMONMARK, "Makefile": "x"}
    )
    out = tmp_path / "a.rag.jsonl"
    assert generate(str(docs), "-o", str(out), "--count", "8", "--cache-dir", str(tmp_path / "c")) == 0
    printed = capsys.readouterr().out
    assert "read 3 document(s)" in printed
    assert "skipped 1 file(s):\n  Makefile: not a format generate reads" in printed
    questions = [line for line in out.read_text().splitlines()]
    assert questions and not any(
        w in q for q in questions for w in ("sphinx-quickstart", "{class}", ":ref:", "|version|")
    )


def test_generate_on_a_folder_where_nothing_is_read_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "a.rag.jsonl"
    assert generate(str(empty), "-o", str(out)) == 1
    assert f"pytest-rag: error: {empty}: no document was read (0 file(s) skipped" in capsys.readouterr().err
    unreadable = write(tmp_path / "bin", {"a.png": b"\x89PNG", "index.rst": ".. toctree::\n\n   a\n"})
    assert generate(str(unreadable), "-o", str(out)) == 1
    captured = capsys.readouterr()
    assert "skipped 2 file(s):" in captured.out and "index.rst: no text once its markup" in captured.out
    assert "no document was read (2 file(s) skipped, listed above)" in captured.err
    assert not out.exists()


def test_one_rst_file_named_directly_is_read_as_restructuredtext(tmp_path: Path) -> None:
    path = write(tmp_path, {"index.rst": RST}) / "index.rst"
    [document] = read_documents(path).documents
    assert (
        "sphinx-quickstart" not in document.text
        and "Sessions are closed when the program ends." in document.text
    )
