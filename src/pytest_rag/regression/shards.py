"""``pytest-rag merge SHARD.json...``: the results files of CI shards as the verdict of one run.

A suite split across machines (a GitHub Actions matrix with pytest-split, say) runs each shard with
``--rag-report=shard-N.json``. An interval, a gate or a baseline comparison computed on one shard
says nothing about the suite, so the shards run without gates, and this command reads their results
files back into check records, checks that no check was run twice, and computes what one unsharded
run would have printed: the summary table with its intervals, the repeat and ensemble lines, the
gates (``--fail-under``, ``--gold``/``--min-alpha``), the baseline comparison, the results files and
the HTML report. Its exit status is that of the run's gates: 0, or 1 when a gate failed, or when a
check of the shards ended without a verdict (its test was an error in its shard, and so it would
have been in the unsharded run: a merge must not be the one green verdict such a suite gets).

A merge of shards that did not all run to the end would be the verdict of a smaller suite that
reads like the whole one, so before anything is computed every shard's run record
(:mod:`pytest_rag.run_record`) must show a complete run: collected without error, not stopped
early, exit status 0 or 1, at least one check, and, for pytest-split groups, each group of the
split exactly once. Otherwise the merge fails with one line per shard that is not
(:func:`shard_problems`), unless ``--allow-partial`` says to merge what there is; a results file of
format version 1 keeps no run record, and one written before suites were recorded names no suite,
so each needs ``--allow-partial`` too. Two refusals nothing overrides: shards whose run records name
different suites (:func:`check_one_suite`: a shard of another suite is never part of this one), and
rows whose numbers no run writes (:mod:`.row_rules`: a score off its scale, a ``passed`` that
contradicts the score and the bar, a ``NaN``).

Below the list of shards (:func:`shard_lines`), the output is identical to the unsharded run's
because both read the same records (results files keep every number at full precision) in the same
order (:func:`~pytest_rag.check_keys.report_order`), through the same functions
(:func:`~pytest_rag.report.summary.summary_text`, :func:`~.gates.conclude`). Left to the shard jobs:
which of their tests failed (the list gives each shard's counts and exit status) and a per-run
``--rag-budget`` line.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..check_keys import keyed_records, metric_label, report_order
from ..errors import InputError, NotJudgedError
from ..ground.command_options import SubCommand, SwitchOption, ValueOption
from ..mutants.classes import parse_min_catch
from ..mutants.html import mutants_section
from ..mutants.records import MutantRecord, mutant_order, read_rows, to_json_rows
from ..mutants.table import check_min_catch, conclude_mutants
from ..report.html.page import write_html_report
from ..report.html.verdict import RunVerdict
from ..report.results_file import REPORT_SUFFIXES, VERSION, read_results_file, write_reports
from ..report.summary import summary_text
from ..results import CheckRecord
from ..run_record import LostRecords, RunRecord, ShardEntry, Suite, new_run_id
from .gate_bars import check_min_alpha, parse_fail_under
from .gates import Conclusion, check_gate_names, conclude
from .row_rules import check_rows


@dataclass(frozen=True)
class Shard:
    """One shard's results file: the checks it holds and what its run was (None: not recorded)."""

    path: Path
    records: list[CheckRecord]
    run: RunRecord | None = None
    version: int = VERSION
    mutants: list[MutantRecord] | None = None
    """The shard's mutant records (None: it ran without --rag-mutants)."""


def load_shard(path: Path) -> Shard:
    """Read one shard's JSON results file; the error names the file and how to write a valid one."""
    found = read_results_file(path, "shard file", " in each shard's pytest command")
    mutants = read_rows(found.mutants, path) if found.mutants is not None else None
    return Shard(path, found.records, found.run, found.version, mutants)


class IncompleteShardsError(InputError):
    """Shards that do not make one complete run; the message has one line per shard that fails."""


class OtherSuiteError(InputError):
    """Shards of different suites: never one result, whatever ``--allow-partial`` says."""


