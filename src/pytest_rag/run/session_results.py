"""The session results: every check of the run as a :class:`~pytest_rag.results.CheckRecord`, the one
source the summary, results files, HTML report, JUnit properties and snapshots read from.

A check is recorded once, scored or failed, and the plugins hear of it through the
``pytest_rag_check_recorded`` hook. Records that arrive from pytest-xdist workers were announced in
their worker and are only added here.

The checks of this process, and the calls refused before they became checks, also wait here to be
examined: each report pytest makes (set-up, call, teardown) takes what was made since the one before
(:meth:`SessionResults.take_unexamined`), so a check made in any phase of a test, a fixture of any
scope included, is held to the verdict rule by the report of that phase (:mod:`.unjudged`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import RagError
from ..results import CheckRecord


class SessionResults:
    """Every check of the run, in the order recorded; thread safe (batch forms record concurrently)."""

    def __init__(self, announce: Callable[[CheckRecord], None] = lambda record: None) -> None:
        self._records: list[CheckRecord] = []
        self._by_test: dict[str, list[CheckRecord]] = {}
        """The same records by test: every test's report reads its own (:mod:`pytest_rag.run.unjudged`)."""
        self._lock = threading.Lock()
        self._announce = announce
        self._unexamined: list[CheckRecord] = []
        self._refused: list[RagError] = []

    def record(self, record: CheckRecord) -> None:
        """Keep one check of this process and tell the plugins about it."""
        with self._lock:
            self._records.append(record)
            self._by_test.setdefault(record.test_id, []).append(record)
            self._unexamined.append(record)
        self._announce(record)

    def refuse(self, error: RagError) -> None:
        """A call of this process refused before a judge was asked (bad input, unknown metric, no
        bar): never a check, yet its test proves nothing."""
        with self._lock:
            self._refused.append(error)

    def take_unexamined(self) -> tuple[list[CheckRecord], list[RagError]]:
        """The checks and refusals of this process since the last call: what the phase of a test that
        is being reported made (or, for ones made after their test was over, what no report saw)."""
        with self._lock:
            taken = self._unexamined, self._refused
            self._unexamined, self._refused = [], []
        return taken

    def __iter__(self) -> Iterator[CheckRecord]:
        with self._lock:
            return iter(list(self._records))

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def for_test(self, test_id: str) -> list[CheckRecord]:
        with self._lock:
            return list(self._by_test.get(test_id, ()))

    def to_json_rows(self) -> list[dict[str, Any]]:
        """The records as a pytest-xdist worker sends them to the controller."""
        return [r.model_dump(mode="json") for r in self]

    def load_json_rows(self, rows: list[dict[str, Any]]) -> None:
        """Add the records a pytest-xdist worker sent (already announced in that worker)."""
        records = [CheckRecord.model_validate(row) for row in rows]
        with self._lock:
            self._records.extend(records)
            for record in records:
                self._by_test.setdefault(record.test_id, []).append(record)
