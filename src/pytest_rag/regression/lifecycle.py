"""Glue between the pytest hooks and the regression features, so ``plugin.py`` stays one line per hook.

Start of run: import a committed judgment file, and make the tolerant snapshot extension syrupy's
default. End of run (on the controller only, after pytest-xdist workers reported): write results
files, export the judgment store, evaluate the gates and set the exit status. Nothing here imports
numpy or the SDKs at module level; a suite that uses none of these options pays for none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..session import RagSession
    from .gates import Conclusion

NOTES_KEY = pytest.StashKey[list[str]]()
CONCLUSION_KEY = pytest.StashKey["Conclusion"]()


def _is_worker(config: Any) -> bool:
    return hasattr(config, "workerinput")


def configure(config: pytest.Config, rag: RagSession) -> None:
    """Run-start work; lines worth showing later (how many judgments were imported) go to the stash."""
    settings = rag.settings.regression
    notes = config.stash.setdefault(NOTES_KEY, [])
    if settings.cache_import is not None and not _is_worker(config):
        from .store_io import import_store

        summary = import_store(settings.cache_import, rag.settings.cache_dir)
        notes.append(f"imported {summary} from {settings.cache_import}")


def snapshot_default_args(early_config: pytest.Config, args: list[str]) -> None:
    """Make pytest-rag's tolerant extension the default of syrupy's ``snapshot`` fixture, through
    syrupy's own ``--snapshot-default-extension`` option, unless the run chose a default itself or
    ``rag_snapshot_default = false``. The extension's class name carries the run's tolerance."""
    if not early_config.getini("rag_snapshot_default") or not early_config.pluginmanager.has_plugin("syrupy"):
        return
    if any(arg.split("=", 1)[0] == "--snapshot-default-extension" for arg in args):
        return
    tolerance = getattr(early_config.known_args_namespace, "rag_snapshot_tolerance", None)
    tolerance = tolerance or early_config.getini("rag_snapshot_tolerance") or None
    from .snapshot import extension_path

    try:
        args.append(f"--snapshot-default-extension={extension_path(tolerance)}")
    except ConfigError:
        return  # a malformed tolerance is reported by the settings, with the option's name


def finish(session: pytest.Session, rag: RagSession) -> None:
    """End-of-run work on the controller; sets a failing exit status when a gate fails."""
    if _is_worker(session.config):
        return
    batch_failures = _finish_batches(session, rag)
    settings = rag.settings.regression
    records = list(rag.results)
    if not records and not session.config.stash.get(NOTES_KEY, []) and not settings.any_requested():
        return  # a run that judged nothing and asked for no file or gate: nothing to do, nothing imported
    from ..errors import RagError
    from .gates import Conclusion, conclude

    try:
        conclusion = conclude(
            records,
            fail_under=settings.fail_under,
            gold=settings.gold,
            min_alpha=settings.min_alpha,
            baseline=settings.baseline,
        )
    except (RagError, ValueError) as exc:  # a bad gold or baseline file must not hide the test results
        conclusion = Conclusion()
        conclusion.failures.append(f"pytest-rag: {exc}")
        conclusion.lines.append(f"pytest-rag: {exc}")
    notes: list[str] = session.config.stash.get(NOTES_KEY, [])
    conclusion.lines[:0] = notes
    conclusion.failures.extend(batch_failures)
    try:
        _write_files(rag, records, conclusion)
    except (RagError, OSError) as exc:
        conclusion.failures.append(f"pytest-rag: {exc}")
        conclusion.lines.append(f"pytest-rag: {exc}")
    if conclusion.failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    session.config.stash[CONCLUSION_KEY] = conclusion


def _finish_batches(session: pytest.Session, rag: RagSession) -> list[str]:
    """--rag-batch: submit what this run queued; note what happened to batches during the run. Returns
    the failures (a batch that could not be submitted fails the session: its checks would wait forever)."""
    from ..engine.batch.run import end_of_run

    settings = rag.settings
    end = end_of_run(
        settings.cache_dir,
        settings.cache_mode,
        started_at=rag.started_at,
        submit_queue=settings.batch.enabled,
    )
    session.config.stash.setdefault(NOTES_KEY, []).extend(end.lines)
    return end.failures


def _write_files(rag: RagSession, records: list[Any], conclusion: Conclusion) -> None:
    settings = rag.settings.regression
    if settings.reports:
        from ..report.results_file import write_report

        for path in settings.reports:
            write_report(path, records)
            conclusion.lines.append(f"results written to {path}")
    if settings.cache_export is not None:
        from .store_io import export_store

        count = export_store(rag.settings.cache_dir, settings.cache_export)
        conclusion.lines.append(f"exported {count} judgment(s) to {settings.cache_export}")


def summary_lines(config: pytest.Config, rag: RagSession) -> list[str]:
    """Lines after the core summary table: repeats and ensembles, gates, agreement, baseline, files."""
    from .repeats import render

    conclusion = config.stash.get(CONCLUSION_KEY, None)
    lines = render(list(rag.results))
    if conclusion is not None:
        lines += conclusion.lines
        if conclusion.failed:
            lines.append(f"pytest-rag: session failed by {len(conclusion.failures)} gate(s)")
    return lines


def failure_lines(config: pytest.Config) -> list[str]:
    """Why a gate failed the session, for runs whose summary is hidden or empty: an exit status that
    says 'failed' must come with its reason on the screen."""
    conclusion = config.stash.get(CONCLUSION_KEY, None)
    if conclusion is None or not conclusion.failed:
        return []
    return [*conclusion.failures, f"pytest-rag: session failed by {len(conclusion.failures)} gate(s)"]


def junit_properties(item: pytest.Item, rag: RagSession) -> None:
    """Attach the test's scores to its JUnit XML entry (read from the teardown report)."""
    records = rag.results.for_test(item.nodeid)
    if records:
        from ..report.results_file import junit_properties as properties

        item.user_properties.extend(properties(records))


def write_html_report(session: pytest.Session, rag: RagSession) -> None:
    """End of run on the controller: write ``--rag-html``; the summary's closing lines say where.

    With ``--rag-baseline`` the report also compares this run against the baseline file."""
    path = rag.settings.html_path
    if path is None:
        return
    from ..errors import RagError
    from ..report.comparison import Run
    from ..report.html.page import write_html

    records = list(rag.results)
    runs: list[Run] = []
    baseline = rag.settings.regression.baseline
    if baseline is not None and baseline.exists():
        from ..report.comparison import load_run

        try:
            runs = [load_run(baseline, f"baseline: {baseline.name}"), Run("this run", records)]
        except RagError:
            runs = []  # the regression summary reports what is wrong with the baseline file
    title = f"pytest-rag report · {Path(str(session.config.rootpath)).name}"
    notes = session.config.stash.setdefault(NOTES_KEY, [])
    try:
        write_html(path, records, runs=runs, title=title)
    except OSError as exc:
        notes.append(f"pytest-rag: could not write the HTML report {path}: {exc.strerror or exc}")
        return
    notes.append(f"HTML report written to {path}")
