"""``pytest-rag merge SHARD.json...``: the results files of CI shards as the verdict of one run.

A suite split across machines (a GitHub Actions matrix with pytest-split, say) runs each shard with
``--rag-report=shard-N.json``. An interval, a gate or a baseline comparison computed on one shard
says nothing about the suite, so the shards run without gates, and this command reads their results
files back into check records, checks that no check was run twice, and computes what one unsharded
run would have printed: the summary table with its intervals, the repeat and ensemble lines, the
gates (``--fail-under``, ``--gold``/``--min-alpha``), the baseline comparison, the results files and
the HTML report. Its exit status is that of the run's gates: 0, or 1 when a gate failed.

The output is identical to the unsharded run's because both read the same records (results files
keep every number at full precision) in the same order (:func:`~pytest_rag.check_keys.report_order`),
through the same functions (:func:`~pytest_rag.report.summary.summary_text`,
:func:`~.gates.conclude`). What a results file cannot say is left out: each shard's own test failures
(its job's exit status says them) and a per-run ``--rag-budget`` line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..check_keys import keyed_records, metric_label, report_order
from ..errors import InputError
from ..report.html.page import write_html_report
from ..report.results_file import REPORT_SUFFIXES, read_results, write_reports
from ..report.summary import summary_text
from ..results import CheckRecord
from .gate_bars import check_min_alpha, parse_fail_under
from .gates import conclude


@dataclass(frozen=True)
class Shard:
    """One shard's results file and the checks it holds."""

    path: Path
    records: list[CheckRecord]


def load_shard(path: Path) -> Shard:
    """Read one shard's JSON results file; the error names the file and how to write a valid one."""
    return Shard(path, read_results(path, "shard file", " in each shard's pytest command"))


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
    """What ``pytest-rag merge`` prints and the exit status it ends with."""

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
) -> MergeOutcome:
    """Merge the shards, judge the whole, write the requested files; the lines are the summary an
    unsharded run prints under its "pytest-rag summary" rule."""
    shards = [load_shard(path) for path in shard_paths]
    records = combine(shards)
    for path in reports:
        if path.suffix.lower() not in REPORT_SUFFIXES:
            raise InputError(f"--report {path} must end in .json or .csv (repeat the option for both)")
    notes = []
    if html is not None:
        title = f"pytest-rag report · {len(shards)} shard(s) merged"
        notes.append(write_html_report(html, records, baseline, title))
    conclusion = conclude(
        records, fail_under=fail_under or {}, gold=gold, min_alpha=min_alpha, baseline=baseline, notes=notes
    )
    written, error = write_reports(reports, records)
    conclusion.lines.extend(written)
    if error is not None:
        conclusion.fail(error)
    dry_run = any(record.error_kind == "NotJudgedError" for record in records)
    lines = summary_text(records, conclusion.summary_lines, quiet=quiet, dry_run=dry_run)
    if not lines:  # no check in any shard: still say so, and why a gate failed
        lines = [f"no judged check in {len(shards)} shard file(s)", *conclusion.summary_lines]
    return MergeOutcome(lines, conclusion.failed)


def merge_command(args: argparse.Namespace) -> int:
    """``pytest-rag merge``: print the merged summary; exit 1 when a gate failed."""
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
    )
    print(f"pytest-rag summary of {len(paths)} shard(s): {', '.join(str(p) for p in paths)}")
    for line in outcome.lines:
        print(line)
    sys.stdout.flush()
    return outcome.exit_status


def add_merge_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    merge_parser = commands.add_parser(
        "merge",
        help="merge the results files of CI shards into one summary, gates and report",
        description="Merge the --rag-report JSON files of CI shards: the summary, gates (exit status 1 "
        "when one fails), baseline comparison and reports that one unsharded run would give.",
    )
    merge_parser.add_argument(
        "shards", nargs="+", metavar="SHARD.json", help="results files written by --rag-report in each shard"
    )
    merge_parser.add_argument(
        "--report",
        action="append",
        metavar="OUT",
        help="write the merged results file (.json or .csv; repeat for both)",
    )
    merge_parser.add_argument("--html", metavar="OUT", help="write the HTML report of the merged run")
    merge_parser.add_argument(
        "--fail-under",
        action="append",
        metavar="METRIC=VALUE",
        help="fail (exit 1) when the lower bound of METRIC's 95%% CI is below VALUE (repeatable)",
    )
    merge_parser.add_argument(
        "--baseline", metavar="FILE", help="compare with a results file saved by --rag-report"
    )
    merge_parser.add_argument("--gold", metavar="PATH", help="JSONL of human scores: report alpha")
    merge_parser.add_argument(
        "--min-alpha",
        type=float,
        metavar="ALPHA",
        help="fail when the lower bound of alpha (judge vs --gold) is below ALPHA",
    )
    merge_parser.add_argument(
        "-q", "--quiet", action="store_true", help="one line per metric, as pytest -q prints it"
    )
    merge_parser.set_defaults(handler=merge_command)
