"""Results files (``--rag-report=results.json`` / ``.csv``) and JUnit XML properties.

A results file holds what its run was (:class:`~pytest_rag.run_record.RunRecord`: the tests pytest
collected and ran, its exit status, whether it stopped early, its pytest-split group, a run id),
one row per judged check, and the summary's aggregates. Rows are sorted by what identifies a check
(:mod:`pytest_rag.check_keys`), and nothing time-dependent is written beyond what the checks
themselves carry, so two runs over the same inputs and cache write the same rows and aggregates;
only the run record tells the runs apart. The JSON file is also what ``--rag-baseline`` reads back
and what ``pytest-rag merge`` combines across CI shards, so a JSON row holds its check exactly:
numbers at full precision (JSON floats round-trip), the details and the call tally (all but its
latency, which is time), and :func:`read_results` gives back the records the run held.

Format version 2 added the run record (and ``sample_index``); files of version 1 are still read,
with no run record.

A check whose judge reported the odds of its grades also has ``expected_score`` and
``pass_probability`` (per judge too, and ``passed_on`` when the bar was held to the expected score);
the other checks have no such fields, and a CSV file has those two columns, last, only when some check
has them.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..check_keys import keyed_records, metric_label
from ..errors import ConfigError, RagError, json_error_text
from ..results import CallTally, CheckRecord, Highlights, JudgeScore, SampleExcerpt
from ..run_record import RunRecord
from .files import write_atomically
from .summary import summary_rows

FORMAT = "pytest-rag-results"
VERSION = 2
#: Format versions :func:`read_results_file` reads: version 1 files carry no run record.
READABLE_VERSIONS = (1, 2)
REPORT_SUFFIXES = (".json", ".csv")
#: The error kind of a check row that holds neither a score nor an error (read as a judge error, so
#: it counts the same in n, errors, pass rate and calls).
NO_SCORE_KIND = "MissingScoreError"

CHECK_COLUMNS = (
    "kind",
    "check",
    "test_id",
    "sample_id",
    "sample_index",
    "metric",
    "mode",
    "judge",
    "score",
    "normalized",
    "scale_low",
    "scale_high",
    "threshold",
    "passed",
    "spread",
    "judge_scores",
    "error_kind",
    "error",
    "reasons",
    "evidence",
    "live",
    "cached",
    "offline",
    "batched",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "saved_usd",
    "attempts",
    "retries",
    "failures",
)
ODDS_COLUMNS = ("expected_score", "pass_probability")
"""The CSV columns of checks whose judge reported its grades' odds, after all others when present."""
AGGREGATE_COLUMNS = (
    "n",
    "errors",
    "mean",
    "ci_low",
    "ci_high",
    "pass_rate",
    "passed_count",
    "with_threshold",
    "not_judged",
)


