"""A test case as data: what is asked, what is expected, and how it is judged.

A :class:`Case` holds either one ``question`` or the ``turns`` of a conversation. Everything else is
optional: the ``reference`` answer, the ``expected_contexts`` retrieval should find (ids, or texts
for an app that cuts its documents differently), ``answerable: false`` for a question the documents
do not answer (the app should decline), ``answer_kind`` (``short``, ``summary`` or
``conversational``: what the app's answers are, for the offline judge's faithfulness pass mark;
else it reads the kind from each answer), the case's own ``metrics`` and ``thresholds`` (else the
suite's defaults from the ini file), ``tags`` (pytest markers), ``snapshot`` and, for a generated
case, its provenance (``generated``) and whether a person ``reviewed`` it.

Field names follow :class:`~pytest_rag.inputs.Sample` (question, answer, contexts, reference), so a
case reads like the samples of ``rag_judge.evaluate``. Unknown fields are errors: a typo such as
``refrence`` must not silently drop the reference.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from ..check_keys import parse_metric_label
from ..inputs import check_answer_kind, read_threshold

_TAG_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _text(value: Any, what: str) -> Any:
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"{what} is empty")
    return value


class ContextRef(BaseModel):
    """A passage, by id and/or text. Written as a plain string, it is an id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = None
    text: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"id": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _some(self) -> ContextRef:
        if not (self.id or "").strip() and not (self.text or "").strip():
            raise ValueError("a passage needs an 'id' or a 'text'")
        return self

    def as_option(self) -> dict[str, str]:
        """The form the ``passage_recall`` metric reads."""
        return {k: v for k, v in (("id", self.id), ("text", self.text)) if v}

    def as_context(self) -> dict[str, str]:
        """The form a given turn's contexts are judged in (a passage without text has none)."""
        return {"text": self.text or "", **({"id": self.id} if self.id else {})}


class Turn(BaseModel):
    """One exchange of a conversation: the user's message and, when the case fixes it, the
    assistant's answer with the contexts retrieved for it. A turn without ``assistant`` is asked
    of the app."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: str
    assistant: str | None = None
    contexts: list[ContextRef] | None = None
    reference: str | None = None

    @field_validator("user")
    @classmethod
    def _user(cls, value: str) -> str:
        return str(_text(value, "the user's message"))


class Provenance(BaseModel):
    """Where a generated case came from, so a person can review it: the generator (``offline`` or
    the judge spec), the kind of question, the documents, the seed and template, and how strongly the
    judge found the reference supported by its passages."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    by: str
    kind: str
    documents: list[str] = Field(default_factory=list)
    seed: int | None = None
    template: str | None = None
    support: float | None = None
    verified_by: str | None = None
    checks: list[str] = Field(default_factory=list)
    """The checks that kept the case, each with its finding and its judge ("answer relevancy: 5/5
    (local)"); a reference copied from its passage says so instead of a support score."""


class Case(BaseModel):
    """One test case (see the module docstring for the fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    question: str | None = None
    reference: str | None = None
    expected_contexts: list[ContextRef] = Field(default_factory=list)
    answerable: bool = True
    answer_kind: str | None = None
    metrics: list[str] | None = None
    thresholds: dict[str, float] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    turns: list[Turn] | None = None
    snapshot: bool | None = None
    generated: Provenance | None = None
    reviewed: bool | None = None

    _path: Path | None = PrivateAttr(default=None)
    _line: int = PrivateAttr(default=0)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        value = str(_text(value, "the id")).strip()
        if "::" in value or any(ch in value for ch in "[]\n\r\t"):
            raise ValueError(f"{value!r} cannot be a test id: leave out '::', brackets and line breaks")
        return value

    @field_validator("question", "reference")
    @classmethod
    def _texts(cls, value: str | None) -> str | None:
        return _text(value, "the text")  # type: ignore[no-any-return]

    @field_validator("answer_kind")
    @classmethod
    def _answer_kind(cls, value: str | None) -> str | None:
        return check_answer_kind(value, "the case")  # its InputError is a ValueError pydantic reports

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not value:
            raise ValueError(
                "the list is empty; name the case's metrics, or leave the field out for the suite's"
            )
        for label in value or ():
            parse_metric_label(label)
        return value

    @field_validator("thresholds", mode="before")
    @classmethod
    def _thresholds(cls, value: Any) -> Any:
        if isinstance(value, dict):
            for label, bar in value.items():
                parse_metric_label(str(label))
                read_threshold(bar, str(label), "its threshold", f'{{{{"{label}": {{}}}}}}')
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: list[str]) -> list[str]:
        for tag in value:
            if not _TAG_RE.fullmatch(tag):
                raise ValueError(f"tag {tag!r} cannot be a pytest marker: use letters, digits and _")
        return value

    @model_validator(mode="after")
    def _asked(self) -> Case:
        if (self.question is None) == (self.turns is None):
            raise ValueError("a case holds either a 'question' or 'turns' (a conversation), and not both")
        if self.turns is not None and not self.turns:
            raise ValueError("'turns' is empty: a conversation needs at least one turn")
        return self

    def located(self, path: Path, line: int) -> Case:
        """This case, knowing the file and 1-based line it was read from."""
        self._path, self._line = path, line
        return self

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def line(self) -> int:
        return self._line

    @property
    def where(self) -> str:
        """``file:line`` of the case, for messages (just the id when it was not read from a file)."""
        return f"{self._path}:{self._line}" if self._path is not None else f"case {self.id}"

    @property
    def marker_names(self) -> list[str]:
        """The pytest markers of the case's item: its tags, and ``generated`` and ``unreviewed``
        for a generated case that no one has marked reviewed."""
        names = list(self.tags)
        if self.generated is not None:
            names.append("generated")
            if not self.reviewed:
                names.append("unreviewed")
        return list(dict.fromkeys(names))

    def to_row(self) -> dict[str, Any]:
        """The case as a JSON-ready mapping without defaults, in field order (how files are written)."""
        return self.model_dump(mode="json", exclude_defaults=True, exclude_none=True)
