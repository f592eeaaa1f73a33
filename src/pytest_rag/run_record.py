"""What a run was: the tests pytest collected and ran, how it ended, and which shard of a split it was.

A results file carries this record beside its checks because the checks alone cannot say whether
the run that wrote them was whole: a shard whose collection failed writes no check at all, one
stopped by ``-x`` writes only the checks it reached, and both read like a smaller suite. ``pytest-rag
merge`` refuses such shards by reading this record (:mod:`.regression.shards`), and the HTML report's
run card shows the tests as pytest counted them beside the checks.

:class:`RunCounter` gathers the counts while the run goes: a small plugin object on the controller (a
serial run, or the pytest-xdist controller, which hears every worker's reports). The exit status and
whether the run stopped early are known only in ``pytest_sessionfinish``, after pytest computed the
status, where :func:`record_run` reads them off the session. Standard library and pytest only: the
counter is registered at start-up, when nothing heavy may load.

The record also names the suite the run belongs to (:class:`Suite`): a fingerprint of every test
collected, taken before ``-k``, ``-m``, ``--deselect`` or pytest-split deselect any, so every shard
of one suite carries the same one whatever part it ran, and a shard of another suite (or of another
pytest-rag version) does not. Under pytest-xdist the controller collects nothing: each worker takes
the fingerprint of its own collection and hands it on with its records.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from . import __version__

#: Where the run's counter is kept (set only when a results file or HTML report will need it).
COUNTER_KEY = pytest.StashKey["RunCounter"]()
#: The suite this process collected (set before deselection, when a file will record the run).
SUITE_KEY = pytest.StashKey["Suite"]()
#: pytest's exit statuses by number ("tests failed", "interrupted", ...), for lines that name one.
EXIT_STATUS_NAMES = {int(code): code.name.lower().replace("_", " ") for code in pytest.ExitCode}
#: The order of pytest's own final line ("2 failed, 9 passed, 8 xfailed"); other outcomes follow.
OUTCOME_ORDER = ("failed", "passed", "skipped", "deselected", "xfailed", "xpassed", "error")


@dataclass(frozen=True)
class Suite:
    """Which suite a run belongs to: how many tests its collection held before any was deselected,
    and a fingerprint of their node ids and the pytest-rag version (:func:`suite_of`)."""

    fingerprint: str
    tests: int

    def __str__(self) -> str:
        return f"a suite of {self.tests} test(s), fingerprint {self.fingerprint}"

    def to_json(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "tests": self.tests}

    @classmethod
    def from_json(cls, data: Any) -> Suite:
        if not isinstance(data, Mapping):
            raise ValueError(f"'suite' is {data!r}, not an object")
        return cls(fingerprint=_text(data, "fingerprint"), tests=_count(data, "tests"))


def suite_of(node_ids: Iterable[str]) -> Suite:
    """The suite of these collected tests: sorted (pytest-randomly or a worker's order changes no
    fingerprint), one per line after the pytest-rag version, hashed (SHA-256, first 16 hex digits)."""
    ids = sorted(set(node_ids))
    digest = hashlib.sha256(f"pytest-rag {__version__}\n".encode())
    for node_id in ids:
        digest.update(node_id.encode("utf-8", "surrogatepass") + b"\n")
    return Suite(digest.hexdigest()[:16], len(ids))


def note_suite(config: pytest.Config, items: Sequence[pytest.Item]) -> None:
    """Keep the suite of ``items``, the whole collection, for the run record."""
    config.stash[SUITE_KEY] = suite_of(item.nodeid for item in items)


@dataclass(frozen=True)
class ShardEntry:
    """One shard of a merged run: its results file, how many checks it held, and its own run record
    (None for a file of format version 1, which keeps none)."""

    file: str
    checks: int
    run: RunRecord | None


@dataclass(frozen=True)
class LostRecords:
    """Check records a run made but could not keep: a pytest-xdist worker that crashed took the
    records of every test it had finished with it. ``checks`` is what those tests reported; with
    ``at_least`` the test the worker was running may have made more, which it never reported."""

    checks: int
    workers: tuple[str, ...]
    at_least: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"checks": self.checks, "workers": list(self.workers), "at_least": self.at_least}

    @classmethod
    def from_json(cls, data: Any) -> LostRecords:
        if not isinstance(data, Mapping):
            raise ValueError(f"'records_lost' is {type(data).__name__}, not an object")
        workers = data.get("workers") or []
        if not isinstance(workers, list) or not all(isinstance(w, str) for w in workers):
            raise ValueError("'records_lost.workers' is not a list of worker names")
        at_least = data.get("at_least", True)
        if not isinstance(at_least, bool):
            raise ValueError(f"'records_lost.at_least' is {at_least!r}, not true or false")
        return cls(checks=_count(data, "checks"), workers=tuple(workers), at_least=at_least)


@dataclass(frozen=True)
class RunRecord:
    """One pytest run as its results file describes it.

    ``tests_collected`` is pytest's count after deselection (so a pytest-split group counts its own
    tests), ``tests_run`` the tests that went through setup and teardown, ``outcomes`` pytest's own
    tally ("passed", "xfailed", "error", ...), ``stopped_early`` why the run ended before every
    collected test ran (``-x``, ``--maxfail``, an interruption), ``group``/``splits`` the
    pytest-split group, ``suite`` the suite it belongs to (None: written by a pytest-rag that did
    not record it, or nothing was collected), ``records_lost`` the check records a crashed
    pytest-xdist worker took with it (None when none was lost). A merged run lists its ``shards``.
    ``schema_fallbacks`` counts the run's requests that went without the strict schema of their
    verdict because the provider refused it (the checks' call tallies say which schema and why).
    """

    run_id: str
    plugin_version: str
    tests_collected: int
    tests_run: int
    exit_status: int
    outcomes: Mapping[str, int] = field(default_factory=dict)
    collection_errors: int = 0
    stopped_early: str | None = None
    group: int | None = None
    splits: int | None = None
    shards: tuple[ShardEntry, ...] = ()
    schema_fallbacks: int = 0
    suite: Suite | None = None
    records_lost: LostRecords | None = None

    @property
    def split_label(self) -> str | None:
        """``group 2 of 3`` for a pytest-split shard, else None."""
        return f"group {self.group} of {self.splits}" if self.group is not None else None

    @property
    def exit_label(self) -> str:
        """``exit status 1 (tests failed)``."""
        name = EXIT_STATUS_NAMES.get(self.exit_status)
        return f"exit status {self.exit_status}" + (f" ({name})" if name else "")

    def outcome_text(self) -> str:
        """The tests as pytest's final line counts them: ``9 passed, 8 xfailed``."""
        known = [name for name in OUTCOME_ORDER if self.outcomes.get(name)]
        others = sorted(name for name in self.outcomes if name not in OUTCOME_ORDER and self.outcomes[name])
        shown = [f"{self.outcomes[name]} {name}" for name in [*known, *others]]
        return ", ".join(shown) or "no tests"

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "plugin_version": self.plugin_version,
            "tests_collected": self.tests_collected,
            "tests_run": self.tests_run,
            "exit_status": self.exit_status,
            "outcomes": dict(self.outcomes),
            "collection_errors": self.collection_errors,
            "stopped_early": self.stopped_early,
            "group": self.group,
            "splits": self.splits,
            "schema_fallbacks": self.schema_fallbacks,
            "suite": self.suite.to_json() if self.suite is not None else None,
            "shards": [
                {"file": s.file, "checks": s.checks, "run": s.run.to_json() if s.run else None}
                for s in self.shards
            ],
            "records_lost": self.records_lost.to_json() if self.records_lost is not None else None,
        }

    @classmethod
    def from_json(cls, data: Any) -> RunRecord:
        """The record :meth:`to_json` wrote; a ValueError says which field is wrong and how."""
        if not isinstance(data, Mapping):
            raise ValueError(f"the run record is {type(data).__name__}, not an object")
        outcomes = data.get("outcomes") or {}
        if not isinstance(outcomes, Mapping):
            raise ValueError("'outcomes' is not an object of counts")
        shards = data.get("shards") or []
        if not isinstance(shards, list) or not all(isinstance(s, Mapping) for s in shards):
            raise ValueError("'shards' is not a list of objects")
        return cls(
            run_id=_text(data, "run_id"),
            plugin_version=_text(data, "plugin_version"),
            tests_collected=_count(data, "tests_collected"),
            tests_run=_count(data, "tests_run"),
            exit_status=_count(data, "exit_status"),
            outcomes={str(name): _count(outcomes, name) for name in outcomes},
            collection_errors=_count(data, "collection_errors", 0),
            stopped_early=_text(data, "stopped_early", optional=True),
            group=_count(data, "group", None),
            splits=_count(data, "splits", None),
            schema_fallbacks=_count(data, "schema_fallbacks", 0),
            shards=tuple(
                ShardEntry(
                    file=_text(s, "file"),
                    checks=_count(s, "checks"),
                    run=cls.from_json(s["run"]) if s.get("run") is not None else None,
                )
                for s in shards
            ),
            suite=Suite.from_json(data["suite"]) if data.get("suite") is not None else None,
            records_lost=(
                LostRecords.from_json(data["records_lost"]) if data.get("records_lost") is not None else None
            ),
        )


