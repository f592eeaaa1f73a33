"""The pytest-xdist controller's account of its workers' checks, so that a worker that crashed is
never taken for a smaller run.

A worker hands its records to the controller once, when it finishes (``pytest_sessionfinish``); one
that dies on the way (a segfault, ``os._exit``, the OOM killer) hands nothing, and the run's summary,
gates and results files would cover only the other workers' checks while reading like the whole
run. So each report a worker makes carries how many checks its phase made
(:data:`~.unjudged.CHECKS`), the controller adds them up per worker as the reports arrive, and a
worker that goes down without its records has lost exactly what it reported, plus whatever the test
it was running had made (that test never reported). The summary and the results file's run record
say so, and that the judgments are in the judgment cache, so rerunning those tests is free.

Standard library and pytest only: this runs on the controller, which imports nothing heavy unless a
worker sent records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ..run_record import LostRecords
from .unjudged import CHECKS, late_lines

if TYPE_CHECKING:
    from .session import RagSession

WORKER_RECORDS = "pytest_rag_records"
"""Key of a worker's ``workeroutput`` holding its records (JSON rows)."""
WORKER_LATE = "pytest_rag_late"
"""Key of a worker's ``workeroutput`` holding its checks without a verdict that no report saw."""
WORKER_MUTANTS = "pytest_rag_mutants"
"""Key of a worker's ``workeroutput`` holding its mutants' records (``--rag-mutants``)."""
WORKER_SUITE = "pytest_rag_suite"
"""Key of a worker's ``workeroutput`` holding the suite of its collection: the controller collects
nothing, so the results file learns its suite from the workers."""


@dataclass
class WorkerTally:
    """Per worker: the checks its reports announced; what went missing when one crashed; and the
    late non-verdicts the finished ones sent (:func:`~.unjudged.late_lines`)."""

    reported: Counter[str] = field(default_factory=Counter)
    lost: dict[str, int] = field(default_factory=dict)
    late: list[str] = field(default_factory=list)

    def lost_records(self) -> LostRecords | None:
        """What crashed workers took with them, or None when no worker crashed."""
        if not self.lost:
            return None
        return LostRecords(checks=sum(self.lost.values()), workers=tuple(sorted(self.lost)), at_least=True)


TALLY_KEY = pytest.StashKey[WorkerTally]()


def tally_of(config: pytest.Config) -> WorkerTally | None:
    """The controller's tally, if any worker has reported a check or gone down."""
    return config.stash.get(TALLY_KEY, None)


def count_reported(report: Any) -> None:
    """A report the controller received from a worker (``report.node``): count the checks it made."""
    checks = getattr(report, CHECKS, 0)
    node = getattr(report, "node", None)
    if checks and node is not None:
        tally = node.config.stash.setdefault(TALLY_KEY, WorkerTally())
        tally.reported[_worker_id(node)] += int(checks)


def worker_down(node: Any, error: object) -> list[dict[str, Any]]:
    """A worker went down: the record rows it sent (none if it crashed, whose reported checks are then
    lost), its late non-verdicts kept for the run's end."""
    output = getattr(node, "workeroutput", None) or {}
    tally = node.config.stash.setdefault(TALLY_KEY, WorkerTally())
    tally.late.extend(str(line) for line in output.get(WORKER_LATE, ()))
    if output.get(WORKER_SUITE):
        from ..run_record import SUITE_KEY, Suite

        node.config.stash.setdefault(SUITE_KEY, Suite.from_json(output[WORKER_SUITE]))
    rows = output.get(WORKER_RECORDS)
    if rows is None and error is not None:
        worker = _worker_id(node)
        tally.lost[worker] = tally.lost.get(worker, 0) + tally.reported[worker]
        return []
    return list(rows or [])


def mutant_rows(node: Any) -> list[dict[str, Any]]:
    """The mutants' records a finished worker sent (none from a crashed one)."""
    output = getattr(node, "workeroutput", None) or {}
    return list(output.get(WORKER_MUTANTS) or [])


def hand_over(
    workeroutput: dict[str, Any], rag: RagSession | None, config: pytest.Config, records_the_run: bool
) -> None:
    """A worker's end: its records, its checks without a verdict that no report saw, its mutants
    (judged here, as a serial run judges them at its end) and, when the run writes a results file,
    the suite it collected, for the controller (:func:`worker_down`, :func:`mutant_rows`)."""
    workeroutput[WORKER_RECORDS] = rag.results.to_json_rows() if rag is not None else []
    workeroutput[WORKER_LATE] = late_lines(rag) if rag is not None else []
    if rag is not None and rag.mutants is not None:
        from ..mutants.records import to_json_rows

        workeroutput[WORKER_MUTANTS] = to_json_rows(rag.judge_mutants())
    if records_the_run:
        from ..run_record import SUITE_KEY

        suite = config.stash.get(SUITE_KEY, None)
        workeroutput[WORKER_SUITE] = suite.to_json() if suite is not None else None


def _worker_id(node: Any) -> str:
    gateway = getattr(node, "gateway", None)
    return str(getattr(gateway, "id", None) or getattr(node, "workerinput", {}).get("workerid", "?"))


def lost_lines(lost: LostRecords, cache_mode: str) -> list[str]:
    """What the summary says of records a crashed worker took with it."""
    workers = ", ".join(lost.workers)
    count = f"at least {lost.checks}" if lost.at_least else str(lost.checks)
    if cache_mode in ("rw", "refresh"):
        rerun = (
            "their judgments are in the judgment cache (the offline judge's are recomputed, free), so "
            "rerunning those tests pays for none of them"
        )
    elif cache_mode in ("ro", "replay"):
        rerun = (
            f"they were read from the judgment cache (--rag-cache={cache_mode}), so a rerun reads them again"
        )
    else:
        rerun = "--rag-cache=off stored none of their judgments: a rerun judges them again"
    return [
        f"pytest-rag: {count} check record(s) lost: worker {workers} crashed before handing over its "
        f"records (the {lost.checks} its finished tests reported, and any the test it was running made); "
        f"the summary, gates and results files leave them out; {rerun}"
    ]
