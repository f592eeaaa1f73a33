"""A reply a metric rejects is repaired or reported, and never cached.

Every check a metric makes of a reply (each numbered item named once, a context number that exists,
at least one generated question) runs while the reply is parsed into its verdict, so the engine's
repair turn gets its chance and a rejected reply never reaches the cache. A store that already holds
such a reply (written before the check moved, or by hand) is asked again under ``rw`` and is a
replay error naming the entry under ``replay``.

The fake server plays a small local model that numbers from 0: the repair turn (a request whose
last message says the previous reply could not be used) is answered right or wrong by the test.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fake_llm import FakeLLMServer, RecordedRequest, Reply
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.evaluation import evaluate
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.engine.limits import EngineSettings
from pytest_rag.errors import CacheMissError, JudgeError
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.metrics import catalog
from pytest_rag.metrics.base import Metric
from pytest_rag.results import MetricResult

REPAIR_MARK = "could not be used"
"""Words of the engine's repair turn: a request holding them is the second try."""

SAMPLE = Sample(
    question="When was the Eiffel Tower completed?",
    answer="It was completed in 1889. It is 330 m tall.",
    contexts=(
        Chunk("The Eiffel Tower was completed in 1889.", id="p1"),
        Chunk("The tower is 330 metres tall.", id="p2"),
    ),
    reference="The Eiffel Tower was completed in 1889. It is 330 metres tall.",
)
CLAIMS = ["The tower was completed in 1889.", "The tower is 330 m tall."]

Answer = Callable[[RecordedRequest], Any]


def _text(request: RecordedRequest) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.json_body.get("messages", []))


def _schema(request: RecordedRequest) -> str:
    return str(request.json_body.get("response_format", {}).get("json_schema", {}).get("name", ""))


class Judge:
    """Answers each request by its schema's name (every text embeds alike)."""

    def __init__(self, answers: Mapping[str, Answer]) -> None:
        self.answers = dict(answers)

    def __call__(self, request: RecordedRequest) -> Reply:
        if request.path.endswith("/embeddings"):
            return Reply.embedding([[1.0, 0.0] for _ in request.json_body["input"]])
        answer = self.answers.get(_schema(request))
        if answer is None:
            raise AssertionError(f"no answer for schema {_schema(request)!r}")
        return Reply.json(answer(request))


def zero_based_then(good: dict[str, Any], repaired: bool) -> Answer:
    """The reply numbered from 0 (``good`` with every index one lower); on the repair turn ``good``
    when ``repaired``, else the same 0-based reply again."""
    (field,) = good
    bad = {field: [{**item, "index": item["index"] - 1} for item in good[field]]}
    return lambda request: good if repaired and REPAIR_MARK in _text(request) else bad


def claim_checks(supported: Sequence[bool]) -> dict[str, Any]:
    return {
        "verdicts": [
            {"index": i, "reasoning": "r", "support": "supported" if s else "not_in_context"}
            for i, s in enumerate(supported, start=1)
        ]
    }


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def metric(name: str, mode: str = "default") -> type[Metric]:
    return next(m for m in catalog.builtin_metrics() if m.name == name and m.mode == mode)


def judged(
    server: FakeLLMServer,
    judge: Judge,
    metric_class: type[Metric],
    cache_dir: Path,
    mode: str = "rw",
    options: Mapping[str, Any] | None = None,
) -> MetricResult:
    server.responder = judge
    server.clear()
    client = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o-mini", server.openai_base_url))
    cache = JudgmentCache(cache_dir, mode)
    engine = JudgmentEngine(cache, EngineSettings(max_attempts=1, backoff_base_s=0.0))

    async def run() -> MetricResult:
        try:
            return await evaluate(
                engine,
                metric_class(),
                SAMPLE,
                options or {},
                judges=[client],
                repeats=1,
                threshold=None,
                test_id="t::x",
                cache_only=False,
            )
        finally:
            await client.aclose()

    try:
        return asyncio.run(run())
    finally:
        cache.close()


def stored_texts(cache_dir: Path) -> list[str]:
    cache = JudgmentCache(cache_dir, "rw")
    try:
        return [str(entry["text"]) for _, entry in cache.items()]
    finally:
        cache.close()


