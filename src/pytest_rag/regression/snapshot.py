"""Snapshot-locked regression of judged scores with syrupy.

``assert rag_judge.faithfulness(answer, contexts) == snapshot`` stores a readable block (metric,
mode, judge, score, scale, each judge's repeated scores, the reasons and the evidence) inside the
usual Amber ``.ambr`` file. Comparing a judged score byte for byte would make the snapshot fail every
time a judge rewords its reasons or a 1-5 score moves by its usual noise, so
:class:`RagSnapshotExtension` compares only what identifies the check (metric, mode, judge, scale)
exactly and the score within a tolerance:

* a number, e.g. ``0.5``: the new score may differ from the stored one by at most that much;
* ``repeats``: the new score must lie within the range of the stored repeated judgments, or the
  stored score within the range of the new ones (run with ``--rag-judge-repeat N`` so there is a
  range to speak of).

The table of a batch (``rag_judge.evaluate(...)``) is stored as one block per row, each naming its
sample (``[q17]``, or ``[#3]`` by position), so that its scores compare the same way and nothing
that changes from run to run (a call's latency) is locked in; a table with a row that has no verdict
is refused, since a snapshot of it would lock the error in as the expected outcome.

Everything that is not a ``MetricResult`` (a list of them, or such a table) is handled exactly as
syrupy's Amber extension handles it, which is why pytest-rag can make this extension the default of
the plain ``snapshot`` fixture without changing anyone else's snapshots. A snapshot within tolerance is left
as recorded, even under ``--snapshot-update``: otherwise noise would let the reference drift a
little further down on every update.

What a tolerance is, and the start-up glue that makes this extension syrupy's default, live in
:mod:`.tolerance`, so a suite that never takes a snapshot never imports this module.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.amber import AmberSnapshotExtension

from ..check_keys import sample_tag
from ..errors import InputError, WaitingForBatchError
from .tolerance import BY_TOLERANCE, Tolerance, class_name, parse_tolerance

if TYPE_CHECKING:
    from ..results import MetricResult
    from ..results_table import ResultsTable

HEADER = "pytest-rag score"
IDENTITY_FIELDS = ("metric", "mode", "judge", "scale", "sample")
"""What must match exactly; ``sample`` is written only for the rows of a table (absent, it is None on
both sides)."""


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(float(value), 6)


# -- the readable block ------------------------------------------------------------------------------


def render_result(result: MetricResult, sample: str | None = None) -> str:
    """One result as ``key: <json>`` lines under a header: readable, diffable, and parseable back;
    ``sample`` names the row of a table it came from."""
    fields: list[tuple[str, Any]] = [
        *([("sample", sample)] if sample is not None else []),
        ("metric", result.metric),
        ("mode", result.mode),
        ("judge", result.judge),
        ("score", _number(result.score)),
        ("scale", result.scale),
        ("judges", {j.judge: [_number(r) for r in j.repeats] for j in result.judges}),
        ("reasons", result.reasons),
    ]
    for name, value in sorted(result.evidence_dict().items()):
        fields.append((f"evidence.{name}", value))
    lines = [HEADER]
    for name, value in fields:
        lines.append(f"{name}: {json.dumps(value, ensure_ascii=False, sort_keys=True)}")
    return "\n".join(lines)


@dataclass(frozen=True)
class StoredScore:
    """A rendered result read back: the fields that matter for comparing two snapshots."""

    fields: dict[str, Any]

    @property
    def score(self) -> float:
        return float(self.fields["score"])

    @property
    def identity(self) -> tuple[Any, ...]:
        return tuple(self.fields.get(name) for name in IDENTITY_FIELDS)

    @property
    def repeat_range(self) -> tuple[float, float]:
        values = [float(v) for repeats in dict(self.fields.get("judges") or {}).values() for v in repeats]
        if not values:
            return (self.score, self.score)
        return (min(values), max(values))

    @property
    def evidence(self) -> dict[str, Any]:
        return {k[len("evidence.") :]: v for k, v in self.fields.items() if k.startswith("evidence.")}

    def label(self) -> str:
        mode = "" if self.fields.get("mode") in (None, "default") else f"[{self.fields['mode']}]"
        sample = f" of sample {self.fields['sample']}" if self.fields.get("sample") is not None else ""
        return f"{self.fields.get('metric')}{mode}{sample} by {self.fields.get('judge')}"


def parse_rendered(data: object) -> list[StoredScore] | None:
    """The results in a serialized snapshot, or None when it is not (only) pytest-rag results."""
    if not isinstance(data, str) or not data.startswith(HEADER):
        return None
    blocks: list[dict[str, Any]] = []
    for line in data.splitlines():
        if line == HEADER:
            blocks.append({})
            continue
        name, sep, encoded = line.partition(": ")
        if not sep or not blocks:
            return None
        try:
            blocks[-1][name] = json.loads(encoded)
        except json.JSONDecodeError:
            return None
    if not blocks or any("score" not in b or not isinstance(b["score"], (int, float)) for b in blocks):
        return None
    return [StoredScore(b) for b in blocks]


def _results_in(data: object) -> list[tuple[MetricResult, str | None]] | None:
    """The results ``data`` holds, each with the sample it names (None outside a table), or None
    when it is not a result, a list of them or the table of a batch."""
    # This extension is syrupy's default in every suite; importing the pydantic models just to learn
    # that a snapshot holds none would cost every suite start-up. If they were never imported, no
    # MetricResult exists to be found.
    results = sys.modules.get("pytest_rag.results")
    if results is None:
        return None
    metric_result: type[MetricResult] = results.MetricResult
    if isinstance(data, metric_result):
        return [(data, None)]
    if isinstance(data, (list, tuple)) and data and all(isinstance(d, metric_result) for d in data):
        return [(d, None) for d in data]
    tables = sys.modules.get("pytest_rag.results_table")
    if tables is not None and isinstance(data, tables.ResultsTable):
        return _table_rows(data)
    return None


class NotCompared(pytest.skip.Exception):  # type: ignore[name-defined,misc]
    """A snapshot of a table whose rows were counted (``--rag-dry-run``) or queued (``--rag-batch``)
    instead of judged: there is no score to compare, and nothing went wrong, so the comparison is
    skipped with its test, as every test with such a check is (docs/performance.md). Raised while
    syrupy compares, so that nothing is compared and nothing written (``--snapshot-update``);
    :func:`forget_uncompared` then takes the comparison out of syrupy's report."""


