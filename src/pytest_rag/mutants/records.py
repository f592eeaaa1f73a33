"""What became of each mutant, as a record that travels like a check's: from a pytest-xdist worker to
the controller, into the results file and back out of it for ``pytest-rag merge``.

A mutated check has one record per mutation class: its mutant caught (the check failed it), survived
(the check passed it), without a verdict (the judge failed on it), counted or queued instead of
judged (``--rag-dry-run``, ``--rag-batch``), or no mutant at all (no edit of the class applied to the
answer). These records are never check records: no pass rate, mean, judge-error count or gate other
than ``--rag-min-catch`` reads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ..check_keys import sample_tag
from ..errors import InputError, cut_text
from ..results import CallTally
from .classes import MUTATION_CLASSES

CAUGHT = "caught"
SURVIVED = "survived"
NO_VERDICT = "no verdict"
NO_MUTANT = "no mutant"
OUTCOMES = (CAUGHT, SURVIVED, NO_VERDICT, NO_MUTANT)

#: How much of the edited sentence a record keeps (the report shows it beside the changed words).
SENTENCE_CHARS = 300


class MutantRecord(BaseModel):
    """One mutation class tried on one passing check: the check (test, sample, metric, judge), the
    class, what the edit changed and what the check made of the mutant.

    ``error_kind`` says why a mutant has no verdict; a mutant counted by ``--rag-dry-run``
    (``NotJudgedError``, its would-be calls in ``estimate``) or queued by ``--rag-batch``
    (``WaitingForBatchError``) has one too, and the catch table tells those apart."""

    test_id: str
    sample_id: str | None = None
    sample_index: int | None = None
    metric: str
    mode: str = "default"
    judge: str
    mutation: str
    outcome: str
    removed: str = ""
    added: str = ""
    sentence: str = ""
    score: float | None = None
    threshold: float | None = None
    error_kind: str | None = None
    error: str | None = None
    calls: CallTally = Field(default_factory=CallTally)
    estimate: dict[str, Any] = Field(default_factory=dict)

    @property
    def check(self) -> str:
        """The check the mutant was made from, as reports name it: test id and sample tag."""
        return self.test_id + sample_tag(self)

    @property
    def metric_label(self) -> str:
        return self.metric if self.mode == "default" else f"{self.metric}[{self.mode}]"

    @property
    def change(self) -> str:
        """The changed words as one line: ``'five' -> 'six'``; ``+ 'and ...'`` for words only added,
        ``- 'if ...'`` for words only taken out."""
        if self.removed and self.added:
            return f"{self.removed!r} -> {self.added!r}"
        return f"+ {self.added!r}" if self.added else f"- {self.removed!r}"

    def order(self) -> tuple[Any, ...]:
        """Where the record stands in every report: by check (as check records are ordered, samples
        without an id by their index), then metric, judge and class in the table's order."""
        index = self.sample_index if not self.sample_id and self.sample_index is not None else -1
        return (
            self.test_id,
            self.sample_id or "",
            index,
            self.metric_label,
            self.judge,
            list(MUTATION_CLASSES).index(self.mutation) if self.mutation in MUTATION_CLASSES else 99,
        )


def mutant_order(records: Iterable[MutantRecord]) -> list[MutantRecord]:
    """The records in report order, whatever order the processes that judged them sent them in."""
    return sorted(records, key=lambda record: record.order())


def kept_sentence(sentence: str) -> str:
    return cut_text(sentence, SENTENCE_CHARS)


def to_json_rows(records: Iterable[MutantRecord]) -> list[dict[str, Any]]:
    """The records as the results file and a pytest-xdist worker write them (latency left out: it is
    time, and two runs over the same inputs and cache write the same rows)."""
    return [record.model_dump(mode="json", exclude={"calls": {"latency_s"}}) for record in records]


def read_rows(rows: Any, path: Path | str) -> list[MutantRecord]:
    """The mutant records of a results file (its ``mutants`` list; none when it has none); a row that
    cannot be read is an error naming the file and the row, never left out."""
    if rows is None:
        return []
    if not isinstance(rows, list):
        raise InputError(
            f"results file {path}: 'mutants' is not a list of mutants; write it again with --rag-report"
        )
    records = []
    for number, row in enumerate(rows, start=1):
        try:
            record = MutantRecord.model_validate(row)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the row"
            raise InputError(
                f"mutant {number} of results file {path} is malformed: {where!r}: {first['msg']}; write it "
                "again with --rag-report"
            ) from None
        if record.outcome not in OUTCOMES or record.mutation not in MUTATION_CLASSES:
            raise InputError(
                f"mutant {number} of results file {path} has outcome {record.outcome!r} of class "
                f"{record.mutation!r}; a newer pytest-rag wrote it? (outcomes: {', '.join(OUTCOMES)}; "
                f"classes: {', '.join(MUTATION_CLASSES)})"
            )
        records.append(record)
    return records
