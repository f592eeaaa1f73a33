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

This module itself is read by the plugin for every file pytest looks at, so it holds only the
standard-library names that decide whether a file is a case file and how a turn is named; the
rest loads when a case file is found.
"""

from __future__ import annotations

import re

CASE_SUFFIXES = (".rag.jsonl", ".rag.yaml", ".rag.yml", ".rag.csv")
"""What a case file's name ends with."""

_TURN_ID_RE = re.compile(r"turn (\d+)")
_LABEL_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([A-Za-z_][A-Za-z0-9_]*)\])?")


def is_case_file(name: str) -> bool:
    """Whether a file of this name is a case file (decided by its name alone)."""
    return name.endswith(CASE_SUFFIXES)


def turn_sample_id(position: int) -> str:
    """The sample id under which the checks of a conversation's turn ``position`` (1-based) are
    recorded: the check key reads ``<case>[turn 2]``, and the summary groups by it."""
    return f"turn {position}"


def turn_position(sample_id: str | None) -> int | None:
    """The turn a check's sample id names (:func:`turn_sample_id`), or None for any other sample."""
    found = _TURN_ID_RE.fullmatch(sample_id) if sample_id else None
    return int(found.group(1)) if found else None


def parse_metric_label(label: str) -> tuple[str, str | None]:
    """``faithfulness`` -> (faithfulness, None); ``faithfulness[claims]`` -> (faithfulness, claims),
    the way the summary names a metric in a mode. A malformed label is a ValueError saying so."""
    found = _LABEL_RE.fullmatch(label.strip())
    if found is None:
        raise ValueError(f"{label!r} is not a metric name (write e.g. faithfulness or faithfulness[claims])")
    return found.group(1), found.group(2)