def check_one_suite(shards: Sequence[Shard]) -> None:
    """Refuse shards whose run records name different suites (:class:`~pytest_rag.run_record.Suite`),
    naming a file of each. A shard whose collection failed is left out: its collection is not the
    whole suite, and it is refused as incomplete anyway; a shard that records no suite is told by
    :func:`shard_problems`."""
    first: dict[Suite, Path] = {}
    for shard in shards:
        run = shard.run
        if run is not None and run.suite is not None and not run.collection_errors:
            first.setdefault(run.suite, shard.path)
    if len(first) < 2:
        return
    (one, one_path), *others = first.items()
    lines = [f"{path} is of {suite}, but {one_path} is of {one}" for suite, path in others]
    raise OtherSuiteError(
        "\n  ".join(
            [
                "the shard files are of different suites, so no merge of them is one run's verdict "
                "(--allow-partial does not change that): every shard must collect the same tests, with "
                "the same pytest-rag, paths and options, and choose its part with --splits/--group, -k "
                "or -m",
                *lines,
            ]
        )
    )


def _run_problems(shard: Shard) -> list[str]:
    """What keeps one shard from being its whole part of the suite, as short phrases."""
    run = shard.run
    if run is None:
        if shard.version < 2:
            return [
                "format version 1 keeps no run record, so whether this shard ran to the end cannot be "
                "told (write it again with this pytest-rag)"
            ]
        return ["it holds no run record, so whether this shard ran to the end cannot be told"]
    problems = []
    if run.suite is None and not run.collection_errors:
        problems.append(
            f"written by pytest-rag {run.plugin_version}, which records no suite fingerprint, so "
            "whether this shard is of the same suite cannot be told (write it again with this pytest-rag)"
        )
    if run.collection_errors:
        problems.append(f"collection failed ({run.collection_errors} error(s))")
    if run.stopped_early:
        problems.append(
            f"stopped early ({run.stopped_early}): {run.tests_run} of {run.tests_collected} tests ran"
        )
    if run.records_lost is not None:
        lost = run.records_lost
        count = f"at least {lost.checks}" if lost.at_least else str(lost.checks)
        problems.append(
            f"{count} check record(s) lost: worker {', '.join(lost.workers)} crashed before handing them "
            "over (rerun that shard: the judgments are in its cache)"
        )
    if run.exit_status not in (0, 1):
        problems.append(run.exit_label)
    if not shard.records:
        problems.append("ran no check")
    return problems


def shard_problems(shards: Sequence[Shard]) -> list[str]:
    """One line per shard that does not hold its whole part of one run (``FILE: what is wrong``),
    and one for the groups of a pytest-split split that no shard holds; empty when the shards
    make a complete run."""
    problems = {shard.path: _run_problems(shard) for shard in shards}
    seen_runs: dict[str, Path] = {}
    groups: dict[int, Path] = {}
    split: tuple[int, Path] | None = None
    for shard in shards:
        run = shard.run
        if run is None:
            continue
        if run.run_id in seen_runs:
            problems[shard.path].append(f"the same run as {seen_runs[run.run_id]} (run id {run.run_id})")
        seen_runs.setdefault(run.run_id, shard.path)
        if run.group is None or run.splits is None:
            continue
        if split is None:
            split = (run.splits, shard.path)
        if run.splits != split[0]:
            problems[shard.path].append(f"{run.split_label}, but {split[1]} is of a split of {split[0]}")
        elif run.group in groups:
            problems[shard.path].append(f"{run.split_label} is also {groups[run.group]}'s")
        else:
            groups[run.group] = shard.path
    lines = [f"{path}: {'; '.join(found)}" for path, found in problems.items() if found]
    if split is not None:
        missing = [str(g) for g in range(1, split[0] + 1) if g not in groups]
        if missing:
            lines.append(
                f"group(s) {', '.join(missing)} of the split of {split[0]}: no shard file holds them "
                "(pass the results file of every group)"
            )
    return lines


