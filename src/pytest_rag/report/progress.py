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

    def __init__(self, reporter: Any, capture: Any, nodeid: str) -> None:
        self._reporter = reporter
        self._capture = capture
        self._nodeid = nodeid
        self._started = False

    @contextlib.contextmanager
    def _uncaptured(self) -> Iterator[None]:
        if self._capture is None:
            yield
            return
        with self._capture.global_and_fixture_disabled():
            yield

    def show(self, text: str) -> None:
        with self._uncaptured():
            if not self._started:
                # pytest's line for the current test ("tests/test_x.py .." or the verbose test name)
                # stays as it is: the progress gets a line of its own below it.
                self._reporter.ensure_newline()
                self._started = True
            self._reporter.rewrite(text, erase=True)
            self._reporter.flush()

    def finish(self, text: str) -> None:
        """Leave the final counts, then give pytest a fresh line: at default verbosity pytest writes
        the test's letter where the line stands, so the line starts with the file's name as pytest's
        own lines do; verbose pytest repeats the test's name by itself."""
        self.show(text)
        if self._reporter.verbosity <= 0:
            with self._uncaptured():
                self._reporter.write_fspath_result(self._nodeid, "")
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
        self.batched = 0
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
        if self.batched:
            parts.append(f"{self.batched} from batches")
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
            elif calls.batched:
                self.batched += 1
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

    def show(self, text: str) -> None:
        """Show ``text`` for now (what the batch waits for, e.g. a provider's batch); :meth:`close`
        leaves the final counts in its place."""
        with self._lock:
            if self.line is None or self._closed:
                return
            self._drawn_at = self._clock()
            self.line.show(text)

    def close(self) -> None:
        """Leave the final counts on the line, if progress was shown at all."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.line is not None and self._drawn_at is not None:
                self.line.finish(self.text())


def batch_progress(config: Any, total: int, nodeid: str) -> BatchProgress:
    """Progress for a batch of ``total`` jobs of test ``nodeid``, drawn only where a person watches
    a terminal."""
    return BatchProgress(_terminal_line(config, nodeid) if total > 1 else None, total)


def verbosity(config: Any) -> int:
    """pytest's verbosity (``-q`` is negative). ``Config.get_verbosity`` is pytest 8+; pytest 7.4, the
    oldest we support, has only the option."""
    get = getattr(config, "get_verbosity", None)
    return int(get() if get is not None else config.getoption("verbose") or 0)


def _terminal_line(config: Any, nodeid: str) -> TerminalLine | None:
    if hasattr(config, "workerinput"):
        return None
    try:
        if verbosity(config) < 0:
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
    return TerminalLine(reporter, manager.get_plugin("capturemanager"), nodeid)
