"""What a call costs the client: one SDK client per judge and event loop (chat and embeddings),
embedding vectors kept as float32 (stored compactly, read back exactly, old entries still read), and
batches run through a window of checks so memory does not grow with the batch."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import openai
import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply, schema_responder
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.evaluation import evaluate
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.engine.limits import EngineSettings
from pytest_rag.engine.loop import gather_window
from pytest_rag.inputs import Sample
from pytest_rag.judges.clients import LoopClients
from pytest_rag.judges.embeddings import STORED_FIELD, StoredVectors
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.metrics import catalog
from pytest_rag.results import MetricResult
from pytest_rag.scoring.similarity import cosine


class CountedClients:
    """Counts ``openai.AsyncOpenAI`` clients built (the SDK itself does all the work)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built = 0
        self.closed = 0
        real = openai.AsyncOpenAI
        counter = self

        class Counted(real):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                counter.built += 1
                super().__init__(*args, **kwargs)

            async def close(self) -> None:
                counter.closed += 1
                await super().close()

        monkeypatch.setattr(openai, "AsyncOpenAI", Counted)


@pytest.fixture
def clients(monkeypatch: pytest.MonkeyPatch) -> CountedClients:
    return CountedClients(monkeypatch)


QUESTIONS = {"questions": ["When was it built?", "How tall is it?", "Where is it?"]}


def questions_and_vectors(request: RecordedRequest) -> Reply:
    if request.path.endswith("/embeddings"):
        return schema_responder(request)  # hashed unit vectors, base64 as the SDK asks
    return Reply.json(QUESTIONS)


@pytest.fixture
def server(judge_env: None) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(questions_and_vectors) as srv:
        yield srv


def samples(n: int) -> list[Sample]:
    return [
        Sample(question=f"When was tower {i} built?", answer=f"Tower {i} was built in {1880 + i}.")
        for i in range(n)
    ]


def questions_metric() -> Any:
    return next(
        m for m in catalog.builtin_metrics() if m.name == "answer_relevancy" and m.mode == "questions"
    )


def run_on_new_loop(
    engine: JudgmentEngine, judge: OpenAIChatJudge, batch: list[Sample], *, close: bool
) -> list[MetricResult]:
    async def run() -> list[MetricResult]:
        results = await asyncio.gather(
            *(
                evaluate(
                    engine,
                    questions_metric()(),
                    sample,
                    {},
                    judges=[judge],
                    repeats=1,
                    threshold=None,
                    test_id="t",
                    cache_only=False,
                )
                for sample in batch
            )
        )
        if close:
            await judge.aclose()
        return list(results)

    return asyncio.run(run())


def test_chat_and_embeddings_share_one_client_per_judge_and_loop(
    server: FakeLLMServer, clients: CountedClients, tmp_path: Path
) -> None:
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o-mini", server.openai_base_url))
    engine = JudgmentEngine(JudgmentCache(tmp_path / "cache", "off"), EngineSettings(max_attempts=1))
    first = run_on_new_loop(engine, judge, samples(6), close=False)
    assert all(r.calls.live == 2 for r in first)  # a generation and an embeddings request each
    assert len(server.requests) == 12
    assert clients.built == 1  # twelve requests, chat and embeddings, through one client
    # another event loop gets its own client: a client's connections belong to the loop it used
    second = run_on_new_loop(engine, judge, samples(3), close=True)
    assert [r.score for r in second] == [r.score for r in first[:3]]
    assert clients.built == 2
    assert clients.closed == 1 and len(judge.clients) == 0  # the second loop's, closed on that loop


