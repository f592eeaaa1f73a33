"""Regression tests for bugs found in a review of the core: each test failed before its fix.

They drive the session, engine and config through small in-process doubles (a stand-in pytest config
and hook, scripted judges) so each one isolates the path that was wrong.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_rag import builtin
from pytest_rag.errors import ConfigError
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.session import RagSession


class FakeHook:
    """The three pytest-rag hooks, answered by the built-in providers and metrics."""

    def __init__(self) -> None:
        self.recorded: list[Any] = []

    def pytest_rag_judge_providers(self) -> list[Mapping[str, Any]]:
        return [builtin.pytest_rag_judge_providers()]

    def pytest_rag_metrics(self) -> list[Iterable[Any]]:
        return [builtin.pytest_rag_metrics()]

    def pytest_rag_check_recorded(self, record: Any) -> None:
        self.recorded.append(record)


class FakeConfig:
    """Just enough of ``pytest.Config`` for :func:`~pytest_rag.config.read_settings`."""

    def __init__(self, root: Path, options: Mapping[str, Any], ini: Mapping[str, Any]) -> None:
        self.rootpath = root
        self._options = dict(options)
        self._ini = dict(ini)
        self.hook = FakeHook()

    def getoption(self, name: str) -> Any:
        return self._options.get(name)

    def getini(self, name: str) -> Any:
        return self._ini.get(name, [])


def session(
    tmp_path: Path, options: Mapping[str, Any] | None = None, ini: Mapping[str, Any] | None = None
) -> RagSession:
    return RagSession(FakeConfig(tmp_path, {"rag_judge": "local", **(options or {})}, ini or {}))


SAMPLE = Sample(
    question="How long do refunds take?",
    answer="Refunds take 30 days.",
    contexts=(Chunk("Refunds are processed within 30 days of the return."),),
    reference="Thirty days.",
)


# -- thresholds from the ini file and modes with another scale ---------------------------------------


def test_ini_threshold_of_the_default_mode_does_not_apply_to_a_mode_on_another_scale(tmp_path: Path) -> None:
    """rag_threshold_faithfulness = 4 (the documented example, on the 1-5 scale) made every check of
    faithfulness[claims] (0-1 scale) fail: a perfect 1.0 was compared with 4."""
    rag = session(tmp_path, ini={"rag_threshold_faithfulness": "4"})
    single = rag.score("t", "faithfulness", SAMPLE)
    claims = rag.score("t", "faithfulness", SAMPLE, mode="claims")
    assert single.threshold == 4.0
    assert claims.threshold == 0.8  # the mode's own default
    assert claims.score == 1.0 and claims.passed is True


def test_ini_threshold_can_name_a_mode_and_an_explicit_zero_still_wins(tmp_path: Path) -> None:
    rag = session(tmp_path, ini={"rag_thresholds": ["faithfulness[claims] = 0.9", "faithfulness = 5"]})
    assert rag.score("t", "faithfulness", SAMPLE, mode="claims").threshold == 0.9
    assert rag.score("t", "faithfulness", SAMPLE).threshold == 5.0
    assert rag.score("t", "faithfulness", SAMPLE, mode="claims", threshold=0).threshold == 0.0


def test_ini_threshold_still_applies_to_a_mode_on_the_same_scale(tmp_path: Path) -> None:
    rag = session(tmp_path, ini={"rag_thresholds": ["consistency = 0.5"]})
    result = rag.score("t", "consistency", SAMPLE, mode="lexical", options={"answers": ["a b c", "a b d"]})
    assert result.threshold == 0.5 and result.passed is True


# -- numbers in options: NaN is not a number anyone means -----------------------------------------------


@pytest.mark.parametrize(
    ("options", "ini", "named"),
    [
        ({}, {"rag_threshold_faithfulness": "nan"}, "rag_threshold_faithfulness"),
        ({}, {"rag_thresholds": ["answer_relevancy = NaN"]}, "rag_thresholds answer_relevancy"),
        ({"rag_timeout": float("nan")}, {}, "--rag-timeout"),
        ({}, {"rag_budget": "nan"}, "rag_budget"),
        ({"rag_fail_under": ["faithfulness=nan"]}, {}, "--rag-fail-under faithfulness"),
    ],
)
def test_nan_in_a_numeric_option_is_a_config_error(
    tmp_path: Path, options: dict[str, Any], ini: dict[str, Any], named: str
) -> None:
    """NaN passed every 'at least' check (NaN < x is False): a NaN threshold failed every check
    silently, a NaN timeout or budget broke the engine later."""
    with pytest.raises(ConfigError, match=named) as caught:
        session(tmp_path, options, ini)
    assert "nan" in str(caught.value).lower()


# -- the session's lazily built parts under several threads ---------------------------------------------


def test_threads_that_start_scoring_together_share_one_engine_and_one_judge_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two engines meant two budgets, two rate limiters and two sets of counters."""
    import pytest_rag.engine as engine_module

    original = engine_module.JudgmentEngine.__init__
    entered = threading.Barrier(4, timeout=0.2)

    def slow_init(self: Any, *args: Any, **kwargs: Any) -> None:
        # hold every thread that got this far until all have: the race is then certain
        with contextlib.suppress(threading.BrokenBarrierError):
            entered.wait()
        original(self, *args, **kwargs)

    monkeypatch.setattr(engine_module.JudgmentEngine, "__init__", slow_init)
    rag = session(tmp_path)
    engines: list[Any] = []
    judge_lists: list[Any] = []
    start = threading.Barrier(4)

    def worker() -> None:
        start.wait()
        judge_lists.append(rag.judges())
        engines.append(rag.engine)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(e) for e in engines}) == 1
    assert len({id(j) for j in judge_lists}) == 1
    assert math.isfinite(rag.engine.settings.deadline_s)