def _table_rows(table: ResultsTable) -> list[tuple[MetricResult, str | None]]:
    """A table's rows with their samples; a table with a row that has no verdict is refused, one
    whose rows without a verdict were all counted or queued instead of judged is not compared."""
    unjudged = [row for row in table if row.result is None]
    if unjudged and all(row.not_judged for row in unjudged):
        queued = isinstance(unjudged[0].error, WaitingForBatchError)
        why = "queued for a provider batch (--rag-batch)" if queued else "counted by --rag-dry-run"
        raise NotCompared(
            f"{len(unjudged)} check(s) of this table were {why}, not judged: its snapshot is not compared"
        )
    if unjudged:
        first = unjudged[0]
        raise InputError(
            f"this table has {len(unjudged)} row(s) without a verdict (the first: {first.metric} of "
            f"sample {sample_tag(first)}: {first.error}); a snapshot locks judged scores, and one of "
            "this table would lock the error in: fix what kept the rows from a verdict, or snapshot "
            "the results of the rows that have one"
        )
    return [(row.result, sample_tag(row)) for row in table if row.result is not None]


def forget_uncompared(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """After :class:`NotCompared` skipped a test: take the comparison it interrupted out of syrupy's
    report. syrupy records every comparison as it ends, and one stopped before its data was
    serialized reads as a failed snapshot ("1 snapshot failed") in a run that failed nothing; it is
    the comparison whose record holds neither data nor an exception, found on the
    ``SnapshotAssertion`` that was comparing (a frame of the exception's traceback)."""
    tb = excinfo.value.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, SnapshotAssertion):
            executions = getattr(owner, "executions", None)
            if not isinstance(executions, dict):  # another syrupy: its report keeps the line
                return
            for index, result in list(executions.items()):
                uncompared = getattr(result, "asserted_data", True) is None and not getattr(
                    result, "success", True
                )
                if uncompared and getattr(result, "exception", None) is None:
                    del executions[index]
            return
        tb = tb.tb_next


# -- comparing -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """Why one stored result and one new result do not match, in words."""

    index: int
    old: StoredScore | None
    new: StoredScore | None
    reason: str


