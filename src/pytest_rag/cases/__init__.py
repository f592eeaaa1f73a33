"""Test cases as data: case files that pytest collects, cases generated from documents, conversations.

A case file (``*.rag.jsonl``, ``*.rag.yaml``, ``*.rag.csv``) holds one case a row: a question (or
the turns of a conversation), and optionally a reference answer, the passages retrieval should find,
the case's own metrics and thresholds, and tags. pytest collects each case as a test item whose
answer comes from the app through the ``rag_app`` fixture (docs/cases.md). The parts:

* :mod:`.model`: the typed case and turn; :mod:`.files`: reading and writing the three formats with
  the line of every case;
* :mod:`.app`: the ``rag_app`` contract and what its replies may look like;
* :mod:`.checks`: which metrics a case is held to; :mod:`.run`: answering and judging a case;
* :mod:`.collect`: the collector and the items; :mod:`.parametrize`: cases in a Python test;
* :mod:`.generate`: ``pytest-rag generate``, cases from a folder of documents.

This module itself is read by the plugin for every file pytest looks at, so it holds only what
decides whether a file is a case file; the rest loads when a case file is found. How a turn's
checks and a metric in a mode are named is the business of :mod:`pytest_rag.check_keys`.
"""

from __future__ import annotations

CASE_SUFFIXES = (".rag.jsonl", ".rag.yaml", ".rag.yml", ".rag.csv")
"""What a case file's name ends with."""


def is_case_file(name: str) -> bool:
    """Whether a file of this name is a case file (decided by its name alone)."""
    return name.endswith(CASE_SUFFIXES)
