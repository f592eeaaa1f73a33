"""How a failed check reads in pytest's output: the user's line and a message that says what to do.

A pytest-rag error carries everything a person needs in its message (the metric, the judge, the raw
reply, the option that helps). The frames of the engine, the event loop and ``concurrent.futures``
under the user's call only push that message off the screen: a replay miss used to be an 81-line
traceback. So the traceback of a :class:`~pytest_rag.errors.RagError` stops at the last frame before
pytest-rag was entered (``--fulltrace`` keeps it whole, for bug reports).

A judge that cannot work at all fails every check of it; after the first, which explains why, each
failure is one line that points at it, so 30 tests without an API key do not print 30 explanations.
Replay misses of one reason (an empty store, another model) are told the same way.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ..errors import CacheMissError, JudgeUnavailableError, RagError

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _inside_package(entry: Any) -> bool:
    return str(entry.path).startswith(_PACKAGE_DIR)


def stop_at_user_code(excinfo: pytest.ExceptionInfo[BaseException], test_path: Path) -> None:
    """Cut the traceback of a pytest-rag error where the user's code called into pytest-rag.

    The user's code starts at the first frame of the test's own file (``test_path``): hooks of ours
    that pytest runs around the test come before it and are not where the error was made. Nothing is
    cut when the error never passed through the test's file (a fixture of ours failed), or when it is
    not ours: a user's own exception keeps every frame.
    """
    if not excinfo.errisinstance(RagError):
        return
    entries = excinfo.traceback
    start = next((i for i, entry in enumerate(entries) if Path(str(entry.path)) == test_path), None)
    if start is None:
        return
    first_ours = next((i for i in range(start + 1, len(entries)) if _inside_package(entries[i])), None)
    if first_ours is not None:
        # pytest rebuilds tracebacks from the raw frame chain (Traceback.cut), so the chain itself is
        # cut: the user's frame becomes the last one (tb_next is writable since Python 3.7)
        entries[first_ours - 1]._rawentry.tb_next = None
        excinfo.traceback = entries[:first_ours]


def one_line_repeat(report: pytest.TestReport, excinfo: pytest.ExceptionInfo[BaseException] | None) -> None:
    """A later check of a judge already found unusable, or a later replay miss of a reason already
    explained: replace the failure with its one line."""
    if excinfo is None or not excinfo.errisinstance((JudgeUnavailableError, CacheMissError)):
        return
    error = excinfo.value
    assert isinstance(error, (JudgeUnavailableError, CacheMissError))
    if error.refers_to is not None:
        report.longrepr = f"{type(error).__name__}: {error}"
