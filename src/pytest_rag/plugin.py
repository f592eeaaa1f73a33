"""pytest hooks of pytest-rag. Each hook delegates to :class:`~pytest_rag.run.session.RagSession`.

Only option registration and reading (so a bad option fails at start-up) happen for suites that never
use ``rag_judge``: the session is built when a test first asks for it (:func:`rag_session`), and
judges, cache, numpy and the SDKs after that. Every pytest process pays for what this module and
``config/`` import, so nothing else is imported at start-up.
"""

from __future__ import annotations

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
JUDGE_KEY = pytest.StashKey["RagJudge"]()
"""The test's ``rag_judge``, whose refused checks :func:`pytest_runtest_makereport` reads."""
WORKER_OUTPUT_KEY = "pytest_rag_records"
MUTANT_OUTPUT_KEY = "pytest_rag_mutants"
WORKER_SUITE_KEY = "pytest_rag_suite"
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
    judge = request.node.stash[JUDGE_KEY] = RagJudge(session, request.node.nodeid)
    yield judge


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
    or queued instead of judged is reported as skipped; a test with a check that ended without a
    verdict is an error whatever its marks (outermost, so after pytest's own xfail handling)."""
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
    records = rag.results.for_test(item.nodeid) if call.when == "call" else []
    if (rag.settings.dry_run or rag.batching) and call.when == "call":
        from .engine.spending import skip_not_judged

        skip_not_judged(report, call.excinfo, records)
    from .run.unjudged import judge_report

    judge = item.stash.get(JUDGE_KEY, None)
    refused = judge.refused if judge is not None and call.when == "call" else []
    judge_report(report, call.excinfo, records, refused, rag.settings)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A test made an error by :func:`pytest_runtest_makereport` counts and reads as one."""
    if getattr(report, "rag_no_verdict", None) is None:  # unjudged.NO_VERDICT: nothing of ours
        return None
    from .run.unjudged import status_of

    return status_of(report)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist controller: merge a finished worker's records into the session results."""
    output = getattr(node, "workeroutput", {})
    rows = output.get(WORKER_OUTPUT_KEY)
    if rows and SETTINGS_KEY in node.config.stash:
        rag_session(node.config).results.load_json_rows(rows)
    mutants = getattr(node, "workeroutput", {}).get(MUTANT_OUTPUT_KEY)
    if mutants and SETTINGS_KEY in node.config.stash:
        found = rag_session(node.config).mutants
        if found is not None:
            found.load_json_rows(mutants, f"pytest-xdist worker {getattr(node.gateway, 'id', '?')}")
    if output.get(WORKER_SUITE_KEY):
        from .run_record import SUITE_KEY, Suite

        node.config.stash.setdefault(SUITE_KEY, Suite.from_json(output[WORKER_SUITE_KEY]))


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
        workeroutput[WORKER_OUTPUT_KEY] = rag.results.to_json_rows() if rag is not None else []
        if rag is not None and rag.mutants is not None:
            from .mutants.records import to_json_rows

            workeroutput[MUTANT_OUTPUT_KEY] = to_json_rows(rag.judge_mutants())
        if _records_the_run(settings):
            from .run_record import SUITE_KEY

            suite = session.config.stash.get(SUITE_KEY, None)
            workeroutput[WORKER_SUITE_KEY] = suite.to_json() if suite is not None else None
        return
    if rag is None:
        if (
            settings.html_path is None
            and not settings.regression.any_requested()
            and not settings.batch.enabled
            and not settings.mutants.min_catch
        ):
            return  # nothing judged, no file, gate or batch queue to see to: nothing to import
        rag = rag_session(session.config)
    from .run.run_end import finish

    finish(session, rag)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The "pytest-rag summary" section (:func:`pytest_rag.run.run_end.write_summary`)."""
    settings = _settings(config)
    if settings is None or hasattr(config, "workerinput"):
        return
    rag = _session(config)
    if rag is None and not settings.regression.any_requested() and not settings.mutants.min_catch:
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
