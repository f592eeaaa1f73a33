"""Progress of a long batch evaluation (``rag_judge.evaluate``/``assert_rag``) on one terminal line.

A batch of hundreds of judgments can run for minutes inside one test; without a sign of life the
run looks hung. While a batch runs, one line shows judged/total, how many came from the cache, how
many were live or offline judge calls, errors, and the rate; it is rewritten in place and ends as
one final line. Nothing is printed unless pytest writes to a terminal (a CI log gets no scrolling
progress) and nothing under ``-q``, under a pytest-xdist worker, or for batches that finish within
:data:`SHOW_AFTER_S`. Output goes through pytest's terminal reporter with output capturing briefly
suspended, as pytest's own live logging does.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

#: A batch that finishes sooner than this prints nothing at all.
SHOW_AFTER_S = 0.5
#: The line is redrawn at most this often.
REDRAW_EVERY_S = 0.1


class ProgressLine(Protocol):
    """Where progress is drawn: one line that is rewritten in place, then left as it is."""

    def show(self, text: str) -> None: ...

    def finish(self, text: str) -> None: ...


class TerminalLine:
    """A rewritable line on pytest's terminal reporter, drawn with output capturing suspended."""

    def __init__(self, reporter: Any, capture: Any) -> None:
        self._reporter = reporter
        self._capture = capture
        self._started = False

    @contextlib.contextmanager
    def _uncaptured(self) -> Iterator[None]:
        if self._capture is None:
            yield
            return
        with self._capture.global_and_fixture_disabled():
            yield

    def _start(self) -> None:
        # pytest's line for the current test file ("tests/test_x.py ..") stays as it is: the progress
        # gets a line of its own below it.
        writer = getattr(self._reporter, "_tw", None)
        if getattr(writer, "width_of_current_line", 1):
            self._reporter.write("\n")
        self._started = True

    def show(self, text: str) -> None:
        with self._uncaptured():
            if not self._started:
                self._start()
            self._reporter.rewrite(text, erase=True)
            self._reporter.flush()

    def finish(self, text: str) -> None:
        self.show(text)
        current = getattr(self._reporter, "currentfspath", None)
        with self._uncaptured():
            if isinstance(current, os.PathLike):
                # Default verbosity: pytest writes this test's letter next, on the current line;
                # give it a fresh line that starts with the file's name as pytest's own lines do.
                start = getattr(self._reporter, "startpath", None)
                try:
                    name = (
                        os.path.relpath(os.fspath(current), start)
                        if start is not None
                        else os.fspath(current)
                    )
                except ValueError:
                    name = os.fspath(current)
                self._reporter.write(f"\n{name} ")
            elif hasattr(self._reporter, "currentfspath"):
                # Verbose: pytest starts a new line with the test's name before its result.
                self._reporter.currentfspath = None
            self._reporter.flush()


class BatchProgress:
    """Counts finished jobs of one batch and draws them on a :class:`ProgressLine`; thread safe
    (live judgments finish on pytest-rag's event-loop thread)."""

    def __init__(
        self,
        line: ProgressLine | None,
        total: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        show_after_s: float | None = None,
        redraw_every_s: float | None = None,
    ) -> None:
        self.line = line
        self.total = total
        self.done = 0
        self.cached = 0
        self.live = 0
        self.offline = 0
        self.errors = 0
        self._clock = clock
        self._start = clock()
        self._show_after_s = SHOW_AFTER_S if show_after_s is None else show_after_s
        self._redraw_every_s = REDRAW_EVERY_S if redraw_every_s is None else redraw_every_s
        self._drawn_at: float | None = None
        self._closed = False
        self._lock = threading.Lock()

    def text(self) -> str:
        elapsed = self._clock() - self._start
        rate = f"{self.done / elapsed:.1f}/s" if elapsed > 0 else "-"
        parts = [f"{self.cached} cached", f"{self.live} live"]
        if self.offline:
            parts.append(f"{self.offline} offline")
        if self.errors:
            parts.append(f"{self.errors} error(s)")
        return f"pytest-rag: judged {self.done}/{self.total} ({', '.join(parts)}) · {rate}"

    def finished(self, outcome: Any) -> None:
        """Count one finished job: a result (its calls say cached, live or offline) or an error."""
        with self._lock:
            self.done += 1
            calls = getattr(outcome, "calls", None)
            if calls is None:
                self.errors += 1
            elif calls.live:
                self.live += 1
            elif calls.offline:
                self.offline += 1
            else:
                self.cached += 1
            if self.line is None or self._closed:
                return
            now = self._clock()
            if now - self._start < self._show_after_s:
                return
            if self._drawn_at is not None and now - self._drawn_at < self._redraw_every_s:
                return
            self._drawn_at = now
            self.line.show(self.text())

    def close(self) -> None:
        """Leave the final counts on the line, if progress was shown at all."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.line is not None and self._drawn_at is not None:
                self.line.finish(self.text())


def batch_progress(config: Any, total: int) -> BatchProgress:
    """Progress for a batch of ``total`` jobs, drawn only where a person watches a terminal."""
    return BatchProgress(_terminal_line(config) if total > 1 else None, total)


def _terminal_line(config: Any) -> TerminalLine | None:
    if hasattr(config, "workerinput"):
        return None
    try:
        if config.get_verbosity() < 0:
            return None
        manager = config.pluginmanager
    except AttributeError:
        return None
    reporter = manager.get_plugin("terminalreporter")
    if reporter is None:
        return None
    isatty = getattr(reporter, "isatty", False)  # a callable bool in pytest
    if not (isatty() if callable(isatty) else isatty):
        return None
    return TerminalLine(reporter, manager.get_plugin("capturemanager"))
