"""Regression tests for bugs found in a review of the core: each test failed before its fix.

They drive the session, engine and config through small in-process doubles (a stand-in pytest config
and hook, scripted judges) so each one isolates the path that was wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel, Field

from pytest_rag import builtin
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.engine.limits import EngineSettings
from pytest_rag.errors import ConfigError, InputError, JudgeError
from pytest_rag.helper_forms import Check
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.embeddings import EmbeddingBatch, embedding_request
from pytest_rag.judges.faults import translate
from pytest_rag.judges.protocol import JudgeReply, JudgeSpec, TransientFault
from pytest_rag.judges.request import JudgeRequest, JudgeTask, Message
from pytest_rag.rag_judge import RagJudge
from pytest_rag.results import MetricResult
from pytest_rag.run.session import RagSession
from pytest_rag.run.thresholds import Thresholds
from pytest_rag.scoring.similarity import cosine
from test_metrics_catalog import generic_reply


class SchemaJudge:
    """An offline judge that answers every request with a minimal schema-valid verdict (all claims
    supported), so these tests do not depend on the offline model's calibration."""

    offline = True
    cacheable = False

    def __init__(self, spec: JudgeSpec, options: Any = None) -> None:
        self.spec = spec

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "schema"}

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        return JudgeReply(json.dumps(generic_reply(request)))

    async def aclose(self) -> None:
        return None


class FakeHook:
    """The three pytest-rag hooks, answered by the built-in providers and metrics (plus ``schema``)."""

    def __init__(self) -> None:
        self.recorded: list[Any] = []
        self.extra_providers: dict[str, Any] = {}

    def pytest_rag_judge_providers(self) -> list[Mapping[str, Any]]:
        return [builtin.pytest_rag_judge_providers(), {"schema": SchemaJudge, **self.extra_providers}]

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
    return RagSession(FakeConfig(tmp_path, {"rag_judge": "schema", **(options or {})}, ini or {}))


def score(rag: RagSession, check: Check, sample: Sample) -> MetricResult:
    """Plan and score one check as a score form does."""
    return rag.score(rag.plan("t", check, sample))


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
    single = score(rag, Check(metric="faithfulness"), SAMPLE)
    claims = score(rag, Check(metric="faithfulness", mode="claims"), SAMPLE)
    assert single.threshold == 4.0
    assert claims.threshold == 0.8  # the mode's own default
    assert claims.score == 1.0 and claims.passed is True


def test_ini_threshold_can_name_a_mode_and_an_explicit_zero_still_wins(tmp_path: Path) -> None:
    rag = session(tmp_path, ini={"rag_thresholds": ["faithfulness[claims] = 0.9", "faithfulness = 5"]})
    assert score(rag, Check(metric="faithfulness", mode="claims"), SAMPLE).threshold == 0.9
    assert score(rag, Check(metric="faithfulness"), SAMPLE).threshold == 5.0
    assert score(rag, Check(metric="faithfulness", mode="claims", threshold=0), SAMPLE).threshold == 0.0


def test_ini_threshold_still_applies_to_a_mode_on_the_same_scale(tmp_path: Path) -> None:
    rag = session(tmp_path, ini={"rag_thresholds": ["consistency = 0.5"]})
    result = score(
        rag, Check(metric="consistency", mode="lexical", options={"answers": ["a b c", "a b d"]}), SAMPLE
    )
    assert result.threshold == 0.5 and result.passed is True


# -- numbers in options: NaN is not a number anyone means -----------------------------------------------


