"""Helpers shared by the tests of the provider batch APIs (``--rag-batch``, ``evaluate(batch=True)``).

Also a plugin of those test modules (``pytest_plugins = [..., "batch_support"]``): it gives them the
``server`` fixture (the fake server answering by content) and ``judge`` (each provider in turn)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply, schema_responder
from fake_llm.replies import JsonReply
from fake_llm.wire import collect_text

#: Paths of requests that are judge calls (the batch endpoints are not).
JUDGE_PATHS = ("/v1/chat/completions", "/v1/messages", "/v1/embeddings")

JUDGES = {"openai": "openai:fake-gpt", "anthropic": "anthropic:fake-claude"}

THREE_FAITHFUL = """
import pytest

@pytest.mark.parametrize("answer", ["Refunds take five days.", "Refunds take a week.", "Refunds are instant."])
def test_faithful(rag_judge, answer):
    rag_judge.assert_faithful(answer, ["Refunds take five business days."], threshold=1)
"""


class ContentScores:
    """Valid verdicts whose ``score`` follows from the request's text (1-5), so equal scores in two runs
    mean the same requests were judged; other verdicts are the schema responder's, with numbered items
    numbered 1, 2, ... as the multi-step metrics ask."""

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = schema_responder(request)
        if not isinstance(reply, JsonReply):
            return reply
        value = numbered(reply.value)
        if isinstance(value, dict) and "score" in value:
            value = {**value, "score": content_score(request)}
        return Reply.json(value)


def numbered(value: Any) -> Any:
    """``value`` with every list of ``{"index": ...}`` items numbered from 1."""
    if isinstance(value, list):
        items = [numbered(item) for item in value]
        if items and all(isinstance(item, dict) and "index" in item for item in items):
            items = [{**item, "index": i} for i, item in enumerate(items, start=1)]
        return items
    if isinstance(value, dict):
        return {key: numbered(item) for key, item in value.items()}
    return value


def content_score(request: RecordedRequest) -> int:
    body = request.json_body
    text = collect_text(body.get("system")) + collect_text(body.get("messages"))
    return 1 + int(hashlib.sha256(text.encode()).hexdigest(), 16) % 5


def judge_calls(server: FakeLLMServer) -> list[RecordedRequest]:
    """Live judge calls the server received (batch management requests excluded)."""
    return [r for r in server.requests if r.path in JUDGE_PATHS]


def body_text(body: Any) -> str:
    return json.dumps(body, sort_keys=True)


def use_judge(provider: str, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """The judge spec of ``provider``, pointed at the fake server."""
    if provider == "anthropic":
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    return JUDGES[provider]


def run(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    cache: Path,
    *extra: str,
    judge: str = "openai:fake-gpt",
    report: Path | None = None,
) -> pytest.RunResult:
    """One in-process pytest run of the suite written with ``pytester.makepyfile``."""
    args = rag_args(server, cache, "-rs", "--rag-batch-poll=0.01", *extra, judge=judge)
    if report is not None:
        args.append(f"--rag-report={report}")
    return pytester.runpytest(*args)


def scores(report: Path) -> dict[tuple[str, str], Any]:
    """(check, metric) -> score, from a results file."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return {(row["check"], row["metric"]): row["score"] for row in data["checks"]}


def line_starting(result: pytest.RunResult, prefix: str) -> str:
    found = [line for line in result.stdout.lines if line.startswith(prefix)]
    assert found, f"no line starts with {prefix!r}:\n{result.stdout.str()}"
    return found[0]


def first_batch_run(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, judge: str = "openai:fake-gpt"
) -> Path:
    """Write :data:`THREE_FAITHFUL` and run it with ``--rag-batch``: its three checks are queued and
    submitted (the tests skipped). Returns the cache directory for the runs that follow."""
    pytester.makepyfile(THREE_FAITHFUL)
    cache = tmp_path / "cache"
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(skipped=3)
    return cache


@pytest.fixture
def server(fake_llm: FakeLLMServer) -> FakeLLMServer:
    fake_llm.responder = ContentScores()
    return fake_llm


@pytest.fixture(params=["openai", "anthropic"])
def judge(request: pytest.FixtureRequest, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each provider's judge in turn, pointed at the fake server."""
    return use_judge(str(request.param), server, monkeypatch)