def _number(value: float | None) -> float | int | None:
    """A number as written: whole numbers as ints, others at full precision (never rounded, so a
    merge of shards computes the very intervals the unsharded run printed)."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else float(value)


def check_row(key: str, record: CheckRecord) -> dict[str, Any]:
    repeats = [v for j in record.judges for v in j.repeats]
    row = {
        "kind": "check",
        "check": key,
        "test_id": record.test_id,
        "sample_id": record.sample_id,
        "sample_index": record.sample_index,
        "metric": metric_label(record),
        "mode": record.mode,
        "judge": record.judge,
        "score": _number(record.score),
        "normalized": _number(record.normalized),
        "scale_low": _number(record.scale_low),
        "scale_high": _number(record.scale_high),
        "threshold": _number(record.threshold),
        "passed": record.passed,
        "spread": _number(max(repeats) - min(repeats)) if repeats else None,
        "judge_scores": {j.judge: [_number(v) for v in j.repeats] for j in record.judges},
        "error_kind": record.error_kind,
        "error": record.error,
        "reasons": record.reasons,
        "evidence": record.evidence,
        "details": {name: _number(value) for name, value in record.details.items()},
        "highlights": record.highlights.model_dump(mode="json"),
        "texts": record.texts.model_dump(mode="json") if record.texts is not None else None,
        "live": record.calls.live,
        "cached": record.calls.cached,
        "offline": record.calls.offline,
        "batched": record.calls.batched,
        "tokens_in": record.calls.tokens_in,
        "tokens_out": record.calls.tokens_out,
        "cost_usd": record.calls.cost_usd,
        "saved_usd": record.calls.saved_usd,
        "attempts": record.calls.attempts,
        "retries": record.calls.retries,
        "failures": dict(sorted(record.calls.failures.items())),
        "calls": _tally(record),
    }
    row.update(_odds_fields(record))
    return row


def _odds_fields(record: CheckRecord) -> dict[str, Any]:
    """The expected score and pass probability of the check and of each judge, when known."""
    if record.expected_score is None:
        return {}
    fields: dict[str, Any] = {
        "expected_score": _number(record.expected_score),
        "pass_probability": _number(record.pass_probability),
        "judge_expected_scores": {j.judge: _number(j.expected_score) for j in record.judges},
        "judge_pass_probabilities": {j.judge: _number(j.pass_probability) for j in record.judges},
    }
    if record.passed_on != "score":
        fields["passed_on"] = record.passed_on
    return fields


def _tally(record: CheckRecord) -> dict[str, Any]:
    """The whole call tally, for an exact read-back; latency is left out (it changes from run to run)
    and failure kinds are sorted (they are counted in the order they happened)."""
    calls = record.calls.model_dump(mode="json", exclude={"latency_s"})
    calls["failures"] = dict(sorted(calls["failures"].items()))
    return calls


def aggregate_rows(records: Sequence[CheckRecord]) -> list[dict[str, Any]]:
    rows = []
    for row in summary_rows(records):
        a = row.aggregate
        rows.append(
            {
                "kind": "aggregate",
                "metric": a.metric,
                "judge": a.judge,
                "scale": row.scale,
                "n": a.n,
                "errors": a.errors,
                "mean": _number(a.mean),
                "ci_low": _number(a.ci_low),
                "ci_high": _number(a.ci_high),
                "pass_rate": _number(a.pass_rate),
                "passed_count": a.passed,
                "with_threshold": a.with_threshold,
                "not_judged": a.not_judged,
            }
        )
    return rows


def build_report(
    records: Sequence[CheckRecord], run: RunRecord | None = None, mutants: Sequence[Any] | None = None
) -> dict[str, Any]:
    """The JSON results file; ``run`` is None only where no run record is known; ``mutants``: the
    rows of a run with --rag-mutants (:mod:`pytest_rag.mutants.records`), kept whole so that a merge
    of shards computes the run's catch table."""
    report = {
        "format": FORMAT,
        "version": VERSION,
        "run": run.to_json() if run is not None else None,
        "checks": [check_row(key, record) for key, record in keyed_records(records)],
        "aggregates": aggregate_rows(records),
    }
    if mutants is not None:
        report["mutants"] = list(mutants)
    return report


def _csv_text(report: dict[str, Any]) -> str:
    """The CSV results file: a ``run`` row first (its record as JSON text), then checks, aggregates."""
    columns = [*CHECK_COLUMNS, "scale", *AGGREGATE_COLUMNS, "run"]
    if any("expected_score" in row for row in report["checks"]):
        columns += ODDS_COLUMNS
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    run_rows = [{"kind": "run", "run": report["run"]}] if report["run"] is not None else []
    for row in [*run_rows, *report["checks"], *report["aggregates"]]:
        flat = {}
        for name, value in row.items():
            if isinstance(value, (dict, list)):
                flat[name] = json.dumps(value, ensure_ascii=False, sort_keys=True)
            elif value is None:
                flat[name] = ""
            else:
                flat[name] = value
        writer.writerow(flat)
    return buffer.getvalue()


def check_report_path(path: Path) -> None:
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise ConfigError(
            f"--rag-report {path} has an unknown extension; name it *.json or *.csv (repeat the option "
            "for both)"
        )


