"""pytest hooks of pytest-rag. Each hook delegates to :class:`~pytest_rag.run.session.RagSession`.

Only option registration and reading (so a bad option fails at start-up) happen for suites that never
use ``rag_judge``: the session is built when a test first asks for it (:func:`rag_session`), and
judges, cache, numpy and the SDKs after that. Every pytest process pays for what this module and
``config/`` import, so nothing else is imported at start-up.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import config as rag_config
from .cases import is_case_file

if TYPE_CHECKING:
    from .config import RagSettings
    from .rag_judge import RagJudge
    from .run.session import RagSession

SESSION_KEY = pytest.StashKey["RagSession"]()
SETTINGS_KEY = pytest.StashKey["tuple[RagSettings, tuple[str, ...]]"]()
CURRENT_TEST_KEY = pytest.StashKey[str]()
"""The node id of the test whose protocol runs now (or ran last): whom ``rag_session_judge``'s checks
belong to."""
CASE_MARKERS = {
    "rag_case": "a test case read from a pytest-rag case file (*.rag.jsonl, *.rag.yaml, *.rag.csv)",
    "generated": "a case written by pytest-rag generate",
    "unreviewed": "a generated case that no one has marked reviewed yet",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    rag_config.add_options(parser)


def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    from .regression.tolerance import snapshot_default_args

    snapshot_default_args(early_config, args)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    from . import builtin

    if not config.pluginmanager.has_plugin("pytest-rag-builtin"):
        config.pluginmanager.register(builtin, "pytest-rag-builtin")
    for marker, meaning in CASE_MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: {meaning}")
    from .errors import RagError

    try:
        names = rag_config.threshold_names(config.pluginmanager, builtin)
        settings = rag_config.read_settings(config, names)
        if settings.checked_at_startup:
            from .run.startup import check_configuration

            check_configuration(config, settings, names)
        config.stash[SETTINGS_KEY] = (settings, names)
        if _records_the_run(settings) and not hasattr(config, "workerinput"):
            from .run_record import count_the_run  # what the files record of the run: tests, outcomes

            count_the_run(config)
        if settings.regression.cache_import is not None:
            from .run.run_end import import_judgments

            import_judgments(config, rag_session(config))
    except RagError as exc:
        raise pytest.UsageError(f"pytest-rag: {exc}") from None
    if config.getoption("xmlpath", None):
        from .run.unjudged import JUnitErrors

        config.pluginmanager.register(JUnitErrors(config), "pytest-rag-junit-errors")


def rag_session(config: pytest.Config) -> RagSession:
    """The run's :class:`RagSession`, built on first use from the settings read at start-up."""
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        from .run.session import RagSession

        settings, names = config.stash[SETTINGS_KEY]
        session = config.stash[SESSION_KEY] = RagSession(config, names, settings=settings)
    return session


def _session(config: pytest.Config) -> RagSession | None:
    """The session if some hook or test has built it (a run that never judged has none)."""
    return config.stash.get(SESSION_KEY, None)


def _settings(config: pytest.Config) -> RagSettings | None:
    found = config.stash.get(SETTINGS_KEY, None)
    return found[0] if found is not None else None


def _records_the_run(settings: RagSettings | None) -> bool:
    """Whether a results file or HTML report will record what the run was (:mod:`.run_record`)."""
    return settings is not None and bool(settings.regression.reports or settings.html_path)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Any:
    """The suite the run belongs to, taken from the whole collection: outermost, so before ``-k``,
    ``-m``, ``--deselect`` and pytest-split remove any item (a pytest-xdist worker takes its own)."""
    if _records_the_run(_settings(config)):
        from .run_record import note_suite

        note_suite(config, items)
    return (yield)


@pytest.fixture
def rag_judge(request: pytest.FixtureRequest) -> Iterator[RagJudge]:
    """Judged assertions for RAG answers: ``rag_judge.assert_faithful(answer, contexts)`` and friends."""
    from .rag_judge import RagJudge

    assert SETTINGS_KEY in request.config.stash, "pytest-rag is not configured"
    session = rag_session(request.config)
    session.judges()  # a judge that cannot be built is this test's error (pytest_runtest_makereport)
    yield RagJudge(session, request.node.nodeid)