def compare(old: Sequence[StoredScore], new: Sequence[StoredScore], tolerance: Tolerance) -> list[Difference]:
    """Every pair that fails: identity changed, or the score moved beyond the tolerance."""
    differences: list[Difference] = []
    for index in range(max(len(old), len(new))):
        before = old[index] if index < len(old) else None
        after = new[index] if index < len(new) else None
        if before is None or after is None:
            what = "a result was added" if before is None else "a result was removed"
            differences.append(Difference(index, before, after, what))
            continue
        if before.identity != after.identity:
            changed = [
                f"{name} {b!r} -> {a!r}"
                for name, b, a in zip(IDENTITY_FIELDS, before.identity, after.identity, strict=True)
                if b != a
            ]
            differences.append(Difference(index, before, after, "not comparable: " + ", ".join(changed)))
            continue
        if not tolerance.allows(before, after):
            direction = "dropped" if after.score < before.score else "rose"
            differences.append(
                Difference(
                    index,
                    before,
                    after,
                    f"score {direction} from {_number(before.score)} to {_number(after.score)} "
                    f"on the {before.fields.get('scale')} scale (tolerance {tolerance})",
                )
            )
    return differences


def _evidence_text(stored: StoredScore) -> str:
    parts = []
    for name, value in stored.evidence.items():
        shown = "; ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"{name.replace('_', ' ')}: {shown or '(none)'}")
    return " | ".join(parts) if parts else "(no evidence)"


def _side(name: str, stored: StoredScore) -> Iterator[str]:
    repeats = "; ".join(
        f"{judge} {[_number(v) for v in values]}" for judge, values in dict(stored.fields["judges"]).items()
    )
    yield f"  {name}: score {_number(stored.score)}" + (f" (repeats: {repeats})" if repeats else "")
    yield f"    reasons: {stored.fields.get('reasons') or '(none)'}"
    yield f"    evidence: {_evidence_text(stored)}"


def explain(differences: Sequence[Difference]) -> list[str]:
    lines: list[str] = []
    for diff in differences:
        either = diff.old or diff.new
        subject = either.label() if either is not None else "result"
        lines.append(f"{subject}: {diff.reason}")
        if diff.old is not None:
            lines.extend(_side("snapshot", diff.old))
        if diff.new is not None:
            lines.extend(_side("received", diff.new))
    return lines


# -- the syrupy extension --------------------------------------------------------------------------------

_TOLERANT_CLASSES: dict[Tolerance, type[RagSnapshotExtension]] = {}


def extension_for(tolerance: str | float | Tolerance | None) -> type[RagSnapshotExtension]:
    """The extension class that compares with ``tolerance`` (exact when None)."""
    if tolerance is None:
        return RagSnapshotExtension
    parsed = parse_tolerance(tolerance)
    if parsed not in _TOLERANT_CLASSES:
        _TOLERANT_CLASSES[parsed] = type(class_name(parsed), (RagSnapshotExtension,), {"tolerance": parsed})
    return _TOLERANT_CLASSES[parsed]


def __getattr__(name: str) -> Any:
    if name.startswith(BY_TOLERANCE):
        spelled = name[len(BY_TOLERANCE) :]
        if spelled == "Repeats":
            return extension_for("repeats")
        if spelled.endswith("ppm") and spelled[:-3].isdigit():
            return extension_for(int(spelled[:-3]) / 1_000_000)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RagSnapshotExtension(AmberSnapshotExtension):
    """Amber snapshots in which pytest-rag results compare with a score tolerance.

    This class compares exactly; the run's ``--rag-snapshot-tolerance`` picks a subclass for the
    ``snapshot`` and ``rag_snapshot`` fixtures, and :meth:`with_tolerance` one per assertion:
    ``assert result == snapshot(extension_class=RagSnapshotExtension.with_tolerance(1))``.
    """

    tolerance: ClassVar[Tolerance] = Tolerance()

    @classmethod
    def with_tolerance(cls, tolerance: str | float | Tolerance) -> type[RagSnapshotExtension]:
        """A subclass fixed to ``tolerance`` (one class per tolerance, so syrupy's report groups them)."""
        return extension_for(tolerance)

    def serialize(self, data: Any, **kwargs: Any) -> str:
        results = _results_in(data)
        if results is None:
            return super().serialize(data, **kwargs)
        return "\n".join(render_result(result, sample) for result, sample in results)

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        new, old = parse_rendered(serialized_data), parse_rendered(snapshot_data)
        if new is None or old is None:
            return bool(serialized_data == snapshot_data)
        return not compare(old, new, self.tolerance)

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        new, old = parse_rendered(serialized_data), parse_rendered(snapshot_data)
        if new is not None and old is not None:
            yield from explain(compare(old, new, self.tolerance))
            yield "line diff (- snapshot, + received):"
        yield from super().diff_lines(serialized_data, snapshot_data)