def shard_lines(shards: Sequence[Shard]) -> list[str]:
    """The shards as the merged summary lists them: file, group, tests, checks and exit status."""
    lines = []
    for shard in shards:
        run = shard.run
        if run is None:
            about = f"format version {shard.version}, no run record"
        else:
            about = ", ".join(
                part
                for part in (
                    run.split_label,
                    f"{run.tests_run} of {run.tests_collected} tests ran ({run.outcome_text()})",
                )
                if part
            )
        status = f", {run.exit_label}" if run is not None else ""
        lines.append(f"  {shard.path}: {about}, {len(shard.records)} checks{status}")
    return lines


def merged_run(shards: Sequence[Shard], partial: bool) -> RunRecord:
    """The run record of the merge: the shards' tests and outcomes added up, the first exit status
    that is neither 0 nor 1 (else 1 when a shard's tests failed), and the shards themselves.
    Deselected tests are left out of the sum: a pytest-split shard deselects the other groups'
    tests, which the other shards ran."""
    runs = [shard.run for shard in shards if shard.run is not None]
    outcomes: Counter[str] = Counter()
    for run in runs:
        outcomes.update({name: n for name, n in run.outcomes.items() if name != "deselected"})
    statuses = [run.exit_status for run in runs]
    status = next((s for s in statuses if s not in (0, 1)), max(statuses, default=0))
    return RunRecord(
        run_id=new_run_id(),
        plugin_version=__version__,
        tests_collected=sum(run.tests_collected for run in runs),
        tests_run=sum(run.tests_run for run in runs),
        exit_status=status,
        outcomes=dict(outcomes),
        collection_errors=sum(run.collection_errors for run in runs),
        schema_fallbacks=sum(run.schema_fallbacks for run in runs),
        records_lost=_lost_in_all(runs),
        stopped_early="merged with --allow-partial from incomplete shards" if partial else None,
        shards=tuple(ShardEntry(str(shard.path), len(shard.records), shard.run) for shard in shards),
        suite=next((run.suite for run in runs if run.suite is not None and not run.collection_errors), None),
    )


def _lost_in_all(runs: Sequence[RunRecord]) -> LostRecords | None:
    """What the shards' crashed workers took with them, added up (a merge with --allow-partial)."""
    lost = [run.records_lost for run in runs if run.records_lost is not None]
    if not lost:
        return None
    workers = tuple(worker for one in lost for worker in one.workers)
    return LostRecords(sum(one.checks for one in lost), workers, any(one.at_least for one in lost))


def combine(shards: Sequence[Shard]) -> list[CheckRecord]:
    """All checks of the shards in report order; a check found in two shards is an error (shards that
    overlap would count it twice and narrow every interval)."""
    if not shards:
        raise InputError("pytest-rag merge needs at least one shard file (written by --rag-report=FILE.json)")
    seen_files: dict[Path, Path] = {}
    owner: dict[tuple[str, str, str], Path] = {}
    records: list[CheckRecord] = []
    for shard in shards:
        resolved = shard.path.resolve()
        if resolved in seen_files:
            raise InputError(f"shard file {shard.path} is given twice; pass each shard's results file once")
        seen_files[resolved] = shard.path
        for key, record in keyed_records(shard.records):
            ident = (key, metric_label(record), record.judge)
            if ident in owner:
                raise InputError(
                    f"check {key} ({ident[1]}, judge {record.judge}) is in both {owner[ident]} and "
                    f"{shard.path}; each test must run in exactly one shard (check the --splits/--group "
                    "or -k selections of the shard jobs)"
                )
            owner[ident] = shard.path
            records.append(record)
    return report_order(records)


@dataclass(frozen=True)
class MergeOutcome:
    """What ``pytest-rag merge`` prints (the shards, then the summary) and the exit status it ends with."""

    shards: list[str]
    lines: list[str]
    failed: bool

    @property
    def exit_status(self) -> int:
        return 1 if self.failed else 0  # as pytest's TESTS_FAILED when a gate fails the run