@pytest.mark.parametrize(
    ("options", "ini", "named"),
    [
        ({}, {"rag_threshold_faithfulness": "nan"}, "rag_threshold_faithfulness"),
        (
            {},
            {"rag_thresholds": ["answer_relevancy = NaN"]},
            r"rag_thresholds \(ini file\): answer_relevancy",
        ),
        ({"rag_timeout": float("nan")}, {}, "--rag-timeout"),
        ({}, {"rag_budget": "nan"}, "rag_budget"),
        ({"rag_fail_under": ["faithfulness=nan"]}, {}, r"--rag-fail-under \(command line\) faithfulness"),
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
    import pytest_rag.engine.judgment as engine_module

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


# -- the engine: the judgment deadline and the queue for a concurrency slot ------------------------------


class Verdict(BaseModel):
    reasoning: str
    score: int = Field(ge=1, le=5)


def judge_request(text: str) -> JudgeRequest:
    return JudgeRequest(
        metric="faithfulness",
        template_id="review.faithfulness",
        template_version="1",
        messages=(Message("user", text),),
        response_model=Verdict,
        task=JudgeTask("faithfulness.single", {"answer": text}),
    )


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class SlowFirstCallJudge:
    """A live judge whose first call takes 1000 s on the engine's clock; every call replies validly."""

    spec = JudgeSpec("fake", "slow")
    offline = False
    cacheable = False

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.calls = 0

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "fake", "model": "slow"}

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        self.calls += 1
        if self.calls == 1:
            self.clock.now += 1000.0
        await asyncio.sleep(0.01)  # a real await, so an attempt given no time left would time out
        return JudgeReply(json.dumps({"reasoning": "r", "score": 4}), input_tokens=10, output_tokens=5)

    async def aclose(self) -> None:
        return None


def test_time_spent_waiting_for_a_concurrency_slot_does_not_use_up_the_judgment_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline clock started before the semaphore, so in a batch larger than --rag-concurrency
    every judgment queued longer than --rag-deadline failed without ever reaching the judge."""
    import pytest_rag.engine.judgment as engine_module

    clock = FakeClock()
    monkeypatch.setattr(engine_module, "time", clock)
    engine = JudgmentEngine(
        JudgmentCache(tmp_path / "cache", "off"),
        EngineSettings(concurrency=1, deadline_s=60.0, max_attempts=2, backoff_base_s=0.0),
    )
    judge = SlowFirstCallJudge(clock)

    async def both() -> list[Any]:
        asks = [
            engine.ask_graded(judge, judge_request(text), Verdict, test_id="t", cache_only=False)
            for text in ("first", "second")
        ]
        return list(await asyncio.gather(*asks, return_exceptions=True))

    outcomes = asyncio.run(both())
    assert [type(o).__name__ for o in outcomes] == ["tuple", "tuple"], outcomes
    assert judge.calls == 2


# -- embeddings: a degenerate vector is a judge error, not a perfect similarity --------------------------


class NanEmbedder:
    """An embeddings service gone wrong: one component of every vector is NaN."""

    label = "fake:nan-embeddings"
    offline = True

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "fake", "model": "nan-embeddings"}

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        return EmbeddingBatch([[float("nan"), 1.0] for _ in texts])


class NanEmbeddingJudge(SchemaJudge):
    offline = False

    def embedder(self, model: str | None) -> NanEmbedder:
        return NanEmbedder()


def test_nan_embeddings_end_as_a_judge_error_not_a_perfect_similarity(tmp_path: Path) -> None:
    """cosine() clamped NaN with min/max, which returns 1.0: a broken embedder scored every pair as
    identical, a silent pass."""
    rag = session(tmp_path, {"rag_judge": "nan-embeddings"})
    rag.config.hook.extra_providers["nan-embeddings"] = NanEmbeddingJudge
    with pytest.raises(JudgeError, match="vectors"):
        score(rag, Check(metric="semantic_similarity", threshold=0.5), SAMPLE)
    [record] = rag.results
    assert record.error_kind == "JudgeError" and record.score is None


def test_cosine_of_a_vector_holding_nan_is_an_error() -> None:
    with pytest.raises(ValueError, match="finite"):
        cosine([float("nan"), 1.0], [1.0, 1.0])


def test_rejecting_nan_embeddings_keeps_the_stored_key_of_embedding_requests() -> None:
    """The verdict model's docstring and schema are part of the key: tightening validation must not
    turn every recorded embedding (and every committed judgment file) into a replay miss."""
    identity = {
        "provider": "openai-embeddings",
        "model": "text-embedding-3-small",
        "base_url": "https://api.openai.com/v1",
    }
    key = embedding_request("semantic_similarity", ["a", "b"]).cache_key(identity)
    assert key == "76f85320de29c0101a31b6957edd3a40b06c5c71a41a046aa06d95f1c860ee76"


# -- credentials echoed by a server's error message -----------------------------------------------------


class FakeSdk:
    """The SDK exception hierarchy that translate() reads (shared by the openai and anthropic SDKs)."""

    class OpenAIError(Exception):
        pass

    class APIConnectionError(OpenAIError):
        pass

    class APITimeoutError(APIConnectionError):
        pass

    class APIStatusError(OpenAIError):
        def __init__(self, message: str, status_code: int, body: Any) -> None:
            super().__init__(message)
            self.status_code = status_code
            self.body = body
            self.response = SimpleNamespace(headers={"retry-after": "1"})


def status_error(status: int, message: str) -> Exception:
    body = {"error": {"message": message}}
    return FakeSdk.APIStatusError(f"Error code: {status} - {body}", status, body)


@pytest.mark.parametrize("status", [400, 404, 429, 500])
def test_a_server_error_that_echoes_the_api_key_does_not_carry_it_into_the_error(
    monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    """Proxies and self-hosted servers echo request headers in error bodies; the detail went verbatim
    into JudgeError and TransientFault, hence into the test failure, records, reports and logs."""
    key = "sk-review-SECRET-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    exc = status_error(status, f"bad request; headers were Authorization: Bearer {key}")
    translated = translate(
        exc,
        FakeSdk,  # type: ignore[arg-type]
        judge="openai:gpt-4o",
        key_env="OPENAI_API_KEY",
        base_url="https://api.openai.com/v1",
    )
    assert isinstance(translated, (JudgeError, TransientFault))
    assert key not in str(translated)
    assert "Authorization" in str(translated)  # the rest of the server's detail is kept


def test_an_unexpected_sdk_error_that_echoes_the_api_key_does_not_carry_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-ant-review-SECRET-0123456789abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    translated = translate(
        FakeSdk.OpenAIError(f"client misconfigured with api_key={key}"),
        FakeSdk,  # type: ignore[arg-type]
        judge="anthropic:claude",
        key_env="ANTHROPIC_API_KEY",
        base_url="https://api.anthropic.com",
    )
    assert key not in str(translated)


# -- assert_* on a metric without a default threshold ---------------------------------------------------


def test_asserting_on_a_metric_without_a_threshold_fails_before_judging_or_recording(tmp_path: Path) -> None:
    """The InputError came after the judge calls: the money was spent and a scored check with no
    pass/fail was recorded for a test that then errored."""
    rag = session(tmp_path)
    judge = RagJudge(rag, "t")
    with pytest.raises(InputError, match="umbrela has no default threshold; pass threshold="):
        judge.assert_umbrela(SAMPLE.question, ["Refunds take 30 days.", "Shipping is free."])
    with pytest.raises(InputError, match="no default threshold"):
        asyncio.run(judge.aassert_score("umbrela", question=SAMPLE.question, contexts=["Refunds."]))
    assert len(rag.results) == 0
    passed = judge.assert_umbrela(SAMPLE.question, ["Refunds take 30 days."], threshold=0)
    assert passed.threshold == 0.0 and passed.passed is True and len(rag.results) == 1


class UnreadableJudge(SchemaJudge):
    """Replies with text that no verdict can be read from, repair request included."""

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        return JudgeReply("no verdict here")


def test_a_failed_check_is_counted_under_the_metric_it_resolved_to(tmp_path: Path) -> None:
    """assert_rag(relevancy=3) judges answer_relevancy; when the judge failed, the error was recorded
    under "relevancy" with no scale, a summary row of its own beside the scored checks' row."""
    rag = session(tmp_path, {"rag_judge": "unreadable"})
    rag.config.hook.extra_providers["unreadable"] = UnreadableJudge
    outcomes = rag.score_many(
        "t",
        [(Check(metric="relevancy", threshold=3), SAMPLE), (Check(metric="faithfulness_claims"), SAMPLE)],
    )
    assert all(isinstance(outcome, JudgeError) for outcome in outcomes)
    labels = [(r.metric, r.mode, r.scale_low, r.scale_high) for r in rag.results]
    assert labels == [("answer_relevancy", "default", 1.0, 5.0), ("faithfulness", "claims", 0.0, 1.0)]


def test_an_assertion_resolves_its_bar_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The assert forms looked the bar up to refuse a check without one, then the session looked it
    up again to judge it: two lookups that had to agree. The plan now carries the one bar."""
    rag = session(tmp_path, ini={"rag_threshold_faithfulness": "1"})
    asked: list[str] = []
    lookup = Thresholds.of

    def counted(self: Thresholds, metric: Any, explicit: float | None) -> float | None:
        asked.append(metric.name)
        return lookup(self, metric, explicit)

    monkeypatch.setattr(Thresholds, "of", counted)
    result = RagJudge(rag, "t").assert_faithful(SAMPLE.answer, [c.text for c in SAMPLE.contexts])
    assert result.threshold == 1.0
    assert asked == ["faithfulness"]
