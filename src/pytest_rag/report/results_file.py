"""Results files (``--rag-report=results.json`` / ``.csv``) and JUnit XML properties.

A results file holds one row per judged check and the summary's aggregates. Rows are sorted by what
identifies a check (test id, sample id, metric, mode, judge, and the order within the test for a
metric asked twice), and nothing time-dependent is written beyond what the checks themselves
carry, so two runs over the same inputs and cache write identical files. The JSON file is also what
``--rag-baseline`` reads back and what ``pytest-rag merge`` combines across CI shards, so a JSON row
holds its check exactly: numbers at full precision (JSON floats round-trip), the details and the
call tally (all but its latency, which is time). Reading a row back gives the record the run held (see
:func:`pytest_rag.report.comparison.records_from_json`).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..results import CheckRecord
from .files import write_text_atomically

FORMAT = "pytest-rag-results"
VERSION = 1
REPORT_SUFFIXES = (".json", ".csv")

CHECK_COLUMNS = (
    "kind",
    "check",
    "test_id",
    "sample_id",
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


def metric_label(record: CheckRecord) -> str:
    """How the summary names a metric: ``faithfulness``, or ``faithfulness[claims]`` for a mode."""
    return record.metric if record.mode == "default" else f"{record.metric}[{record.mode}]"


def keyed_records(records: Iterable[CheckRecord]) -> list[tuple[str, CheckRecord]]:
    """Every record with a key that names the same check in another run, sorted by that key.

    The key is ``test_id`` plus ``[sample_id]`` when the check scored a named sample, plus ``#N`` for
    the N-th check of the same metric and judge within that test and sample (N > 0 only).
    """
    seen: dict[tuple[str, str, str, str], int] = {}
    keyed: list[tuple[tuple[str, ...], str, CheckRecord]] = []
    for record in records:
        ident = (record.test_id, record.sample_id or "", metric_label(record), record.judge)
        occurrence = seen.get(ident, 0)
        seen[ident] = occurrence + 1
        key = record.test_id + (f"[{record.sample_id}]" if record.sample_id else "")
        if occurrence:
            key += f"#{occurrence}"
        sort_key = (
            record.test_id,
            record.sample_id or "",
            metric_label(record),
            record.judge,
            f"{occurrence:06d}",
        )
        keyed.append((sort_key, key, record))
    keyed.sort(key=lambda item: item[0])
    return [(key, record) for _, key, record in keyed]


def report_order(records: Iterable[CheckRecord]) -> list[CheckRecord]:
    """The records in the order of a results file (by check key), whatever order they were recorded in.

    Everything printed at the end of a run reads the records in this order: the bootstrap resamples
    by position, so a serial run, a pytest-xdist run (records arrive as workers finish) and a merge of
    CI shards print the same intervals for the same checks only when they agree on the order."""
    return [record for _, record in keyed_records(records)]


def _number(value: float | None) -> float | int | None:
    """A number as written: whole numbers as ints, others at full precision (never rounded, so a
    merge of shards computes the very intervals the unsharded run printed)."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else float(value)


def check_row(key: str, record: CheckRecord) -> dict[str, Any]:
    repeats = [v for j in record.judges for v in j.repeats]
    return {
        "kind": "check",
        "check": key,
        "test_id": record.test_id,
        "sample_id": record.sample_id,
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


def _tally(record: CheckRecord) -> dict[str, Any]:
    """The whole call tally, for an exact read-back; latency is left out (it changes from run to run)
    and failure kinds are sorted (they are counted in the order they happened)."""
    calls = record.calls.model_dump(mode="json", exclude={"latency_s"})
    calls["failures"] = dict(sorted(calls["failures"].items()))
    return calls


def aggregate_rows(records: Sequence[CheckRecord]) -> list[dict[str, Any]]:
    from .summary import summary_rows

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


def build_report(records: Sequence[CheckRecord]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "checks": [check_row(key, record) for key, record in keyed_records(records)],
        "aggregates": aggregate_rows(records),
    }


def _csv_text(report: dict[str, Any]) -> str:
    columns = [*CHECK_COLUMNS, "scale", *AGGREGATE_COLUMNS]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in [*report["checks"], *report["aggregates"]]:
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


def write_report(path: Path, records: Sequence[CheckRecord]) -> None:
    """Write the results file; the format follows the extension (.json or .csv), atomically."""
    check_report_path(path)
    report = build_report(records)
    if path.suffix.lower() == ".json":
        text = json.dumps(report, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    else:
        text = _csv_text(report)
    write_text_atomically(path, text)


def load_report(
    path: Path, role: str = "baseline file", remedy: str = "on the reference run"
) -> dict[str, Any]:
    """Read a results JSON file written by ``--rag-report`` (``--rag-baseline``, ``pytest-rag merge``).

    ``role`` names the file in errors ("baseline file", "shard file") and ``remedy`` ends the hint
    on how to write a valid one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"{role} {path} does not exist; save one with --rag-report={path} {remedy}"
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{role} {path} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise ConfigError(
            f"{role} {path} is not a text file; pass the .json file written by --rag-report"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(
            f"{role} {path} is not a pytest-rag results file; write one with --rag-report=FILE.json {remedy}"
        )
    if data.get("version") != VERSION:
        raise ConfigError(f"{role} {path} has format version {data.get('version')!r}; expected {VERSION}")
    return data


def junit_properties(records: Iterable[CheckRecord]) -> list[tuple[str, str]]:
    """Properties for a test's JUnit XML entry: each check's score, scale, judge, threshold, outcome."""
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
        if len(record.judges) > 1:
            for member in record.judges:
                properties.append((f"{prefix}.score[{member.judge}]", f"{_number(member.score)}"))
    return properties