def merge(
    shard_paths: Sequence[Path],
    *,
    fail_under: dict[str, float] | None = None,
    baseline: Path | None = None,
    gold: Path | None = None,
    min_alpha: float | None = None,
    reports: Sequence[Path] = (),
    html: Path | None = None,
    quiet: bool = False,
    allow_partial: bool = False,
    min_catch: dict[str, float] | None = None,
) -> MergeOutcome:
    """Merge the shards, judge the whole, write the requested files; the lines are the shards, then
    the summary an unsharded run prints under its "pytest-rag summary" rule. Shards that do not make
    a complete run are refused (:class:`IncompleteShardsError`) unless ``allow_partial``."""
    for path in reports:
        if path.suffix.lower() not in REPORT_SUFFIXES:
            raise InputError(f"--report {path} must end in .json or .csv (repeat the option for both)")
    # refused here, in this command's own option names (the run's end says --rag-gold)
    if min_alpha is not None and gold is None:
        raise InputError("--min-alpha needs gold labels: pass --gold=PATH")
    if gold is not None and not gold.is_file():
        raise InputError(f"gold file {gold} does not exist (--gold)")
    shards = [load_shard(path) for path in shard_paths]
    check_rows([(shard.path, shard.records) for shard in shards])
    check_one_suite(shards)
    records = combine(shards)
    check_gate_names(fail_under or {}, records, "--fail-under")
    problems = shard_problems(shards)
    if problems and not allow_partial:
        raise IncompleteShardsError(
            "\n  ".join(
                [
                    "the shard files do not make one complete run, so their merge would judge part of "
                    "the suite as if it were all of it (pass --allow-partial to merge them anyway):",
                    *problems,
                ]
            )
        )
    header = [f"pytest-rag summary of {len(shards)} shard(s):", *shard_lines(shards)]
    # shards of a dry run counted their checks by design; any other check without a score, a
    # batch's included (the merge is the verdict), is no pass, and so is a dry-run shard merged
    # with judged ones (run with --rag-dry-run by mistake: its part of the suite was never judged)
    judged = [shard for shard in shards if shard.records]
    dry_run = bool(judged) and all(
        any(record.error_kind == NotJudgedError.__name__ for record in shard.records) for shard in judged
    )
    pending = frozenset({NotJudgedError.__name__}) if dry_run else frozenset()
    unjudged = Counter(
        r.error_kind or "no score" for r in records if r.error is not None and r.error_kind not in pending
    )
    unjudged_lines: list[str] = []
    if unjudged:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(unjudged.items()))
        unjudged_lines.append(
            f"pytest-rag: {sum(unjudged.values())} check(s) of these shards ended without a verdict ({kinds}), "
            "so the merge fails as the unsharded run would: each shard job's log names its tests, "
            "reported as errors"
        )
        header.extend(unjudged_lines)
    if problems:
        header.append("merged anyway (--allow-partial); the summary covers only what these shards judged:")
        header.extend(f"  {line}" for line in problems)
    run = merged_run(shards, partial=bool(problems))
    conclusion = conclude(
        records,
        fail_under=fail_under or {},
        gold=gold,
        min_alpha=min_alpha,
        baseline=baseline,
        pending=pending,
    )
    mutated = [shard.mutants for shard in shards if shard.mutants is not None]
    mutants = mutant_order(record for found in mutated for record in found) if mutated else None
    if mutants is not None:
        conclude_mutants(conclusion, mutants, min_catch or {}, pending, "--min-catch")
    elif min_catch:  # no shard ran with --rag-mutants: the gate judges nothing, and fails
        check_min_catch([], min_catch, conclusion, pending, "--min-catch")
    sections = [mutants_section(mutants, pending)] if mutants is not None else []
    verdict = functools.partial(_merge_verdict, conclusion, unjudged_lines)
    html_lines: list[str] = []
    title = f"pytest-rag report · {len(shards)} shard(s) merged"
    if html is not None:  # after the gates, so the report shows the merge's verdict
        html_lines, html_error = write_html_report(
            html,
            records,
            baseline,
            title,
            run=_with_status(run, verdict().failed),
            verdict=verdict(),
            sections=sections,
        )
        if html_error is not None:
            conclusion.could_not_write("the HTML report", html_error)
    run = _with_status(run, verdict().failed)
    written, error = write_reports(
        reports, records, run, to_json_rows(mutants) if mutants is not None else None
    )
    conclusion.lines.extend([*written, *html_lines])
    if error is not None:
        conclusion.could_not_write("the results file", error)
        if html is not None and html_lines:  # the report written must not read green for this failure
            write_html_report(html, records, baseline, title, run=run, verdict=verdict(), sections=sections)
    lines = summary_text(records, conclusion.summary_lines, quiet=quiet, dry_run=dry_run)
    if not lines:  # no check in any shard: still say so, and why a gate failed
        lines = [f"no judged check in {len(shards)} shard file(s)", *conclusion.summary_lines]
    return MergeOutcome(header, lines, verdict().failed)