def write_report(
    path: Path,
    records: Sequence[CheckRecord],
    run: RunRecord | None = None,
    mutants: Sequence[Any] | None = None,
) -> None:
    """Write the results file; the format follows the extension (.json or .csv), atomically. The
    mutants' rows go into the JSON file only (a CSV file has a row per check)."""
    check_report_path(path)
    report = build_report(records, run, mutants)
    if path.suffix.lower() == ".json":
        text = json.dumps(report, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    else:
        text = _csv_text(report)
    write_atomically(path, text, "the results file")


def write_reports(
    paths: Sequence[Path],
    records: Sequence[CheckRecord],
    run: RunRecord | None = None,
    mutants: Sequence[Any] | None = None,
) -> tuple[list[str], Exception | None]:
    """Write every results file asked for (``--rag-report``, ``pytest-rag merge --report``): the lines
    the summary shows, and the error that stopped the writing (a file that cannot be written fails
    the run), if any."""
    lines: list[str] = []
    for path in paths:
        try:
            write_report(path, records, run, mutants)
        except (RagError, OSError) as exc:
            return lines, exc
        lines.append(f"results written to {path}")
    return lines, None


class ResultsFileError(RagError):
    """A results file that cannot be read back; the message names the file and how to write a good one."""


@dataclass(frozen=True)
class ResultsFile:
    """A JSON results file read back: its format version, its run record (None in version 1) and
    its checks, as the records the run held."""

    version: int
    run: RunRecord | None
    records: list[CheckRecord]
    mutants: Any = None
    """The ``mutants`` rows of a run with --rag-mutants as written (None: the run made none), read
    by :func:`pytest_rag.mutants.records.read_rows`."""


def read_results(path: Path, role: str = "results file", remedy: str = "") -> list[CheckRecord]:
    """The checks of a JSON results file written by ``--rag-report``, as the records the run held
    (see :func:`read_results_file`)."""
    return read_results_file(path, role, remedy).records


def read_results_file(path: Path, role: str = "results file", remedy: str = "") -> ResultsFile:
    """A JSON results file written by ``--rag-report``: its run record and its checks.

    The one reader of results files: ``--rag-baseline``, ``--rag-html``'s comparison, ``pytest-rag
    plot`` and ``pytest-rag merge`` all read through it, so a file one of them accepts, the others
    accept too. ``role`` names the file in errors ("baseline file", "shard file") and ``remedy`` ends
    the hint on how to write a valid one (" on the reference run"). A row that cannot be read is an
    error naming the file, the row and what is wrong, never left out: a reader that skipped it would
    report a smaller run than the one that ran."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsFileError(
            f"{role} {path} does not exist; save one with --rag-report={path}{remedy}"
        ) from None
    except UnicodeDecodeError:
        raise ResultsFileError(
            f"{role} {path} is not a text file; pass the .json file written by --rag-report"
        ) from None
    if path.suffix.lower() == ".csv":
        raise ResultsFileError(
            f"{role} {path} is a CSV results file; pytest-rag reads back the JSON one, which keeps every "
            "number exactly (write it with --rag-report=FILE.json; repeat the option for both)"
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsFileError(
            f"{role} {path} is not JSON ({json_error_text(exc, f'line {exc.lineno}')}); pass the .json file "
            "written by --rag-report"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsFileError(
            f"{role} {path} is not a pytest-rag results file; write one with --rag-report=FILE.json{remedy}"
        )
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        raise ResultsFileError(
            f"{role} {path} has format version {version!r}; this pytest-rag reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))} (a newer pytest-rag wrote it?)"
        )
    rows = data.get("checks")
    if not isinstance(rows, list):
        raise ResultsFileError(f"{role} {path} holds no list of checks; write it again with --rag-report")
    run = None
    if version >= 2 and data.get("run") is not None:
        try:
            run = RunRecord.from_json(data["run"])
        except ValueError as exc:
            raise ResultsFileError(
                f"{role} {path} has a malformed run record: {exc}; write it again with --rag-report"
            ) from None
    records = []
    for number, row in enumerate(rows, start=1):
        try:
            record = _record_from_row(row)
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise ResultsFileError(
                f"check {number} of {role} {path} is malformed: {_what_is_wrong(exc)}; write it again "
                "with --rag-report"
            ) from None
        if record.score is None and record.error is None:
            record = record.model_copy(
                update={
                    "error": f"check {number} of {path.name} holds neither a score nor an error",
                    "error_kind": NO_SCORE_KIND,
                }
            )
        records.append(record)
    return ResultsFile(version, run, records, data.get("mutants"))


def _what_is_wrong(exc: Exception) -> str:
    """One line for a row that could not be read: pydantic's first complaint with the field it names."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where!r} is {first.get('input')!r}: {first['msg']}"
    if isinstance(exc, KeyError):
        return f"it has no {exc.args[0]!r}"
    return str(exc)


def _record_from_row(row: Any) -> CheckRecord:
    """A check row as the record it was written from (:func:`check_row` the other way round); a
    judge's score is the median of its repeats, as the evaluation computed it."""
    if not isinstance(row, dict):
        raise ValueError(f"it is {type(row).__name__}, not an object")
    if row.get("kind", "check") != "check":
        raise ValueError(f"its kind is {row['kind']!r}; the list of checks holds rows of kind 'check'")
    if not isinstance(row.get("test_id"), str) or not row["test_id"]:
        raise ValueError(f"'test_id' is {row.get('test_id')!r}, not a test id")
    if not isinstance(row.get("metric"), str) or not row["metric"]:
        raise ValueError(f"'metric' is {row.get('metric')!r}, not a metric name")
    metric, mode = row["metric"], str(row.get("mode") or "default")
    suffix = f"[{mode}]"
    if mode != "default" and metric.endswith(suffix):
        metric = metric[: -len(suffix)]
    judge_scores = row.get("judge_scores") or {}
    if not isinstance(judge_scores, dict):
        raise ValueError(f"'judge_scores' is {judge_scores!r}, not an object of lists of scores")
    expected = row.get("judge_expected_scores") or {}
    chance = row.get("judge_pass_probabilities") or {}
    judges = []
    for name, values in judge_scores.items():
        if not isinstance(values, list) or not values or not all(_is_number(v) for v in values):
            raise ValueError(f"'judge_scores' of {name!r} is {values!r}, not a list of scores")
        judges.append(
            JudgeScore(
                judge=name,
                score=statistics.median(values),
                repeats=list(values),
                expected_score=expected.get(name),
                pass_probability=chance.get(name),
            )
        )
    texts = row.get("texts")
    return CheckRecord(
        test_id=row["test_id"],
        metric=metric,
        mode=mode,
        judge=str(row.get("judge") or ""),
        score=row.get("score"),
        normalized=row.get("normalized"),
        scale_low=row.get("scale_low"),
        scale_high=row.get("scale_high"),
        threshold=row.get("threshold"),
        passed=row.get("passed"),
        error=row.get("error"),
        error_kind=row.get("error_kind"),
        reasons=str(row.get("reasons") or ""),
        evidence=row.get("evidence") or {},
        details=row.get("details") or {},
        judges=judges,
        calls=_tally_from_row(row),
        sample_id=row.get("sample_id"),
        sample_index=row.get("sample_index"),
        texts=SampleExcerpt.model_validate(texts) if isinstance(texts, dict) else None,
        highlights=Highlights.model_validate(row.get("highlights") or {}),
        expected_score=row.get("expected_score"),
        pass_probability=row.get("pass_probability"),
        passed_on=str(row.get("passed_on") or "score"),
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tally_from_row(row: dict[str, Any]) -> CallTally:
    """The call tally of a check row: the whole tally when the row carries it, else its flat columns
    (files written before the tally was kept whole; a column a file lacks counts zero)."""
    if isinstance(row.get("calls"), dict):
        return CallTally.model_validate(row["calls"])
    return CallTally.model_validate(
        {name: row[name] for name in CallTally.model_fields if row.get(name) is not None}
    )


def junit_properties(records: Iterable[CheckRecord]) -> list[tuple[str, str]]:
    """Properties for a test's JUnit XML entry: each check's score, scale, judge, threshold, outcome,
    and, where the judge reported its grade's odds, the expected score and the probability of a
    pass (what ``--rag-pass-on=expected`` reads; a CI dashboard can flag a pass that was a coin toss)."""
    properties: list[tuple[str, str]] = []
    for record in records:
        prefix = f"rag.{metric_label(record)}"
        if record.error is not None:
            properties.append((f"{prefix}.error", f"{record.error_kind or 'error'}: {record.error}"))
            continue
        properties.append((f"{prefix}.score", f"{_number(record.score)}"))
        if record.scale_low is not None and record.scale_high is not None:
            properties.append((f"{prefix}.scale", f"{record.scale_low:g}-{record.scale_high:g}"))
        properties.append((f"{prefix}.judge", record.judge))
        if record.threshold is not None:
            properties.append((f"{prefix}.threshold", f"{_number(record.threshold)}"))
            properties.append((f"{prefix}.passed", "true" if record.passed else "false"))
        if record.expected_score is not None:
            properties.append((f"{prefix}.expected_score", f"{_number(record.expected_score)}"))
        if record.pass_probability is not None:
            properties.append((f"{prefix}.pass_probability", f"{_number(record.pass_probability)}"))
        if record.passed_on != "score":
            properties.append((f"{prefix}.passed_on", record.passed_on))
        if len(record.judges) > 1:
            for member in record.judges:
                properties.append((f"{prefix}.score[{member.judge}]", f"{_number(member.score)}"))
    return properties
