"""The default (offline) judge opens no network connection, not even one it would swallow.

A pytester suite runs in a fresh interpreter whose conftest replaces ``socket.socket.connect``,
``connect_ex`` and ``socket.create_connection`` with versions that write the attempted address
to a log file and then raise. The suite scores faithfulness, answer relevancy and context recall
with the default judge. The test checks both that the suite passes and that the log stayed
empty: a connection attempt caught and ignored somewhere (a hub lookup, telemetry) would still
be found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

GUARD_CONFTEST = """
import socket

import pytest

ATTEMPTS = {log!r}


def _record(kind, address):
    with open(ATTEMPTS, "a", encoding="utf-8") as handle:
        handle.write(f"{{kind}} {{address!r}}\\n")
    raise OSError(f"network access blocked by the offline test: {{kind}} {{address!r}}")


def _connect(self, address):
    _record("connect", address)


def _connect_ex(self, address):
    _record("connect_ex", address)


def _create_connection(address, *args, **kwargs):
    _record("create_connection", address)


socket.socket.connect = _connect
socket.socket.connect_ex = _connect_ex
socket.create_connection = _create_connection
"""

SUITE = """
import socket

import pytest

SAMPLES = [
    {
        "question": "When was the Eiffel Tower completed?",
        "answer": "The Eiffel Tower was completed in 1889.",
        "contexts": ["The Eiffel Tower in Paris was completed in 1889 for the World's Fair."],
        "reference": "It was completed in 1889.",
    },
    {
        "question": "What are bananas rich in?",
        "answer": "Bananas are rich in potassium.",
        "contexts": ["Bananas are a tropical fruit. They are rich in potassium and grow in clusters."],
        "reference": "Bananas are rich in potassium.",
    },
]


def test_guard_is_active():
    with pytest.raises(OSError, match="blocked"):
        socket.create_connection(("127.0.0.1", 9))
    with pytest.raises(OSError, match="blocked"):
        socket.socket().connect(("127.0.0.1", 9))


@pytest.mark.parametrize("sample", SAMPLES, ids=["eiffel", "bananas"])
def test_offline_metrics(rag_judge, sample):
    faithful = rag_judge.faithfulness(sample["answer"], sample["contexts"])
    relevant = rag_judge.answer_relevancy(sample["answer"], sample["question"])
    recall = rag_judge.context_recall(sample["answer"], sample["reference"], contexts=sample["contexts"])
    for result in (faithful, relevant, recall):
        assert result.judge == "local", result.judge
        assert result.calls.live == 0 and result.calls.offline >= 1
        assert 0.0 <= result.normalized <= 1.0
    assert faithful.score >= 4, faithful.reasons
"""


def test_default_judge_makes_no_connection(pytester: pytest.Pytester, tmp_path: Path) -> None:
    log = tmp_path / "socket_attempts.log"
    pytester.makeconftest(GUARD_CONFTEST.format(log=str(log)))
    pytester.makepyfile(test_offline_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    # The guard test counts two blocked attempts of its own; anything else came from pytest-rag.
    attempts = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    result.assert_outcomes(passed=3)
    assert attempts == ["create_connection ('127.0.0.1', 9)", "connect ('127.0.0.1', 9)"]
