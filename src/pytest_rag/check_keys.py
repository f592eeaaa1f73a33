"""What names a check across runs: its metric label, its key, and the order every report lists it in.

A check of one run and the same check of another (a baseline, a CI shard, a pytest-xdist worker)
are recognised by these names alone, so the results file, the baseline comparison, ``pytest-rag
merge``, the gold labels, the repeats block and the HTML report all read them from here instead of
each spelling them out. Standard library only: reading a key costs nothing beyond the record.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import CheckRecord


def metric_label(record: CheckRecord) -> str:
    """How the summary names a metric: ``faithfulness``, or ``faithfulness[claims]`` for a mode."""
    return record.metric if record.mode == "default" else f"{record.metric}[{record.mode}]"


def keyed_records(records: Iterable[CheckRecord]) -> list[tuple[str, CheckRecord]]:
    """Every record with a key that names the same check in another run, sorted by that key.

    The key is ``test_id`` plus ``[sample_id]`` when the check scored a named sample, plus ``#N`` for
    the N-th check of the same metric and judge within that test and sample (N > 0 only).
    """
    seen: dict[tuple[str, str, str, str], int] = {}
    keyed: list[tuple[tuple[str, ...], str, CheckRecord]] = []
    for record in records:
        ident = (record.test_id, record.sample_id or "", metric_label(record), record.judge)
        occurrence = seen.get(ident, 0)
        seen[ident] = occurrence + 1
        key = record.test_id + (f"[{record.sample_id}]" if record.sample_id else "")
        if occurrence:
            key += f"#{occurrence}"
        keyed.append(((*ident, f"{occurrence:06d}"), key, record))
    keyed.sort(key=lambda item: item[0])
    return [(key, record) for _, key, record in keyed]


def report_order(records: Iterable[CheckRecord]) -> list[CheckRecord]:
    """The records in the order of a results file (by check key), whatever order they were recorded in.

    Everything printed at the end of a run reads the records in this order: the bootstrap resamples
    by position, so a serial run, a pytest-xdist run (records arrive as workers finish) and a merge of
    CI shards print the same intervals for the same checks only when they agree on the order."""
    return [record for _, record in keyed_records(records)]
