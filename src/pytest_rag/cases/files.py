"""Reading and writing case files, keeping the line every case (and field) came from.

Three formats, chosen by the file name:

* ``*.rag.jsonl``: one case a line, as a JSON object; blank lines are skipped.
* ``*.rag.yaml`` / ``*.rag.yml``: a list of cases. YAML needs PyYAML, which pytest-rag does not
  depend on: ``pip install pytest-rag[yaml]``. A reader of "the YAML we need" was the other choice;
  it would accept a subset that users cannot see the edges of, and fail on the anchors, block
  scalars and quoting rules real files use. PyYAML is small, and a case file found without it is one
  error naming the extra.
* ``*.rag.csv``: a header row naming the fields, one case a row. Lists (``metrics``, ``tags``,
  ``expected_contexts``) are words separated by spaces or commas (or a JSON list), ``thresholds``
  are ``metric=value`` pairs (or a JSON object), and a conversation does not fit in a row.

Whatever is wrong with a file is one :class:`CaseFileError` naming the file, the line and the field
of each problem: every case is checked, so one run names them all (a line that is not JSON, YAML or
CSV at all stops the reading there).
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from ..errors import ConfigError
from .model import Case, ContextRef, Provenance, Turn


class CaseFileError(ConfigError):
    """A case file that cannot be read as cases: where (file, line, field) and what is wrong; the
    first problem, followed by the file's other ones (:meth:`of_all`), so one run names them all."""

    def __init__(self, path: Path | str, line: int | None, field: str | None, problem: str) -> None:
        self.path, self.line, self.field, self.problem = Path(path), line, field, problem
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {f'field {field!r}: ' if field else ''}{problem}")

    @classmethod
    def of_all(cls, problems: Sequence[CaseFileError]) -> CaseFileError:
        """One error for every problem found in a file, the first one's place first."""
        first = problems[0]
        if len(problems) == 1:
            return first
        error = cls(first.path, first.line, first.field, first.problem)
        error.args = ("\n".join([str(first), *(str(p) for p in problems[1:])]),)
        return error


YAML_EXTRA = "pip install 'pytest-rag[yaml]'"


def read_cases(path: Path, shown: Path | None = None) -> list[Case]:
    """Every case of the file, in file order, each knowing its line; ids must be unique in the file.
    Messages and cases name the file as ``shown`` (e.g. relative to the rootdir) when given."""
    cases, problems = read_cases_and_problems(path, shown)
    if problems:
        raise CaseFileError.of_all(problems)
    return cases


def read_cases_and_problems(path: Path, shown: Path | None = None) -> tuple[list[Case], list[CaseFileError]]:
    """The cases of the file that could be read, and the problems of the others (see
    :func:`read_cases`), for a caller that checks more and names every problem at once."""
    text = path.read_text(encoding="utf-8-sig")
    path = shown if shown is not None else path
    name = path.name
    if name.endswith(".jsonl"):
        rows = _jsonl_rows(path, text)
    elif name.endswith((".yaml", ".yml")):
        rows = _yaml_rows(path, text)
    elif name.endswith(".csv"):
        rows = _csv_rows(path, text)
    else:
        raise CaseFileError(path, None, None, "is not a case file (.rag.jsonl, .rag.yaml or .rag.csv)")
    cases: list[Case] = []
    problems: list[CaseFileError] = []
    first_line: dict[str, int] = {}
    for row, line, field_lines in rows:
        try:
            case = _validated(path, row, line, field_lines).located(path, line)
        except CaseFileError as problem:  # the next cases are read still: one run names every problem
            problems.append(problem)
            continue
        if case.id in first_line:
            problems.append(
                CaseFileError(
                    path, line, "id", f"{case.id!r} is also the id of the case on line {first_line[case.id]}"
                )
            )
            continue
        first_line[case.id] = line
        cases.append(case)
    return cases, problems


Row = tuple[Any, int, dict[str, int]]
"""A case as read (before validation), its line, and the lines of its fields where the format tells."""


#: How an unknown field's message names the model it is not a field of.
_FIELD_OF: dict[type[BaseModel], str] = {
    Case: "a case field",
    Turn: "a field of a turn",
    ContextRef: "a field of a passage",
    Provenance: "a field of 'generated'",
}


def _model_at(location: Sequence[str]) -> type[BaseModel]:
    """The model that holds the fields at ``location`` inside a case (``turns.1`` is a
    :class:`Turn`): an unknown field is told with that model's own fields, not the case's."""
    model: type[BaseModel] = Case
    for part in location:
        field = model.model_fields.get(part)
        if field is None:  # a list index, or a dict key
            continue
        inner = _model_in(field.annotation)
        if inner is None:
            break
        model = inner
    return model


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (``list[Turn] | None`` holds :class:`Turn`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for arg in get_args(annotation) if (m := _model_in(arg)) is not None), None)


