"""Shared fixtures: a fake OpenAI/Anthropic server on 127.0.0.1 and a clean judge environment.

Judges are exercised through the real ``openai`` and ``anthropic`` SDKs pointed at
:class:`~fake_llm.FakeLLMServer`; nothing here mocks an SDK object. Plugin runs go through
``pytester``: in-process runs inherit ``os.environ`` (so the dummy keys set here reach them), and the
fake server keeps running in this process while they do.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

# pytester's in-process runs drop every module first imported during the run; numpy's C core cannot
# be imported twice in one process, and an SDK imported afresh gets new exception classes that the
# copy already held by earlier code no longer catches (seen as a raw ReadTimeout escaping the openai
# SDK in later tests). So the modules a judged run loads are imported here, up front.
import anthropic
import diskcache  # noqa: F401
import openai
import pytest

import pytest_rag.engine.batch.cli
import pytest_rag.engine.batch.rounds
import pytest_rag.engine.batch.run
import pytest_rag.engine.embeddings
import pytest_rag.engine.judgment
import pytest_rag.judges.anthropic.batch
import pytest_rag.judges.anthropic.messages
import pytest_rag.judges.local.scorer
import pytest_rag.judges.openai.batch
import pytest_rag.judges.openai.chat
import pytest_rag.report.summary
import pytest_rag.stats
from fake_llm import FakeLLMServer, RecordedRequest, Reply, schema_responder
from fake_llm.replies import JsonReply
from pytest_rag.judges.local.scorer import LocalScorer
from pytest_rag.metrics.catalog import builtin_metrics

# batch_support is both imported by the batch tests and loaded as their plugin (its fixtures): its
# asserts are rewritten on the first import, so loading it as a plugin finds nothing to warn about.
pytest.register_assert_rewrite("batch_support")

# Named here so that no linter fix drops them as unused: loading them is the point.
PRELOADED = (
    pytest_rag.judges.anthropic.batch,  # the batch machinery and the SDK types it parses replies with
    pytest_rag.engine.batch.cli,
    pytest_rag.judges.openai.batch,
    pytest_rag.engine.batch.rounds,
    pytest_rag.engine.batch.run,
    anthropic.types.Message,
    openai.types.CreateEmbeddingResponse,
    openai.types.chat.ChatCompletion,
    pytest_rag.engine.embeddings,
    pytest_rag.engine.judgment,
    pytest_rag.judges.anthropic.messages,
    pytest_rag.judges.openai.chat,
    pytest_rag.judges.local.scorer,
    pytest_rag.report.summary,
    pytest_rag.stats,
    builtin_metrics(),  # the metric modules, which the catalog itself loads only when first asked
)

# Building a client is what imports the SDKs' HTTP transport stack; do it once here for the same reason.
for _client in (
    openai.OpenAI(api_key="warm-up", base_url="http://127.0.0.1:9/v1"),
    anthropic.Anthropic(api_key="warm-up", base_url="http://127.0.0.1:9"),
):
    _client.close()

#: Distinctive dummy credentials, so a leak into a file or an output is found by a plain byte search.
OPENAI_KEY = "sk-test-DUMMYKEY-openai-7f3a9c"
ANTHROPIC_KEY = "sk-ant-test-DUMMYKEY-anthropic-41be2d"

#: The variables that would change which judge runs or where it points, cleared for every test.
JUDGE_ENV_VARS = (
    "PYTEST_RAG_JUDGE",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_API_KEY",
    "OLLAMA_HOST",
)

#: What every inner pytest run (pytester, in-process or not) gets as PYTEST_ADDOPTS: the project's
#: own pytest-asyncio setting, which inner runs in a temporary rootdir would otherwise lack (and warn
#: about, 60-odd times per run). Anything inherited from the caller's shell is replaced.
INNER_ADDOPTS = "-o asyncio_default_fixture_loop_scope=function"


@pytest.fixture(autouse=True)
def inner_runs_share_the_project_configuration(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS as it is set up: set ours after
    monkeypatch.setenv("PYTEST_ADDOPTS", INNER_ADDOPTS)


@pytest.fixture(scope="session")
def scorer() -> LocalScorer:
    """The offline judge's scorer, loaded once for every test that reads it directly (it holds no
    state a test changes)."""
    return LocalScorer.load()


@pytest.fixture
def judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No inherited judge settings; dummy API keys for both providers."""
    for name in JUDGE_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)


class FixedScoreResponder:
    """Answers unscripted requests with a schema-valid verdict whose ``score`` is ``score``.

    A mid-scale default (rather than the schema responder's lowest value) keeps tests that do not
    script replies away from both ends of the scale, so a pass or fail there is a deliberate choice.
    """

    def __init__(self, score: int = 3) -> None:
        self.score = score

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = schema_responder(request)
        if isinstance(reply, JsonReply) and isinstance(reply.value, dict) and "score" in reply.value:
            return Reply.json({**reply.value, "score": self.score})
        return reply


@pytest.fixture
def fake_llm(judge_env: None) -> Iterator[FakeLLMServer]:
    """A running fake server; unscripted requests get a valid verdict scoring 3."""
    with FakeLLMServer(FixedScoreResponder(3)) as server:
        yield server
        assert not server.errors, f"the fake server reported problems: {server.errors}"


def verdict(score: int, reasoning: str = "judged", **lists: list[str]) -> Reply:
    """A faithfulness-shaped verdict reply (other single-judgment metrics take other list names)."""
    body: dict[str, Any] = {"reasoning": reasoning, "unsupported_statements": [], "score": score}
    body.update(lists)
    return Reply.json(body)


def relevancy_verdict(score: int, reasoning: str = "on topic") -> Reply:
    return Reply.json({"reasoning": reasoning, "off_topic_or_missing": [], "score": score})


def rag_args(
    server: FakeLLMServer,
    cache_dir: Path,
    *extra: str,
    judge: str = "openai:fake-gpt",
) -> list[str]:
    """Command-line options that point a pytester run at the fake server (few attempts, bounded waits).

    Each judge of the spec gets the fake server's address for its wire format (``PROVIDER:MODEL@URL``).
    """
    urls = {"openai": server.openai_base_url, "ollama": server.openai_base_url}
    urls["anthropic"] = server.anthropic_base_url
    specs = [
        f"{spec}@{urls[spec.split(':')[0]]}" if spec.split(":")[0] in urls else spec
        for spec in judge.split(",")
    ]
    return [
        "-p",
        "no:cacheprovider",
        f"--rag-judge={','.join(specs)}",
        f"--rag-cache-dir={cache_dir}",
        # Generous: a fake reply is instant, but on a loaded CI machine a subprocess under -n 2 can stall
        # for seconds (first SDK import); tests of timeouts and deadlines pass their own, shorter ones.
        "--rag-timeout=30",
        "--rag-deadline=60",
        *extra,
    ]


FAITHFUL_TEST = """
def test_grounded(rag_judge):
    rag_judge.assert_faithful(
        "Refunds take five business days.",
        ["Refunds are processed within five business days."],
    )
"""
