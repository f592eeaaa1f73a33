"""Glue between the pytest hooks and the regression features, so ``plugin.py`` stays one line per hook.

Start of run: import a committed judgment file (the snapshot default is set by :mod:`.tolerance`,
which start-up imports instead of this module). End of run (on the controller only, after
pytest-xdist workers reported): write results files, export the judgment store, evaluate the gates
and set the exit status. Nothing here imports numpy or the SDKs at module level; a suite that uses
none of these options pays for none of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

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


def finish(session: pytest.Session, rag: RagSession) -> None:
    """End-of-run work on the controller; sets a failing exit status when a gate fails."""
    if _is_worker(session.config):
        return
    batch_failures = _finish_batches(session, rag)
    settings = rag.settings.regression
    records = final_records(rag)
    notes: list[str] = session.config.stash.get(NOTES_KEY, [])
    if not records and not notes and not settings.any_requested():
        return  # a run that judged nothing and asked for no file or gate: nothing to do, nothing imported
    conclusion = conclude_run(
        records,
        fail_under=settings.fail_under,
        gold=settings.gold,
        min_alpha=settings.min_alpha,
        baseline=settings.baseline,
        notes=notes,
    )
    conclusion.failures.extend(batch_failures)
    write_results(settings.reports, records, conclusion)
    if settings.cache_export is not None:
        from ..errors import RagError
        from .store_io import export_store

        try:
            count = export_store(rag.settings.cache_dir, settings.cache_export)
            conclusion.lines.append(f"exported {count} judgment(s) to {settings.cache_export}")
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


def conclude_run(
    records: list[Any],
    *,
    fail_under: Mapping[str, float],
    gold: Path | None,
    min_alpha: float | None,
    baseline: Path | None,
    notes: Sequence[str] = (),
) -> Conclusion:
    """The gates, gold agreement and baseline comparison of a run's records, after its ``notes``.

    A bad gold or baseline file is a failed gate with its reason, never a crash that would hide the
    test results. Used at the end of a run and by ``pytest-rag merge``."""
    from ..errors import RagError
    from .gates import Conclusion, conclude

    try:
        conclusion = conclude(
            records, fail_under=fail_under, gold=gold, min_alpha=min_alpha, baseline=baseline
        )
    except (RagError, ValueError) as exc:
        conclusion = Conclusion()
        conclusion.failures.append(f"pytest-rag: {exc}")
        conclusion.lines.append(f"pytest-rag: {exc}")
    conclusion.lines[:0] = notes
    return conclusion


def write_results(paths: Sequence[Path], records: list[Any], conclusion: Conclusion) -> None:
    """Write the results files (``--rag-report``); a file that cannot be written fails the run."""
    if not paths:
        return
    from ..errors import RagError
    from ..report.results_file import write_report

    for path in paths:
        try:
            write_report(path, records)
        except (RagError, OSError) as exc:
            conclusion.failures.append(f"pytest-rag: {exc}")
            conclusion.lines.append(f"pytest-rag: {exc}")
            return
        conclusion.lines.append(f"results written to {path}")


def final_records(rag: RagSession) -> list[Any]:
    """The run's records in report order, the order every end-of-run figure is computed in (so a
    pytest-xdist run and a merge of CI shards print what a serial run prints)."""
    records = list(rag.results)
    if not records:
        return []  # a suite that judged nothing imports nothing
    from ..report.results_file import report_order

    return report_order(records)


def summary_text(
    records: list[Any],
    conclusion: Conclusion | None,
    *,
    quiet: bool = False,
    dry_run: bool = False,
    budget_usd: float | None = None,
) -> list[str]:
    """Every line under the "pytest-rag summary" rule: the table, then repeats and ensembles, gates,
    agreement, baseline and files. The plugin and ``pytest-rag merge`` both print exactly this."""
    from ..report.summary import render as render_table
    from .repeats import render

    table = render_table(records, quiet=quiet, dry_run=dry_run, budget_usd=budget_usd)
    if not table:
        return []
    lines = [*table, *render(records)]
    if conclusion is not None:
        lines += conclusion.lines
        if conclusion.failed:
            lines.append(f"pytest-rag: session failed by {len(conclusion.failures)} gate(s)")
    return lines


def summary_lines(config: pytest.Config, rag: RagSession) -> list[str]:
    """The summary of this run as :func:`summary_text` writes it."""
    return summary_text(
        final_records(rag),
        config.stash.get(CONCLUSION_KEY, None),
        quiet=config.get_verbosity() < 0,
        dry_run=rag.settings.dry_run,
        budget_usd=rag.settings.budget_usd,
    )


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
    title = f"pytest-rag report · {Path(str(session.config.rootpath)).name}"
    note = write_html_file(path, final_records(rag), rag.settings.regression.baseline, title)
    session.config.stash.setdefault(NOTES_KEY, []).append(note)


def write_html_file(path: Path, records: list[Any], baseline: Path | None, title: str) -> str:
    """Write the HTML report of ``records`` (compared with ``baseline`` when it exists); returns the
    line the summary shows: where it went, or why it could not be written."""
    from ..errors import RagError
    from ..report.comparison import Run, load_run
    from ..report.html.page import write_html

    runs: list[Run] = []
    if baseline is not None and baseline.exists():
        try:
            runs = [load_run(baseline, f"baseline: {baseline.name}"), Run("this run", records)]
        except RagError:
            runs = []  # the regression summary reports what is wrong with the baseline file
    try:
        write_html(path, records, runs=runs, title=title)
    except OSError as exc:
        return f"pytest-rag: could not write the HTML report {path}: {exc.strerror or exc}"
    return f"HTML report written to {path}"
