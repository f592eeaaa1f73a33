"""What names a check across runs: its metric label (and its parsing), the sample id of a conversation's
turn, its key, and the order every report lists it in.

A check of one run and the same check of another (a baseline, a CI shard, a pytest-xdist worker)
are recognised by these names alone, so the results file, the baseline comparison, ``pytest-rag
merge``, the gold labels, the repeats block and the HTML report all read them from here instead of
each spelling them out. Standard library only: reading a key costs nothing beyond the record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .results import CheckRecord


class OfASample(Protocol):
    """Anything judged on one sample of a test: a check's record, a row of a batch's table."""

    @property
    def sample_id(self) -> str | None: ...

    @property
    def sample_index(self) -> int | None: ...


_TURN_ID_RE = re.compile(r"turn (\d+)")
_LABEL_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([A-Za-z_][A-Za-z0-9_]*)\])?")


def metric_label(record: CheckRecord) -> str:
    """How the summary names a metric: ``faithfulness``, or ``faithfulness[claims]`` for a mode."""
    return record.metric if record.mode == "default" else f"{record.metric}[{record.mode}]"


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


def sample_tag(record: OfASample) -> str:
    """Which sample of its test a check judged: ``[q17]`` for a sample with an id, ``[#3]`` for the
    fourth sample of a ``rag_judge.evaluate`` call without one (the index counts from 0, as the
    table ``evaluate`` returns does), and nothing for a check of a single sample."""
    if record.sample_id:
        return f"[{record.sample_id}]"
    return f"[#{record.sample_index}]" if record.sample_index is not None else ""


def _keyed(records: Iterable[CheckRecord]) -> list[tuple[tuple[object, ...], str, CheckRecord]]:
    """Every record, in the order given, with its sort key and its check key."""
    seen: dict[tuple[str, str, str, str], int] = {}
    keyed: list[tuple[tuple[object, ...], str, CheckRecord]] = []
    for record in records:
        tag = sample_tag(record)
        ident = (record.test_id, tag, metric_label(record), record.judge)
        occurrence = seen.get(ident, 0)
        seen[ident] = occurrence + 1
        key = record.test_id + tag + (f"#{occurrence}" if occurrence else "")
        # samples without an id sort by their index as a number, after the checks of the test itself
        index = record.sample_index if not record.sample_id and record.sample_index is not None else -1
        order = (record.test_id, record.sample_id or "", index, *ident[2:], occurrence)
        keyed.append((order, key, record))
    return keyed


def keyed_records(records: Iterable[CheckRecord]) -> list[tuple[str, CheckRecord]]:
    """Every record with a key that names the same check in another run, sorted by that key.

    The key is ``test_id`` plus the :func:`sample_tag` of the sample the check scored, plus ``#N`` for
    the N-th check of the same metric and judge within that test and sample (N > 0 only).
    """
    keyed = _keyed(records)
    keyed.sort(key=lambda item: item[0])
    return [(key, record) for _, key, record in keyed]


def check_keys(records: Iterable[CheckRecord]) -> list[str]:
    """The key of every record, in the order given (a report that lists records by position)."""
    return [key for _, key, _ in _keyed(records)]


def report_order(records: Iterable[CheckRecord]) -> list[CheckRecord]:
    """The records in the order of a results file (by check key), whatever order they were recorded in.

    Everything printed at the end of a run reads the records in this order: the bootstrap resamples
    by position, so a serial run, a pytest-xdist run (records arrive as workers finish) and a merge of
    CI shards print the same intervals for the same checks only when they agree on the order."""
    return [record for _, record in keyed_records(records)]