def zero_based_in(texts: Sequence[str]) -> list[str]:
    return [t for t in texts if '"index": 0' in t or '"index":0' in t]


# (label, metric, mode, the judge's answers by schema with a 0-based reply where it is checked)
CASES: list[tuple[str, str, str, Callable[[bool], dict[str, Answer]]]] = [
    (
        "claims verification",
        "faithfulness",
        "claims",
        lambda fixed: {
            "ClaimList": lambda _r: {"claims": CLAIMS},
            "ClaimChecks": zero_based_then(claim_checks([True, False]), fixed),
        },
    ),
    (
        "recall attribution",
        "context_recall",
        "attribution",
        lambda fixed: {
            "ClaimList": lambda _r: {"claims": CLAIMS},
            "FactAttributions": zero_based_then(
                {
                    "verdicts": [
                        {"index": 1, "reasoning": "r", "covered": True, "source_context": 1},
                        {"index": 2, "reasoning": "r", "covered": False, "source_context": None},
                    ]
                },
                fixed,
            ),
        },
    ),
    (
        "factual correctness",
        "factual_correctness",
        "default",
        lambda fixed: {
            "ClaimList": lambda _r: {"claims": CLAIMS},
            "EntailmentChecks": zero_based_then(
                {
                    "verdicts": [
                        {"index": 1, "reasoning": "r", "verdict": "entailment"},
                        {"index": 2, "reasoning": "r", "verdict": "neutral"},
                    ]
                },
                fixed,
            ),
        },
    ),
]


Case = tuple[str, str, Callable[[bool], dict[str, Answer]]]


