"""The help-centre articles of a fictional cloud storage product, Nimbus Drive.

They live as Markdown files in ``docs/`` (one article a file, its title as the heading), the folder
``pytest-rag generate`` reads to write ``tests/rag/generated.rag.jsonl``; the bot retrieves from the
same text.
"""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parent / "docs"


def _article(path: Path) -> str:
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return " ".join(line for line in lines if line and not line.startswith("#"))


ARTICLES: dict[str, str] = {path.stem: _article(path) for path in sorted(DOCS.glob("*.md"))}
