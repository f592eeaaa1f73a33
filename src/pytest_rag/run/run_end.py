"""The end of a run, in the order it happens, so ``plugin.py`` stays one call per hook.

On the controller only (after pytest-xdist workers reported their records, or crashed without them:
:mod:`.workers`), in this order: the provider batches queued by ``--rag-batch``, the gates
(:mod:`.regression.gates`), the checks without a verdict that no test's report saw
(:func:`.unjudged.late_lines`), the judgment export, the HTML report (which shows the verdict so
far), the exit status, and the results files, which record it (:mod:`.run_record`); then the
terminal summary (:mod:`.report.summary`). Per test, the JUnit XML properties. A file that cannot be
written fails the run, told as that file's failure, never as a gate's. One piece of the run's start
is here too: the judgment import of ``--rag-cache-import``, whose only output is a line of that
summary.

This module is imported at the first hook that has something to do, never at start-up: a suite
that uses none of pytest-rag's options pays for none of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..check_keys import report_order
from ..engine.batch.run import end_of_run
from ..engine.cache import STORE_FILE
from ..errors import RagError
from ..mutants.html import mutants_section
from ..mutants.records import to_json_rows
from ..mutants.table import conclude_mutants
from ..regression.gates import Conclusion, conclude
from ..regression.store_io import export_store, import_store
from ..report.html.page import write_html_report
from ..report.progress import verbosity
from ..report.results_file import junit_properties as properties_of
from ..report.results_file import write_reports
from ..report.summary import summary_text, total_calls
from ..run_record import COUNTER_KEY, RunRecord, record_run
from .unjudged import SHOWN, late_lines, pending_kinds
from .workers import lost_lines, tally_of

if TYPE_CHECKING:
    from ..mutants.records import MutantRecord
    from ..results import CheckRecord
    from .session import RagSession

#: Lines the summary shows before the gates (judgments imported, the HTML report, batches).
NOTES_KEY = pytest.StashKey[list[str]]()
#: What the end of the run concluded, kept for the terminal summary that pytest prints after it.
CONCLUSION_KEY = pytest.StashKey[Conclusion]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def import_judgments(config: pytest.Config, rag: RagSession) -> None:
    """``--rag-cache-import``, before any test runs (on the controller: workers share its cache)."""
    path = rag.settings.regression.cache_import
    if path is not None and not _is_worker(config):
        summary = import_store(path, rag.settings.cache_dir)
        config.stash.setdefault(NOTES_KEY, []).append(f"imported {summary} from {path}")


def final_records(rag: RagSession) -> list[CheckRecord]:
    """The run's records in report order, the order every end-of-run figure is computed in (so a
    pytest-xdist run and a merge of CI shards print what a serial run prints)."""
    return report_order(rag.results)


def run_of(session: pytest.Session) -> RunRecord | None:
    """What this run was, as its results files and HTML report record it; None when nothing counted
    the run (the counter starts only when one of those files is asked for)."""
    counter = session.config.stash.get(COUNTER_KEY, None)
    return record_run(session, counter) if counter is not None else None


def finish(session: pytest.Session, rag: RagSession) -> None:
    """Everything the run's end writes or decides, on the controller; a failed gate, a batch that
    could not be submitted or a file that could not be written sets a failing exit status.

    Called from the last ``pytest_sessionfinish`` hook, after pytest has set the exit status (and
    plugins such as syrupy have changed it), so the run record holds the status the run ends with."""
    config = session.config
    if _is_worker(config):
        return
    settings = rag.settings
    records = final_records(rag)
    tally = tally_of(config)
    lost = tally.lost_records() if tally is not None else None
    run = run_of(session)
    if run is not None:  # the requests that went without their strict schema, for whoever reads the file
        run = dataclasses.replace(run, schema_fallbacks=total_calls(records).schema_fallbacks)
    if run is not None and lost is not None:
        run = dataclasses.replace(run, records_lost=lost)
    notes = config.stash.setdefault(NOTES_KEY, [])
    if lost is not None:  # a crashed pytest-xdist worker's records: the figures below leave them out
        notes.extend(lost_lines(lost, settings.cache_mode))
    late = [*(tally.late if tally is not None else ()), *late_lines(rag)]
    mutants = rag.judge_mutants()  # before the batches are submitted: a mutant's requests join the queue
    # --rag-batch: submit what this run queued and say what happened to earlier batches; a batch
    # refused for good fails the session (its checks would wait forever), one that may pass stays queued
    batches = end_of_run(
        settings.cache_dir,
        settings.cache_mode,
        started_at=rag.started_at,
        submit_queue=settings.batch.enabled,
    )
    notes.extend(batches.lines)
    regression = settings.regression
    if _runs_no_test(config):
        # a gate would fail such a run for judging nothing, and gold agreement or a baseline change
        # would weigh nothing
        regression = dataclasses.replace(regression, fail_under={}, gold=None, min_alpha=None, baseline=None)
    if not (
        records
        or notes
        or late
        or settings.html_path
        or regression.any_requested()
        or settings.mutants.min_catch
    ):
        return  # a run that judged nothing and asked for no file or gate: nothing to conclude
    conclusion = conclude(
        records,
        fail_under=regression.fail_under,
        gold=regression.gold,
        min_alpha=regression.min_alpha,
        baseline=regression.baseline,
        notes=notes,
        pending=pending_kinds(settings),
    )
    if settings.mutants.enabled:
        bars = {} if _runs_no_test(config) else settings.mutants.min_catch  # as the other gates
        conclude_mutants(conclusion, mutants, bars, pending_kinds(settings))
    conclusion.unsubmitted.extend(batches.failures)
    if late:
        conclusion.fault(
            f"{len(late)} check(s) after the last test's report without a verdict", _late_story(late)
        )
    exported, export_error = _export(rag)  # before the results files, which record the exit status
    conclusion.lines.extend(exported)
    if export_error is not None:
        conclusion.could_not_write("the judgment export", export_error)
    # the HTML report shows the verdict, so it is written once the gates have concluded, and before
    # the results files, which record the exit status its own failure sets
    html_lines, html_error = _write_html(session, rag, records, run, conclusion, mutants)
    if html_error is not None:
        conclusion.could_not_write("the HTML report", html_error)
    _fail_session(session, conclusion.failed)
    if run is not None:
        run = dataclasses.replace(run, exit_status=int(session.exitstatus))
    mutant_rows = to_json_rows(mutants) if settings.mutants.enabled else None
    written, error = write_reports(regression.reports, records, run, mutant_rows)
    conclusion.lines.extend([*written, *html_lines])
    if error is not None:
        conclusion.could_not_write("the results file", error)
        _fail_session(session, conclusion.failed)
        if html_lines:  # the report already written must not read green for the run this failed
            _write_html(session, rag, records, run, conclusion, mutants)
    config.stash[CONCLUSION_KEY] = conclusion


def _write_html(
    session: pytest.Session,
    rag: RagSession,
    records: Sequence[CheckRecord],
    run: RunRecord | None,
    conclusion: Conclusion,
    mutants: Sequence[MutantRecord] = (),
) -> tuple[list[str], RagError | None]:
    """``--rag-html``: the report of the run as it ends, its verdict included (the gates, and the
    exit status pytest-rag is about to set) and, under --rag-mutants, the catch table and survivors;
    nothing when no report was asked for."""
    settings = rag.settings
    if settings.html_path is None:
        return [], None
    if run is not None:
        failed = conclusion.failed and session.exitstatus == pytest.ExitCode.OK
        status = pytest.ExitCode.TESTS_FAILED if failed else session.exitstatus
        run = dataclasses.replace(run, exit_status=int(status))
    title = f"pytest-rag report · {Path(str(session.config.rootpath)).name}"
    return write_html_report(
        settings.html_path,
        records,
        settings.regression.baseline,
        title,
        run=run,
        verdict=conclusion.verdict,
        sections=[mutants_section(mutants, pending_kinds(settings))] if settings.mutants.enabled else [],
    )


#: pytest's options that run no test body by design: they list the tests (an IDE, pytest-split's
#: bookkeeping), their fixtures, or the fixtures' set-up plan.
NO_TEST_OPTIONS = ("collectonly", "setupplan", "setuponly", "showfixtures", "show_fixtures_per_test")


def _runs_no_test(config: pytest.Config) -> bool:
    return any(config.getoption(name, False) for name in NO_TEST_OPTIONS)


def _export(rag: RagSession) -> tuple[list[str], Exception | None]:
    """``--rag-cache-export``: the line the summary shows, or the error that fails the run."""
    path = rag.settings.regression.cache_export
    if path is None:
        return [], None
    if not (rag.settings.cache_dir / STORE_FILE).is_file():
        return [_nothing_to_export(rag.settings.cache_mode, rag.settings.cache_dir, path)], None
    try:
        count = export_store(rag.settings.cache_dir, path)
    except (RagError, OSError) as exc:
        return [], exc
    return [f"exported {count} judgment(s) to {path}"], None


def _nothing_to_export(mode: str, cache_dir: Path, path: Path) -> str:
    """Why an export after the run writes nothing: the run's cache directory has no store, so this
    run stored nothing and no earlier one (or import) did. That is no fault of the tests (a suite
    judged offline has nothing to store), so it is said, not failed, and a committed file is kept:
    exporting nothing over it would leave its header line alone."""
    why = (
        f"--rag-cache={mode} never writes"
        if mode in ("ro", "replay")
        else "the offline judge is computed, never cached, and a check without a verdict stores nothing"
    )
    return (
        f"nothing to export: this run stored no judgment ({why}) and {cache_dir} holds none; "
        f"{path} was left as it was"
    )


def _late_story(lines: Sequence[str]) -> str:
    """What the run's end tells of checks that no test's report saw (made after the last one: a
    session fixture torn down after ``-x`` stopped the run, a thread still running)."""
    shown = "; ".join(lines[:SHOWN]) + (f"; ... and {len(lines) - SHOWN} more" if len(lines) > SHOWN else "")
    return (
        f"{len(lines)} check(s) made after the last test's report ended without a verdict, so no test "
        f"could be made an error for them and the run fails instead: {shown}"
    )


def _fail_session(session: pytest.Session, failed: bool) -> None:
    """A failure of pytest-rag's own (a gate, a batch, a file) turns a passing run's status into 1."""
    if failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def write_summary(
    reporter: Any, config: pytest.Config, rag: RagSession | None, tests: Sequence[str] = ()
) -> None:
    """The "pytest-rag summary" section, closing with ``tests`` (how many tests ended without a
    verdict, :func:`pytest_rag.run.unjudged.tally_lines`); when the summary is hidden
    (``--rag-no-summary``) or there is nothing to tabulate, the "pytest-rag gates" section instead if
    a gate failed the run: an exit status that says 'failed' must come with its reason on the screen."""
    conclusion = config.stash.get(CONCLUSION_KEY, None)
    if rag is None or not rag.settings.summary or not len(rag.results):
        tally = tally_of(config)
        lost = tally.lost_records() if tally is not None else None
        shown = [
            *(lost_lines(lost, rag.settings.cache_mode if rag is not None else "rw") if lost else ()),
            *(conclusion.failure_lines if conclusion is not None else ()),
        ]
        if shown:
            gates = conclusion is not None and bool(conclusion.failures)
            reporter.write_sep("=", "pytest-rag gates" if gates else "pytest-rag summary")
            for line in shown:
                reporter.write_line(line)
        return
    lines = summary_text(
        final_records(rag),
        [*tests, *(conclusion.summary_lines if conclusion is not None else ())],
        quiet=verbosity(config) < 0,
        dry_run=rag.settings.dry_run,
        budget_usd=rag.settings.budget_usd,
        replay=rag.settings.cache_mode == "replay",
    )
    if lines:
        reporter.write_sep("=", "pytest-rag summary")
        for line in lines:
            reporter.write_line(line)


def junit_properties(item: pytest.Item, rag: RagSession) -> None:
    """Attach the test's scores to its JUnit XML entry (read from the teardown report)."""
    records = rag.results.for_test(item.nodeid)
    if records:
        item.user_properties.extend(properties_of(records))