@pytest.fixture(params=CASES, ids=[c[0] for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    """(metric name, mode, the judge's answers given whether the repair turn is answered right)."""
    _, name, mode, answers = request.param
    return name, mode, answers


def test_a_zero_based_reply_is_repaired_and_only_the_repaired_reply_is_cached(
    server: FakeLLMServer, tmp_path: Path, case: Case
) -> None:
    name, mode, answers = case
    result = judged(server, Judge(answers(True)), metric(name, mode), tmp_path)
    assert result.score == 0.5
    repairs = [r for r in server.requests if REPAIR_MARK in _text(r)]
    assert repairs, "the 0-based reply was not sent back for repair"
    assert "numbered [0, 1]" in _text(repairs[0]) and "1-2" in _text(repairs[0])
    assert not zero_based_in(stored_texts(tmp_path))
    again = judged(server, Judge(answers(False)), metric(name, mode), tmp_path, mode="replay")
    assert again.score == result.score and again.calls.live == 0


def test_a_zero_based_reply_the_repair_does_not_mend_is_a_judge_error_and_never_cached(
    server: FakeLLMServer, tmp_path: Path, case: Case
) -> None:
    name, mode, answers = case
    with pytest.raises(JudgeError, match=r"numbered \[0, 1\] but there are 2") as caught:
        judged(server, Judge(answers(False)), metric(name, mode), tmp_path)
    assert caught.value.kind == "invalid"
    assert not zero_based_in(stored_texts(tmp_path))
    with pytest.raises(JudgeError):  # a rerun asks again: nothing rejected was kept to serve it
        judged(server, Judge(answers(False)), metric(name, mode), tmp_path)
    checked = [r for r in server.requests if _schema(r) != "ClaimList"]
    assert len(checked) >= 2  # the reply and its repair, asked again


def test_nugget_labels_numbered_from_zero_are_repaired(server: FakeLLMServer, tmp_path: Path) -> None:
    nuggets = ["built 1889", "330 m tall"]
    importance = {"labels": [{"index": 1, "importance": "vital"}, {"index": 2, "importance": "okay"}]}
    support = {"labels": [{"index": 1, "assignment": "support"}, {"index": 2, "assignment": "not_support"}]}
    answers: dict[str, Answer] = {
        "NuggetList": lambda _r: {"nuggets": nuggets},
        "ImportanceLabels": zero_based_then(importance, True),
        "AssignmentLabels": zero_based_then(support, True),
    }
    options = {"umbrela_grades": [3, 2]}
    result = judged(server, Judge(answers), metric("nuggets"), tmp_path, options=options)
    assert result.score == 1.0  # the one vital nugget is supported
    assert len([r for r in server.requests if REPAIR_MARK in _text(r)]) == 2
    assert not zero_based_in(stored_texts(tmp_path))


def test_an_attribution_to_a_context_that_does_not_exist_is_repaired(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    def attribute(request: RecordedRequest) -> dict[str, Any]:
        source = 2 if REPAIR_MARK in _text(request) else 7
        return {
            "verdicts": [
                {"index": 1, "reasoning": "r", "covered": True, "source_context": 1},
                {"index": 2, "reasoning": "r", "covered": True, "source_context": source},
            ]
        }

    answers: dict[str, Answer] = {"ClaimList": lambda _r: {"claims": CLAIMS}, "FactAttributions": attribute}
    result = judged(server, Judge(answers), metric("context_recall", "attribution"), tmp_path)
    assert result.score == 1.0
    assert [f["source_context"] for f in result.evidence_dict()["facts"]] == [1, 2]
    (repair,) = [r for r in server.requests if REPAIR_MARK in _text(r)]
    assert "context 7" in _text(repair) and "2 contexts" in _text(repair)
    assert not [t for t in stored_texts(tmp_path) if '"source_context": 7' in t]


def test_a_reply_with_no_question_is_repaired(server: FakeLLMServer, tmp_path: Path) -> None:
    def generate(request: RecordedRequest) -> dict[str, Any]:
        return {"questions": ["When was it completed?"] if REPAIR_MARK in _text(request) else ["  "]}

    answers: dict[str, Answer] = {"GeneratedQuestions": generate}
    result = judged(server, Judge(answers), metric("answer_relevancy", "questions"), tmp_path)
    assert result.score == pytest.approx(1.0)
    assert len([r for r in server.requests if REPAIR_MARK in _text(r)]) == 1
    assert not [t for t in stored_texts(tmp_path) if '"  "' in t]


def _seed_zero_based_verification(server: FakeLLMServer, cache_dir: Path) -> None:
    """A store written by an earlier version, whose claim verification kept a 0-based reply: the
    entry is put under the very key the request has now."""
    answers = {
        "ClaimList": lambda _r: {"claims": CLAIMS},
        "ClaimChecks": lambda _r: claim_checks([True, True]),
    }
    judged(server, Judge(answers), metric("faithfulness", "claims"), cache_dir)
    cache = JudgmentCache(cache_dir, "rw")
    try:
        for key, entry in list(cache.items()):
            text = str(entry["text"])
            if '"verdicts"' in text:
                reply = json.loads(text)
                for item in reply["verdicts"]:
                    item["index"] -= 1
                cache.raw_set(key, {**entry, "text": json.dumps(reply)})
    finally:
        cache.close()
    assert zero_based_in(stored_texts(cache_dir))


def test_a_stored_reply_the_metric_rejects_is_asked_again_and_overwritten_under_rw(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    _seed_zero_based_verification(server, tmp_path)
    answers = {
        "ClaimList": lambda _r: {"claims": CLAIMS},
        "ClaimChecks": lambda _r: claim_checks([True, False]),
    }
    result = judged(server, Judge(answers), metric("faithfulness", "claims"), tmp_path)
    assert result.score == 0.5
    assert [_schema(r) for r in server.requests] == ["ClaimChecks"]  # the extraction stayed cached
    assert not zero_based_in(stored_texts(tmp_path))


def test_a_stored_reply_the_metric_rejects_is_a_replay_error_naming_the_entry(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    _seed_zero_based_verification(server, tmp_path)
    with pytest.raises(CacheMissError) as caught:
        judged(server, Judge({}), metric("faithfulness", "claims"), tmp_path, mode="replay")
    message = str(caught.value)
    assert "faithfulness.claims.verify" in message and "key " in message
    assert "numbered [0, 1] but there are 2 claims" in message
    assert "--rag-cache=rw" in message
    assert server.request_count == 0
