"""Progress of batch evaluations: what the line says, when it is drawn, and where it is not."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_rag.errors import JudgeError
from pytest_rag.report.progress import BatchProgress, TerminalLine, batch_progress
from pytest_rag.results import CallTally


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class RecordingLine:
    def __init__(self) -> None:
        self.shown: list[str] = []
        self.finished: list[str] = []

    def show(self, text: str) -> None:
        self.shown.append(text)

    def finish(self, text: str) -> None:
        self.finished.append(text)


def result(**calls: Any) -> Any:
    return SimpleNamespace(calls=CallTally(**calls))


def test_counts_cached_live_offline_and_errors_with_the_rate() -> None:
    clock, line = FakeClock(), RecordingLine()
    progress = BatchProgress(line, 5, clock=clock, show_after_s=0.5, redraw_every_s=0.1)
    for outcome in (result(cached=1), result(live=2, cached=1), result(offline=1), JudgeError("bad")):
        clock.now += 1.0
        progress.finished(outcome)
    assert line.shown[-1] == "pytest-rag: judged 4/5 (1 cached, 1 live, 1 offline, 1 error(s)) · 1.0/s"
    progress.close()
    assert line.finished == ["pytest-rag: judged 4/5 (1 cached, 1 live, 1 offline, 1 error(s)) · 1.0/s"]


def test_a_quick_batch_prints_nothing_at_all() -> None:
    clock, line = FakeClock(), RecordingLine()
    progress = BatchProgress(line, 3, clock=clock, show_after_s=0.5)
    for _ in range(3):
        clock.now += 0.1
        progress.finished(result(cached=1))
    progress.close()
    assert line.shown == [] and line.finished == []


def test_redraws_are_throttled_and_close_is_idempotent() -> None:
    clock, line = FakeClock(), RecordingLine()
    progress = BatchProgress(line, 100, clock=clock, show_after_s=0.0, redraw_every_s=1.0)
    for _ in range(100):
        clock.now += 0.05
        progress.finished(result(live=1))
    assert 4 <= len(line.shown) <= 6  # five seconds of work, one redraw a second
    progress.close()
    progress.close()
    assert len(line.finished) == 1 and line.finished[0].startswith(
        "pytest-rag: judged 100/100 (0 cached, 100 live)"
    )


class FakeReporter:
    """The part of pytest's TerminalReporter that a progress line uses."""

    def __init__(self, current: object, verbosity: int) -> None:
        self.currentfspath = current
        self.verbosity = verbosity
        self.out: list[str] = []

    def ensure_newline(self) -> None:  # pytest's: end its own line if it has one going
        if self.currentfspath:
            self.out.append("\n")
            self.currentfspath = None

    def write_fspath_result(self, nodeid: str, res: str) -> None:  # pytest's, at default verbosity
        path = nodeid.split("::")[0]
        if self.currentfspath != path:
            self.out.append(f"\n{path} ")
            self.currentfspath = path
        self.out.append(res)

    def rewrite(self, text: str, erase: bool = False) -> None:
        self.out.append("\r" + text)

    def flush(self) -> None:
        pass


def test_terminal_line_keeps_pytests_file_line_and_gives_the_next_result_a_fresh_one() -> None:
    reporter = FakeReporter("tests/test_bot.py", verbosity=0)
    line = TerminalLine(reporter, capture=None, nodeid="tests/test_bot.py::test_batch")
    line.show("judged 1/2")
    line.finish("judged 2/2")
    assert reporter.out == ["\n", "\rjudged 1/2", "\rjudged 2/2", "\ntests/test_bot.py ", ""]


def test_terminal_line_in_verbose_mode_lets_pytest_repeat_the_test_name() -> None:
    reporter = FakeReporter("tests/test_bot.py::test_batch ", verbosity=1)
    line = TerminalLine(reporter, capture=None, nodeid="tests/test_bot.py::test_batch")
    line.show("judged 1/2")
    line.finish("judged 2/2")
    assert reporter.out == ["\n", "\rjudged 1/2", "\rjudged 2/2"]
    assert reporter.currentfspath is None  # pytest writes the test's name again before its result


def _config(*, tty: bool, verbosity: int = 0, worker: bool = False) -> Any:
    reporter = SimpleNamespace(isatty=tty)
    plugins = {"terminalreporter": reporter, "capturemanager": None}
    config = SimpleNamespace(
        get_verbosity=lambda: verbosity,
        pluginmanager=SimpleNamespace(get_plugin=plugins.get),
    )
    if worker:
        config.workerinput = {}
    return config


@pytest.mark.parametrize(
    ("tty", "verbosity", "worker", "draws"),
    [(True, 0, False, True), (False, 0, False, False), (True, -1, False, False), (True, 0, True, False)],
)
def test_progress_is_drawn_only_on_a_terminal_without_q_outside_workers(
    tty: bool, verbosity: int, worker: bool, draws: bool
) -> None:
    progress = batch_progress(
        _config(tty=tty, verbosity=verbosity, worker=worker), total=10, nodeid="t.py::t"
    )
    assert (progress.line is not None) == draws


FAKE_TTY = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    config.pluginmanager.get_plugin("terminalreporter").isatty = lambda: True
"""


@pytest.mark.parametrize(
    ("tty", "quiet", "shown"), [(True, False, True), (False, False, False), (True, True, False)]
)
def test_a_run_shows_progress_only_on_a_terminal_and_never_with_q(
    pytester: pytest.Pytester,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tty: bool,
    quiet: bool,
    shown: bool,
) -> None:
    monkeypatch.setattr("pytest_rag.report.progress.SHOW_AFTER_S", 0.0)
    if tty:
        pytester.makeconftest(FAKE_TTY)
    pytester.makepyfile(
        """
        def test_batch(rag_judge):
            samples = [
                {"question": "How long do refunds take?", "answer": f"Refunds take {i} days.",
                 "contexts": [f"Refunds take {i} days."]}
                for i in range(30)
            ]
            assert len(rag_judge.evaluate(samples, ["faithfulness"])) == 30
        """
    )
    args = ["--rag-judge=local", f"--rag-cache-dir={tmp_path / 'cache'}", *(["-q"] if quiet else [])]
    result = pytester.runpytest(*args)
    assert result.ret == 0
    output = result.stdout.str()
    assert ("pytest-rag: judged 30/30 (0 cached, 0 live, 30 offline)" in output) == shown
    # (pytester splits the output at the carriage returns that rewrite the line in place)
    redraws = [line for line in result.outlines if "judged" in line]
    assert all(line.startswith("pytest-rag: judged ") for line in redraws)
    assert redraws[-1].startswith("pytest-rag: judged 30/30") if shown else redraws == []
