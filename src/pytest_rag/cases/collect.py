"""Case files as pytest collects them: a file collector, and one test item per case.

Each case becomes a :class:`CaseItem`, a ``pytest.Function`` whose function is made for the case
and asks pytest for the fixtures it needs (``rag_judge``, ``rag_app`` unless the case is a recorded
conversation, ``rag_snapshot`` when its scores are snapshotted). Being a real ``Function``, the item
gets fixtures from the user's ``conftest.py`` files, ``usefixtures`` and autouse fixtures, works with
``-k`` (its name is the case id), ``-m`` (its tags are markers), pytest-xdist and test splitting, and
its checks are recorded under its node id like any test's. Its location is the case's file and
line, in the report's header and in its failure.

Tags are registered as markers when their file is collected, so ``--strict-markers`` accepts them;
``rag_case``, ``generated`` and ``unreviewed`` are registered at start-up.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..check_keys import parse_metric_label
from ..errors import ConfigError, RagError
from .files import CaseFileError, read_cases_and_problems
from .model import Case
from .run import needs_app

if TYPE_CHECKING:
    from ..run.session import RagSession

TAG_MARKER = "a tag of pytest-rag cases"


class CaseFile(pytest.File):
    """A case file: its cases, read and checked when it is collected.

    The plugin hands it ``session_of``, the way to the run's session (built on first use), so that
    cases/ does not import back the plugin that imports it."""

    def __init__(self, *, session_of: Callable[[pytest.Config], RagSession], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session_of = session_of

    def collect(self) -> Iterator[CaseItem]:
        session = self.session_of(self.config)
        cases, problems = read_cases_and_problems(
            self.path, Path(os.path.relpath(self.path, self.config.rootpath))
        )
        problems += _metric_problems(session, cases)
        if problems:
            raise CaseFileError.of_all(sorted(problems, key=lambda problem: problem.line or 0))
        _register_tags(self.config, cases)
        snapshot_default = session.settings.cases.snapshot
        for case in cases:
            snapshot = case.snapshot if case.snapshot is not None else snapshot_default
            yield CaseItem.from_parent(
                self, name=case.id, callobj=case_function(case, snapshot=snapshot), case=case
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, RagError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class CaseItem(pytest.Function):
    """One case as a test (see the module docstring)."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        for name in ("rag_case", *case.marker_names):
            self.add_marker(name)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, max(self.case.line - 1, 0), f"case {self.case.id}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """A failed check or a pytest-rag error reads as its message under the case's location; an
        exception of the app keeps its traceback (that is where the bug is)."""
        from .run import CaseFailure

        if isinstance(excinfo.value, CaseFailure) and not self.config.getoption("fulltrace", False):
            return str(excinfo.value)
        if isinstance(excinfo.value, RagError) and not self.config.getoption("fulltrace", False):
            return (
                f"{self.case.where}: case {self.case.id!r}: {type(excinfo.value).__name__}: {excinfo.value}"
            )
        return super().repr_failure(excinfo)


def case_function(case: Case, *, snapshot: bool) -> Callable[..., None]:
    """The test function of ``case``: its signature names the fixtures the case needs."""
    fixtures = [
        "rag_judge",
        *(["rag_app"] if needs_app(case) else []),
        *(["rag_snapshot"] if snapshot else []),
    ]

    def run_case(**given: Any) -> None:
        __tracebackhide__ = True
        given["rag_judge"].assert_case(case, given.get("rag_app"), snapshot=given.get("rag_snapshot"))

    run_case.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in fixtures]
    )
    run_case.__doc__ = f"Case {case.id!r} of {case.where}."
    return run_case


def _metric_problems(session: RagSession, cases: list[Case]) -> list[CaseFileError]:
    """Unknown metric names are errors of the file, at the case and field that name them."""
    problems = []
    for case in cases:
        for field, labels in (("metrics", case.metrics or []), ("thresholds", list(case.thresholds))):
            for label in labels:
                try:
                    session.metric_class(*parse_metric_label(label))
                except ConfigError as exc:
                    problems.append(CaseFileError(case.path or "", case.line, field, str(exc)))
    return problems


def _register_tags(config: pytest.Config, cases: list[Case]) -> None:
    known = {str(line).split(":", 1)[0].split("(", 1)[0].strip() for line in config.getini("markers")}
    for case in cases:
        for tag in case.tags:
            if tag not in known:
                config.addinivalue_line("markers", f"{tag}: {TAG_MARKER}")
                known.add(tag)