def _text(data: Mapping[str, Any], name: str, *, optional: bool = False) -> Any:
    value = data.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name!r} is {value!r}, not a string")
    return value


def _count(data: Mapping[str, Any], name: str, default: Any = ...) -> Any:
    value = data.get(name)
    if value is None and default is not ...:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name!r} is {value!r}, not a count")
    return value


def new_run_id() -> str:
    """An id that tells one run (or merge) from every other: a shard passed twice under two names
    has the same one."""
    return uuid.uuid4().hex[:16]


class RunCounter:
    """Counts, as the run goes, what pytest's final line counts, which tests ran, and the collection
    errors; registered on the controller, which also hears the reports of pytest-xdist workers."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.outcomes: Counter[str] = Counter()
        self.collection_errors = 0
        self.ran: set[str] = set()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors += 1
            self.outcomes["error"] += 1
        elif report.skipped:
            self.outcomes["skipped"] += 1

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        self.outcomes["deselected"] += len(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":  # every test that started ends with one (rerun plugins: one each)
            self.ran.add(report.nodeid)
        category = self.config.hook.pytest_report_teststatus(report=report, config=self.config)[0]
        if category and getattr(report, "count_towards_summary", True):
            self.outcomes[str(category)] += 1


def count_the_run(config: pytest.Config) -> None:
    """Start counting this run (on the controller, before collection)."""
    counter = config.stash[COUNTER_KEY] = RunCounter(config)
    config.pluginmanager.register(counter, "pytest-rag-run-counter")


def record_run(session: pytest.Session, counter: RunCounter) -> RunRecord:
    """The run as it ended, read in ``pytest_sessionfinish`` once pytest has set the exit status."""
    status = int(session.exitstatus)
    collected, ran = session.testscollected, len(counter.ran)
    stopped = None
    if ran < collected or status == pytest.ExitCode.INTERRUPTED:
        reason = session.shouldfail or session.shouldstop
        if not reason and status == pytest.ExitCode.INTERRUPTED:
            reason = "interrupted by collection errors" if counter.collection_errors else "interrupted"
        stopped = str(reason or "not every collected test ran")
    group, splits = _split_group(session.config)
    return RunRecord(
        run_id=new_run_id(),
        plugin_version=__version__,
        tests_collected=collected,
        tests_run=ran,
        exit_status=status,
        outcomes=dict(counter.outcomes),
        collection_errors=counter.collection_errors,
        stopped_early=stopped,
        group=group,
        splits=splits,
        suite=session.config.stash.get(SUITE_KEY, None),
    )


def _split_group(config: pytest.Config) -> tuple[int | None, int | None]:
    """pytest-split's ``--group``/``--splits`` when both are given (the options exist only with it)."""
    group, splits = config.getoption("group", None), config.getoption("splits", None)
    if isinstance(group, int) and isinstance(splits, int):
        return group, splits
    return None, None
