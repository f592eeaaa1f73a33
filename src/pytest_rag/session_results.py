"""The run's record of every judged check: the one source the summary, exports and reports read.

Kept apart from the pydantic models so that creating it at start-up imports nothing heavy: a suite
that never asks for ``rag_judge`` pays only for pytest-rag's options.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .results import CheckRecord


class SessionResults:
    """Every check of the run, in the order recorded; thread safe (batch forms record concurrently)."""

    def __init__(self) -> None:
        self._records: list[CheckRecord] = []
        self._lock = threading.Lock()

    def add(self, record: CheckRecord) -> None:
        with self._lock:
            self._records.append(record)

    def extend(self, records: list[CheckRecord]) -> None:
        with self._lock:
            self._records.extend(records)

    def __iter__(self) -> Iterator[CheckRecord]:
        with self._lock:
            return iter(list(self._records))

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def for_test(self, test_id: str) -> list[CheckRecord]:
        return [r for r in self if r.test_id == test_id]

    def to_json_rows(self) -> list[dict[str, Any]]:
        return [r.model_dump(mode="json") for r in self]

    def load_json_rows(self, rows: list[dict[str, Any]]) -> None:
        from .results import CheckRecord

        self.extend([CheckRecord.model_validate(row) for row in rows])
