"""A test whose check ended without a verdict is an error: never a pass, a skip or an expected failure.

A judged assertion that could not be judged (no API key, a replay-cache miss, a spent budget, a judge
that kept replying nonsense, inputs the metric cannot read, a metric name nobody registered) has
learnt nothing about the application. Left alone, pytest would still let such a test end green: an
``xfail`` mark turns the error into an expected failure, ``pytest.raises(Exception)`` or a
``try``/``except`` swallows it, an ``evaluate()`` table carries it as a row. So after pytest has made
the report of each phase of a test (set-up, call, teardown; outside the ``xfail`` handling),
:func:`judge_phase` takes the checks made and the calls refused since the report before
(:meth:`~.session_results.SessionResults.take_unexamined`) and :func:`judge_report` turns the report
into an error when one of them has no verdict, whatever the test's marks and whatever the test made
of the exception. A check in a fixture is held to it too: in the set-up or teardown report of the
test it runs for, and for a fixture of wider scope (``rag_session_judge``), in the report of the
test whose phase runs it, pytest's own rule for a failing fixture: a module's or the session's
fixture is torn down in the teardown of its last test. A check no report saw (made after the last
one: a session fixture torn down when ``-x`` stopped the run, a thread still running) fails the run
at its end (:func:`late_lines`). Two kinds of non-verdict are no error: checks only counted under
``--rag-dry-run`` and checks waiting for a provider batch under ``--rag-batch``; their tests are
skipped (:func:`pytest_rag.engine.spending.skip_not_judged`), and the summary says how many.

The report carries its verdict in the attribute :data:`NO_VERDICT`, a string, so it survives
pytest-xdist's serialization; the terminal reads it through :func:`status_of`, the JUnit XML
through :class:`JUnitErrors`, the summary through :func:`tally_lines`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import ConfigError, NotJudgedError, NoVerdictError, RagError, WaitingForBatchError, cut_text

if TYPE_CHECKING:
    from ..config import RagSettings
    from ..results import CheckRecord
    from .session import RagSession

CHECKS = "rag_checks"
"""Name of the report attribute holding how many checks its phase made, set when there were some: the
pytest-xdist controller counts the checks each worker reported (:mod:`.workers`)."""

NO_VERDICT = "rag_no_verdict"
"""Name of the report attribute: ``"error"`` for a test made an error here, or why a test was skipped
without a verdict (``"dry run"``, ``"batch"``)."""

ERROR = "error"
DRY_RUN = "dry run"
BATCH = "batch"

#: Most different non-verdicts listed in one test's report, and most characters of each.
SHOWN = 5
LINE_CHARS = 300


def pending_kinds(settings: RagSettings) -> frozenset[str]:
    """Error kinds of checks that wait for a later run instead of failing this one: counted under
    ``--rag-dry-run``, queued under ``--rag-batch``. Anywhere else (a batch ``evaluate`` that timed out
    in a run that waits for its batches) they are checks without a verdict like any other."""
    kinds = set()
    if settings.dry_run:
        kinds.add(NotJudgedError.__name__)
    if settings.batch.enabled:
        kinds.add(WaitingForBatchError.__name__)
    return frozenset(kinds)


def non_verdicts(
    records: Iterable[CheckRecord], refused: Sequence[RagError], pending: frozenset[str]
) -> list[str]:
    """One line per check of a test that ended without a verdict: recorded judge errors, then the
    checks refused before judging; the pending kinds left out."""
    lines = [
        f"{record.metric} [{record.judge}]: {record.error_kind}: {_first_line(record.error or '')}"
        for record in records
        if record.error is not None and record.error_kind not in pending
    ]
    lines.extend(f"{type(error).__name__}: {_first_line(str(error))}" for error in refused)
    return lines


def late_lines(rag: RagSession) -> list[str]:
    """At the end of a process: one line per check (or refused call) without a verdict that no test's
    report took, having been made after the last one."""
    records, refused = rag.results.take_unexamined()
    return non_verdicts(records, refused, pending_kinds(rag.settings))


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def _raised_non_verdict(excinfo: pytest.ExceptionInfo[BaseException] | None, pending: frozenset[str]) -> bool:
    """True when the test stopped at a pytest-rag error that is no pending check."""
    return (
        excinfo is not None
        and excinfo.errisinstance(RagError)
        and type(excinfo.value).__name__ not in pending
    )


def judge_phase(
    test_id: str,
    report: pytest.TestReport,
    excinfo: pytest.ExceptionInfo[BaseException] | None,
    rag: RagSession,
) -> None:
    """Hold the phase ``report`` describes to the verdict rule: the checks made and calls refused
    since the last report (this phase's), counted on the report for the pytest-xdist controller; a
    test whose checks were counted or queued instead of judged skipped; a snapshot that had nothing
    judged to compare left out of syrupy's report."""
    records, refused = rag.results.take_unexamined()
    if records:
        setattr(report, CHECKS, len(records))
    settings = rag.settings
    test_records = rag.results.for_test(test_id) if report.when != "teardown" else records
    if settings.dry_run or rag.batching:
        from ..engine.spending import skip_at_test, skip_not_judged

        skip_not_judged(report, excinfo, test_records)
        if excinfo is not None and report.skipped and type(excinfo.value).__name__ == "NotCompared":
            from ..regression.snapshot import forget_uncompared

            forget_uncompared(excinfo)
            skip_at_test(report, str(excinfo.value))
    waiting = any(r.error_kind in pending_kinds(settings) for r in test_records)
    judge_report(report, excinfo, records, refused, settings, waiting=waiting)


def judge_report(
    report: pytest.TestReport,
    excinfo: pytest.ExceptionInfo[BaseException] | None,
    records: Iterable[CheckRecord],
    refused: Sequence[RagError],
    settings: RagSettings,
    *,
    waiting: bool = False,
) -> None:
    """Make ``report`` an error when a check of its phase (``records``, ``refused``) ended without a
    verdict; mark a test skipped because its checks (``waiting``) were only counted or queued, for the
    summary's count."""
    pending = pending_kinds(settings)
    lines = non_verdicts(records, refused, pending)
    raised = _raised_non_verdict(excinfo, pending)
    if not lines and not raised:
        if report.skipped and waiting:
            setattr(report, NO_VERDICT, DRY_RUN if settings.dry_run else BATCH)
        return
    excused = _excuse(report)
    report.outcome = "failed"
    setattr(report, NO_VERDICT, ERROR)
    if not raised:
        report.longrepr = _no_verdict_repr(lines, excinfo, report.when)
    elif report.when != "call" and excinfo is not None and excinfo.errisinstance(ConfigError):
        # the run's judges could not be built (the rag_judge fixture): the message says it all
        report.longrepr = f"pytest-rag: {excinfo.value}"
    if excused:
        note = (
            f"pytest-rag: {excused}, but a check of it ended without a verdict, so it proves nothing: "
            "that is an error, never an expected failure, a skip or a pass"
        )
        _add_note(report, note)


def _excuse(report: pytest.TestReport) -> str | None:
    """What pytest was about to make of the test (an expected failure, a pass), undone here."""
    reason = getattr(report, "wasxfail", None)
    if reason is not None:
        del report.wasxfail
        return f"this test is marked xfail ({reason})" if reason else "this test is marked xfail"
    if isinstance(report.longrepr, str) and report.longrepr.startswith("[XPASS(strict)]"):
        return "this test is marked xfail(strict=True)"
    if report.passed:  # it caught the error, or it never raised: an evaluate() table holds it as a row
        return "this test passed" if report.when == "call" else f"the {_PHASES[report.when]} passed"
    if report.skipped:
        return f"the {_PHASES[report.when]} was skipped" if report.when != "call" else "this test was skipped"
    return None


_PHASES = {"setup": "set-up of this test", "call": "test", "teardown": "teardown of this test"}
"""How a message names the phase a check was made in."""


def _no_verdict_repr(
    lines: Sequence[str], excinfo: pytest.ExceptionInfo[BaseException] | None, when: str = "call"
) -> Any:
    """The report of a phase that did not raise its non-verdict itself: the checks and what they ended
    in, as an exception pytest shows without a traceback (and the short summary shows by its first
    line)."""
    counted = Counter(cut_text(line, LINE_CHARS) for line in lines)
    shown = [f"  - {line}" + (f" (x{n})" if n > 1 else "") for line, n in list(counted.items())[:SHOWN]]
    if len(counted) > SHOWN:
        shown.append(f"  ... and {sum(list(counted.values())[SHOWN:])} more")
    where = "of this test" if when == "call" else f"made in the {_PHASES[when]} (its fixtures)"
    message = f"{len(lines)} check(s) {where} ended without a verdict:\n" + "\n".join(shown)
    if excinfo is not None:
        own = _first_line(excinfo.exconly())
        message += f"\nthe test itself then ended with {own}"
    try:
        raise NoVerdictError(message)
    except NoVerdictError as exc:
        info = pytest.ExceptionInfo.from_exception(exc)
    return info.getrepr(style="value", chain=False)


def _add_note(report: pytest.TestReport, note: str) -> None:
    longrepr = report.longrepr
    add_section = getattr(longrepr, "addsection", None)  # an exception's repr: shown after it, kept by xdist
    if add_section is not None:
        add_section("pytest-rag", note)
    else:
        report.longrepr = f"{longrepr}\n{note}" if longrepr else note


def status_of(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """The terminal's category, letter and word for a report made an error here."""
    if getattr(report, NO_VERDICT, None) == ERROR and report.failed:
        return "error", "E", "ERROR"
    return None


class JUnitErrors:
    """Registered at start-up when a JUnit XML file is written: in it, the ``<failure>`` of a test made
    an error here becomes an ``<error>``, as for a test whose set-up failed (CI systems count and show
    the two apart). It runs after pytest's writer has seen the report (on the controller of a
    pytest-xdist run), and leaves the failure when that writer is not the one this was written for."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if getattr(report, NO_VERDICT, None) != ERROR or report.when != "call":
            return
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - another pytest
            return
        xml = self.config.stash.get(xml_key, None)
        stats = getattr(xml, "stats", None)
        if xml is None or not isinstance(stats, dict):
            return
        nodes = getattr(xml.node_reporter(report), "nodes", [])
        for node in reversed(nodes):
            if getattr(node, "tag", None) == "failure":
                node.tag = "error"
                stats["failure"] = stats.get("failure", 1) - 1
                stats["error"] = stats.get("error", 0) + 1
                return


def tally_lines(stats: Mapping[str, Sequence[Any]]) -> list[str]:
    """The summary's lines on tests that ended without a verdict, counted from the terminal's reports
    (on the controller of a pytest-xdist run, the workers' reports)."""
    tests: dict[str, set[str]] = {}
    for reports in stats.values():
        for report in reports:
            kind = getattr(report, NO_VERDICT, None)
            if kind is not None:  # a test counts once, whichever of its phases (or how many) it was
                tests.setdefault(kind, set()).add(getattr(report, "nodeid", ""))
    counts = {kind: len(ids) for kind, ids in tests.items()}
    lines = []
    if counts.get(ERROR):
        lines.append(
            f"{counts[ERROR]} test(s) reported as errors: a check ended without a verdict (judge error, "
            "cache miss, bad input or configuration), whatever the test's marks"
        )
    if counts.get(DRY_RUN):
        lines.append(f"{counts[DRY_RUN]} test(s) skipped: --rag-dry-run counted their checks, none judged")
    if counts.get(BATCH):
        lines.append(f"{counts[BATCH]} test(s) skipped: their checks wait for provider batches (--rag-batch)")
    return lines