def test_a_missing_key_builds_no_client_and_keeps_nothing(
    monkeypatch: pytest.MonkeyPatch, clients: CountedClients
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o-mini", None))

    async def ask() -> None:
        judge.clients.get()

    with pytest.raises(Exception, match="OPENAI_API_KEY is not set"):
        asyncio.run(ask())
    assert clients.built == 0 and len(judge.clients) == 0


SUITE = """
import pytest

@pytest.mark.parametrize("i", range(4))
def test_relevant(rag_judge, i):
    rag_judge.assert_rag(
        {"question": f"When was tower {i} built?", "answer": f"Tower {i} was built in {1880 + i}."},
        answer_relevancy_questions=0,
    )
"""


def test_a_session_builds_one_client_for_its_judge_and_closes_it(
    pytester: pytest.Pytester, server: FakeLLMServer, clients: CountedClients
) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(*rag_args(server, pytester.path / "cache"))
    result.assert_outcomes(passed=4)
    assert len(server.requests) == 8
    assert (clients.built, clients.closed) == (1, 1)


# -- vectors as float32 --------------------------------------------------------------------------------


def run_once(server: FakeLLMServer, cache_dir: Path) -> MetricResult:
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o-mini", server.openai_base_url))
    cache = JudgmentCache(cache_dir, "rw")
    try:
        [result] = run_on_new_loop(JudgmentEngine(cache), judge, samples(1), close=True)
    finally:
        cache.close()
    return result


def embedding_entry(cache_dir: Path) -> tuple[str, dict[str, Any]]:
    cache = JudgmentCache(cache_dir, "rw")
    try:
        found = [(k, v) for k, v in cache.items() if STORED_FIELD in v["text"] or '"vectors"' in v["text"]]
    finally:
        cache.close()
    assert len(found) == 1
    return found[0]


def test_embeddings_are_stored_as_float32_and_score_the_same_from_the_cache(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    live = run_once(server, tmp_path / "cache")
    _, entry = embedding_entry(tmp_path / "cache")
    stored = json.loads(entry["text"])
    served = [r for r in server.requests if r.path.endswith("/embeddings")]
    assert served[0].json_body["encoding_format"] == "base64"
    texts = served[0].json_body["input"]
    assert len(stored[STORED_FIELD]) == len(texts) == 4  # the question and three generated ones
    row = np.frombuffer(base64.b64decode(stored[STORED_FIELD][0]), dtype="<f4")
    assert row.shape == (64,) and row.dtype == np.float32  # exactly the float32 the server sent

    server.clear()
    cached = run_once(server, tmp_path / "cache")
    assert server.requests == []
    assert (cached.calls.live, cached.calls.cached) == (0, 2)
    assert cached.score == live.score
    assert cached.evidence_dict() == live.evidence_dict()


def test_an_entry_stored_as_json_numbers_before_still_reads_with_its_own_numbers(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    run_once(server, tmp_path / "cache")
    key, entry = embedding_entry(tmp_path / "cache")
    matrix = StoredVectors.model_validate_json(entry["text"]).matrix
    old_vectors = [[round(float(x), 7) for x in row] for row in matrix]  # the former stored form
    old_vectors[1] = list(old_vectors[0])  # make the first generated question identical to the question
    cache = JudgmentCache(tmp_path / "cache", "rw")
    cache.raw_set(key, {**entry, "text": json.dumps({"vectors": old_vectors})})
    cache.close()

    server.clear()
    result = run_once(server, tmp_path / "cache")
    assert server.requests == []  # the same key: an old entry is a hit, not a miss
    expected = [max(0.0, cosine(old_vectors[0], v)) for v in old_vectors[1:]]
    assert result.evidence_dict()["generated"][0]["cosine"] == pytest.approx(1.0)
    assert result.score == sum(expected) / 3


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"float32": ["AAA="]}', "not base64 float32"),  # two bytes: not a whole float32
        ('{"float32": ["AACAfw=="]}', "NaN or infinite"),  # +inf
        ('{"vectors": [[1.0, 2.0], [1.0]]}', "of one length"),
        ('{"float32": []}', "no vectors"),
        ('{"something": 1}', "holds 'float32'"),
    ],
)
def test_a_broken_stored_reply_is_invalid_with_the_reason(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        StoredVectors.model_validate_json(text)


def test_cosine_compares_float32_rows_in_float64() -> None:
    a = np.array([1.0, 2.0, 2.0], dtype=np.float32)
    assert cosine(a, [2.0, 4.0, 4.0]) == pytest.approx(1.0)
    assert cosine([1.0, 0.0], [0.0, 1.0]) == 0.0
    assert cosine([0.0, 0.0], [1.0, 1.0]) == 0.0
    with pytest.raises(ValueError, match="2 and 3 dimensions"):
        cosine([1.0, 0.0], [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="not finite"):
        cosine([float("nan"), 1.0], [1.0, 1.0])


def test_loop_clients_builds_on_first_use_in_each_loop() -> None:
    built: list[object] = []

    def build() -> object:
        built.append(object())
        return built[-1]

    holder: LoopClients[object] = LoopClients(build)

    async def twice() -> bool:
        return holder.get() is holder.get()

    assert asyncio.run(twice()) and len(built) == 1
    assert asyncio.run(twice()) and len(built) == 2


# -- batches in a window ---------------------------------------------------------------------------


def test_gather_window_keeps_order_bounds_what_runs_and_runs_every_job() -> None:
    running = 0
    most = 0

    def job(i: int) -> Any:
        async def run() -> int:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.001 * (i % 3))
            running -= 1
            if i == 5:
                raise ValueError("job 5 failed")
            return i * i

        return run

    assert asyncio.run(gather_window([job(i) for i in range(5)], 3)) == [0, 1, 4, 9, 16]
    assert most == 3
    finished: list[int] = []

    def tracked(i: int) -> Any:
        async def run() -> int:
            value: int = await job(i)()
            finished.append(i)
            return value

        return run

    with pytest.raises(ValueError, match="job 5 failed"):
        asyncio.run(gather_window([tracked(i) for i in range(12)], 4))
    assert sorted(finished) == [i for i in range(12) if i != 5]  # the failure stopped no other job


def test_an_embedder_whose_vectors_are_not_a_matrix_is_a_judge_error() -> None:
    from pytest_rag.errors import JudgeError
    from pytest_rag.judges.embeddings import EmbeddingBatch, EmbeddingJudge, embedding_request

    class Ragged:
        label = "fake:ragged"
        offline = True

        def identity(self) -> dict[str, str]:
            return {"provider": "fake"}

        async def embed(self, texts: Any) -> EmbeddingBatch:
            return EmbeddingBatch([[1.0, 0.0], [1.0]])

    judge = EmbeddingJudge(Ragged())
    with pytest.raises(JudgeError, match="not a matrix of numbers"):
        asyncio.run(judge.complete(embedding_request("semantic_similarity", ["a", "b"])))