def _merge_verdict(conclusion: Conclusion, unjudged: Sequence[str]) -> RunVerdict:
    """The merge's verdict as it stands: the gates', and the checks without a verdict, which fail
    the merge as they fail their tests in a run, though no gate failed."""
    found = conclusion.verdict
    return dataclasses.replace(
        found, failed=found.failed or bool(unjudged), reasons=(*unjudged, *found.reasons)
    )


def _with_status(run: RunRecord, failed: bool) -> RunRecord:
    """The merged run record with exit status 1 when the merge failed and the shards ended 0."""
    return dataclasses.replace(run, exit_status=1) if failed and run.exit_status == 0 else run


def merge_command(args: argparse.Namespace) -> int:
    """``pytest-rag merge``: print the shards and the merged summary; exit 1 when a gate failed or a
    check ended without a verdict (or, through :class:`IncompleteShardsError`, when the shards do not
    make a complete run)."""
    paths = [Path(p) for p in args.shards]
    outcome = merge(
        paths,
        fail_under=parse_fail_under(args.fail_under or [], "--fail-under"),
        baseline=Path(args.baseline) if args.baseline else None,
        gold=Path(args.gold) if args.gold else None,
        min_alpha=check_min_alpha(args.min_alpha, "--min-alpha"),
        reports=[Path(p) for p in args.report or []],
        html=Path(args.html) if args.html else None,
        quiet=args.quiet,
        allow_partial=args.allow_partial,
        min_catch=parse_min_catch(args.min_catch or [], "--min-catch"),
    )
    for line in [*outcome.shards, *outcome.lines]:
        print(line)
    sys.stdout.flush()
    return outcome.exit_status


MERGE_COMMAND = SubCommand(
    "merge",
    "merge the results files of CI shards into one summary, gates and report",
    "Merge the --rag-report JSON files of CI shards: the summary, gates (exit status 1 "
    "when one fails), baseline comparison and reports that one unsharded run would give. Shards "
    "that did not run to the end (failed collection, stopped early, no check, a missing or "
    "repeated pytest-split group) are refused unless --allow-partial; shards of different "
    "suites, and rows whose scores or verdicts no run writes, are refused always.",
    (
        ValueOption("shards", "SHARD.json", "results files written by --rag-report in each shard", nargs="+"),
        ValueOption(
            "--report",
            "OUT",
            "write the merged results file (.json or .csv; repeat for both)",
            action="append",
        ),
        ValueOption("--html", "OUT", "write the HTML report of the merged run"),
        ValueOption(
            "--fail-under",
            "METRIC=VALUE",
            "fail (exit 1) when the lower bound of METRIC's 95%% CI is below VALUE (repeatable)",
            action="append",
        ),
        ValueOption("--baseline", "FILE", "compare with a results file saved by --rag-report"),
        ValueOption("--gold", "PATH", "JSONL of human scores: report alpha"),
        ValueOption(
            "--min-alpha",
            "ALPHA",
            "fail when the lower bound of alpha (judge vs --gold) is below ALPHA",
            float,
        ),
        ValueOption(
            "--min-catch",
            "[CLASS=]RATE",
            "fail when the lower bound of the mutants' catch rate (all classes, or CLASS) is below RATE "
            "(shards run with --rag-mutants; repeatable)",
            action="append",
        ),
        SwitchOption(
            "--allow-partial",
            "merge shards that did not all run to the end (or keep no run record), saying which",
        ),
        SwitchOption(("-q", "--quiet"), "one line per metric, as pytest -q prints it"),
    ),
    merge_command,
)
"""``pytest-rag merge`` and its options, in ``--help`` order."""