def _validated(path: Path, row: Any, line: int, field_lines: dict[str, int]) -> Case:
    if not isinstance(row, dict):
        raise CaseFileError(path, line, None, f"a case must be a mapping of fields, got {type(row).__name__}")
    try:
        return Case.model_validate(row)
    except ValidationError as exc:
        error = exc.errors()[0]
        location = [str(part) for part in error["loc"]]
        field = ".".join(location) or None
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            model = _model_at(location[:-1])
            close = difflib.get_close_matches(location[-1], list(model.model_fields), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            message = (
                f"is not {_FIELD_OF.get(model, 'a field there')} ({hint}fields: "
                + ", ".join(model.model_fields)
                + ")"
            )
        elif error["type"] == "missing":
            message = "is required"
        elif error["type"] == "list_type":
            message = f'must be a list, got {type(error["input"]).__name__}; write e.g. ["first", "second"]'

        where = field_lines.get(location[0], line) if location else line
        raise CaseFileError(path, where, field, message) from None


def _jsonl_rows(path: Path, text: str) -> Iterator[Row]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            yield json.loads(raw), number, {}
        except json.JSONDecodeError as exc:
            raise CaseFileError(
                path, number, None, f"not valid JSON at column {exc.colno}: {exc.msg}"
            ) from None


def _yaml_rows(path: Path, text: str) -> Iterator[Row]:
    try:
        import yaml
    except ImportError:
        raise CaseFileError(
            path, None, None, f"reading YAML case files needs PyYAML, which is not installed: {YAML_EXTRA}"
        ) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise CaseFileError(path, line, None, f"not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return
    if not isinstance(data, list) or not isinstance(root, yaml.SequenceNode):
        raise CaseFileError(path, 1, None, "a YAML case file is a list of cases ('- id: ...' entries)")
    for node, row in zip(root.value, data, strict=True):
        lines = {}
        if isinstance(node, yaml.MappingNode):
            lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value}
        yield row, node.start_mark.line + 1, lines


#: Case fields that a CSV cell cannot hold.
_NOT_IN_CSV = ("turns", "generated")
_LIST_FIELDS = ("metrics", "tags", "expected_contexts")
_BOOL_FIELDS = ("answerable", "snapshot", "reviewed")
_SPLIT_RE = re.compile(r"[\s,]+")


def _csv_rows(path: Path, text: str) -> Iterator[Row]:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None:
        return
    names = [name.strip() for name in header]
    for name in names:
        if name in _NOT_IN_CSV:
            raise CaseFileError(
                path, 1, name, "does not fit in a CSV cell; write such cases in .rag.jsonl or .rag.yaml"
            )
    line = reader.line_num + 1
    for cells in reader:
        row_line, line = line, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(names):
            raise CaseFileError(
                path, row_line, None, f"the row has {len(cells)} cells but the header names {len(names)}"
            )
        row = {}
        for name, cell in zip(names, cells, strict=False):
            if cell.strip():
                row[name] = _cell(path, row_line, name, cell.strip())
        yield row, row_line, {}


def _cell(path: Path, line: int, name: str, cell: str) -> Any:
    if name in _LIST_FIELDS:
        return (
            _json(path, line, name, cell) if cell.startswith("[") else [w for w in _SPLIT_RE.split(cell) if w]
        )
    if name == "thresholds":
        if cell.startswith("{"):
            return _json(path, line, name, cell)
        pairs: dict[str, Any] = {}
        for pair in (w for w in _SPLIT_RE.split(cell) if w):
            label, _, value = pair.partition("=")
            try:
                pairs[label] = float(value)
            except ValueError:
                raise CaseFileError(path, line, name, f"{pair!r} is not METRIC=NUMBER") from None
        return pairs
    if name in _BOOL_FIELDS:
        lowered = cell.lower()
        if lowered not in ("true", "false", "yes", "no", "1", "0"):
            raise CaseFileError(path, line, name, f"{cell!r} is not true or false")
        return lowered in ("true", "yes", "1")
    return cell


def _json(path: Path, line: int, name: str, cell: str) -> Any:
    try:
        return json.loads(cell)
    except json.JSONDecodeError as exc:
        raise CaseFileError(path, line, name, f"not valid JSON: {exc.msg}") from None


def write_cases(path: Path, cases: Sequence[Case]) -> None:
    """Write ``cases`` as a JSONL or YAML case file (chosen by the name), fields in model order."""
    rows = [case.to_row() for case in cases]
    if path.name.endswith(".jsonl"):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    elif path.name.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise CaseFileError(path, None, None, f"writing YAML needs PyYAML: {YAML_EXTRA}") from None
        text = yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, width=100)
    else:
        raise CaseFileError(path, None, None, "cases are written as .rag.jsonl or .rag.yaml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