@pytest.fixture(scope="session")
def rag_session_judge(pytestconfig: pytest.Config) -> Iterator[RagJudge]:
    """``rag_judge`` for fixtures of any scope (module, class, package, session): the same helpers,
    each check belonging to the test whose set-up, call or teardown runs when it is made (a wider
    fixture's teardown runs in the teardown of the last test of its scope)."""
    from .rag_judge import RagJudge

    assert SETTINGS_KEY in pytestconfig.stash, "pytest-rag is not configured"
    session = rag_session(pytestconfig)
    session.judges()
    yield RagJudge(session, lambda: pytestconfig.stash.get(CURRENT_TEST_KEY, "(no test)"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    """Whose checks ``rag_session_judge`` records from now on."""
    item.config.stash[CURRENT_TEST_KEY] = item.nodeid


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Case files (``*.rag.jsonl``, ``*.rag.yaml``, ``*.rag.csv``) become a test per case; the case
    machinery loads only when such a file is found."""
    if not is_case_file(file_path.name):
        return None
    from .cases.collect import CaseFile

    return CaseFile.from_parent(parent, path=file_path, session_of=rag_session)


@pytest.fixture
def rag_app() -> Any:
    """The app under test of case files: define it in your conftest.py (docs/cases.md)."""
    pytest.fail(
        "pytest-rag: case files need a rag_app fixture in conftest.py that returns your app as a "
        "callable: rag_app(question, history) -> (answer, contexts). See docs/cases.md",
        pytrace=False,
    )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Failures of pytest-rag read at a glance (the user's line, the message, one line for a judge
    already known to be unusable); under --rag-dry-run or --rag-batch a test whose checks were counted
    or queued instead of judged is reported as skipped; a phase (set-up, call, teardown) with a check
    that ended without a verdict makes its report an error whatever the test's marks (outermost, so
    after pytest's own xfail handling)."""
    rag = _session(item.config)
    fulltrace = item.config.getoption("fulltrace", False)
    if rag is not None and call.excinfo is not None and not fulltrace:
        from .report.tracebacks import stop_at_user_code

        stop_at_user_code(call.excinfo, item.path)
    report = yield
    if rag is None:
        return report
    if call.excinfo is not None and not fulltrace:
        from .report.tracebacks import one_line_repeat

        one_line_repeat(report, call.excinfo)
    from .run.unjudged import judge_phase

    judge_phase(item.nodeid, report, call.excinfo, rag)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A test made an error by :func:`pytest_runtest_makereport` counts and reads as one."""
    if getattr(report, "rag_no_verdict", None) is None:  # unjudged.NO_VERDICT: nothing of ours
        return None
    from .run.unjudged import status_of

    return status_of(report)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """pytest-xdist controller: count the checks each worker's reports made, so that the records a
    crashed worker never handed over are known to be lost (:mod:`pytest_rag.run.workers`)."""
    if getattr(report, "rag_checks", None) and hasattr(report, "node"):
        from .run.workers import count_reported

        count_reported(report)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist controller: merge a finished worker's records into the session results; count
    what a crashed one took with it."""
    if SETTINGS_KEY not in node.config.stash:
        return
    from .run.workers import mutant_rows, worker_down

    rows = worker_down(node, error)
    if rows:
        rag_session(node.config).results.load_json_rows(rows)
    mutants = mutant_rows(node)
    if mutants:
        found = rag_session(node.config).mutants
        if found is not None:
            found.load_json_rows(mutants, f"pytest-xdist worker {getattr(node.gateway, 'id', '?')}")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker hands its records to the controller; the controller (or a serial run)
    sees to the end of the run (:func:`pytest_rag.run.run_end.finish`). Last, so that the exit status
    the results files record is final (plugins such as syrupy change it in their own hook)."""
    settings = _settings(session.config)
    if settings is None:
        return
    workeroutput = getattr(session.config, "workeroutput", None)
    rag = _session(session.config)
    if workeroutput is not None:
        from .run.workers import hand_over

        hand_over(workeroutput, rag, session.config, _records_the_run(settings))
        return
    if rag is None:
        if (
            settings.html_path is None
            and not settings.regression.any_requested()
            and not settings.batch.enabled
            and not settings.mutants.min_catch
            and not _workers_reported(session.config)
        ):
            return  # nothing judged, no file, gate or batch queue to see to: nothing to import
        rag = rag_session(session.config)
    from .run.run_end import finish

    finish(session, rag)


def _workers_reported(config: pytest.Config) -> bool:
    """pytest-xdist controller: some worker reported a check (whose records may have been lost) or a
    check no report saw, though no record reached this process."""
    workers = sys.modules.get("pytest_rag.run.workers")  # never imported: no worker reported anything
    return workers is not None and workers.tally_of(config) is not None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The "pytest-rag summary" section (:func:`pytest_rag.run.run_end.write_summary`)."""
    settings = _settings(config)
    if settings is None or hasattr(config, "workerinput"):
        return
    rag = _session(config)
    if (
        rag is None
        and not settings.regression.any_requested()
        and not settings.mutants.min_catch
        and not _workers_reported(config)
    ):
        return  # nothing judged and no gate: nothing to say
    from .run.run_end import write_summary
    from .run.unjudged import tally_lines

    write_summary(terminalreporter, config, rag, tally_lines(terminalreporter.stats))


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Each test's scores become properties of its JUnit XML entry."""
    rag = _session(item.config)
    if rag is not None and len(rag.results):
        from .run.run_end import junit_properties

        junit_properties(item, rag)


@pytest.fixture
def rag_snapshot(snapshot: Any, request: pytest.FixtureRequest) -> Any:
    """syrupy's ``snapshot`` with pytest-rag's tolerant extension, whatever the default extension is."""
    from .regression.snapshot import extension_for

    settings = _settings(request.config)
    tolerance = settings.regression.snapshot_tolerance if settings is not None else None
    return snapshot.use_extension(extension_for(tolerance))


def pytest_unconfigure(config: pytest.Config) -> None:
    rag = _session(config)
    if rag is not None:
        rag.close()
