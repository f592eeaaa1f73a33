"""Every judged catalog metric end to end: real openai SDK -> fake server -> engine -> metric.

Replies are routed by the request's response schema and by text in its messages (metrics send
their calls concurrently, so arrival order is not a script). Each test checks the score against a
hand-worked value and the evidence the metric keeps.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fake_llm import FakeLLMServer, RecordedRequest, Reply
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.evaluation import evaluate
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.engine.limits import EngineSettings
from pytest_rag.errors import InputError, JudgeError
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.metrics import catalog
from pytest_rag.metrics.base import Metric
from pytest_rag.results import MetricResult

Rule = tuple[str, Sequence[str], Callable[[RecordedRequest], Reply]]


class Router:
    """Answers each chat request by the first rule whose schema name and texts it matches."""

    def __init__(self, rules: Sequence[Rule], vectors: Mapping[str, Sequence[float]] | None = None) -> None:
        self.rules = list(rules)
        self.vectors = dict(vectors or {})

    def __call__(self, request: RecordedRequest) -> Reply:
        body = request.json_body
        if request.path.endswith("/embeddings"):
            return Reply.embedding([self.vectors[text] for text in body["input"]])
        schema = body.get("response_format", {}).get("json_schema", {}).get("name", "")
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        for name, needles, reply in self.rules:
            if name == schema and all(n in text for n in needles):
                return reply(request)
        raise AssertionError(f"no rule for schema {schema!r}:\n{text[-400:]}")


def fixed(value: Any) -> Callable[[RecordedRequest], Reply]:
    return lambda _request: Reply.json(value)


def garbage(_request: RecordedRequest) -> Reply:
    return Reply.text("I think the score is five, honestly.")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def judged(
    server: FakeLLMServer,
    router: Router,
    metric: type[Metric],
    sample: Sample,
    options: Mapping[str, Any] | None = None,
    *,
    cache_dir: Path | None = None,
) -> MetricResult:
    server.responder = router
    server.clear()
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o-mini", server.openai_base_url))
    cache = JudgmentCache(cache_dir or Path("unused"), "rw" if cache_dir else "off")
    engine = JudgmentEngine(cache, EngineSettings(max_attempts=2, backoff_base_s=0.0))

    async def run() -> MetricResult:
        try:
            return await evaluate(
                engine,
                metric(),
                sample,
                options or {},
                judges=[judge],
                repeats=1,
                threshold=None,
                test_id="t",
                cache_only=False,
            )
        finally:
            await judge.aclose()

    try:
        return asyncio.run(run())
    finally:
        cache.close()


def metric(name: str, mode: str = "default") -> type[Metric]:
    return next(m for m in catalog.builtin_metrics() if m.name == name and m.mode == mode)


CONTEXTS = (
    Chunk("The Eiffel Tower was completed in 1889.", id="p1"),
    Chunk("Bananas are rich in potassium.", id="p2"),
    Chunk("The tower is 330 metres tall.", id="p3"),
)
SAMPLE = Sample(
    question="When was the Eiffel Tower completed?",
    answer="It was completed in 1889 and is 330 m tall.",
    contexts=CONTEXTS,
    reference="The Eiffel Tower was completed in 1889.",
)


def verdicts(n: int, **fields: Any) -> dict[str, Any]:
    return {"verdicts": [{"index": i, "reasoning": "r", **fields} for i in range(1, n + 1)]}


def claims_router(claims: Sequence[str], unsupported: str) -> Router:
    """Extraction gives ``claims``; verification answers every claim shown, all but ``unsupported``
    supported."""

    def verify(request: RecordedRequest) -> Reply:
        text = json.dumps(request.json_body["messages"])
        shown = [c for c in claims if f"{c}\\n" in text]
        return Reply.json(
            {
                "verdicts": [
                    {
                        "index": i,
                        "reasoning": "r",
                        "support": "not_in_context" if c == unsupported else "supported",
                    }
                    for i, c in enumerate(shown, 1)
                ]
            }
        )

    return Router([("ClaimList", (), fixed({"claims": list(claims)})), ("ClaimChecks", (), verify)])


def test_faithfulness_claims_sends_the_contexts_once_and_keeps_every_verdict(server: FakeLLMServer) -> None:
    claims = [f"claim number {i}" for i in range(1, 8)]
    router = claims_router(claims, "claim number 3")
    result = judged(server, router, metric("faithfulness", "claims"), SAMPLE)
    assert result.score == pytest.approx(6 / 7)
    assert result.calls.live == 2  # the extraction, then every claim in one verification
    (verification,) = [r for r in server.requests if "ClaimChecks" in json.dumps(r.json_body)]
    assert verification.json_body["max_tokens"] == 256 + 160 * 7  # room for seven verdicts
    evidence = result.evidence_dict()
    assert [c["claim"] for c in evidence["claims"]] == claims
    assert evidence["unsupported_statements"] == ["claim number 3"]
    assert (result.metric, result.mode, result.scale) == ("faithfulness", "claims", "0-1")
    batched = judged(server, router, metric("faithfulness", "claims"), SAMPLE, {"batch_size": 5})
    assert batched.score == result.score and batched.calls.live == 1 + math.ceil(7 / 5)


def test_faithfulness_claims_past_25_are_split_evenly(server: FakeLLMServer) -> None:
    claims = [f"claim number {i}" for i in range(1, 31)]
    result = judged(server, claims_router(claims, ""), metric("faithfulness", "claims"), SAMPLE)
    assert result.score == 1.0 and result.calls.live == 1 + 2
    sizes = sorted(
        json.dumps(r.json_body).count("<claim index=")
        for r in server.requests
        if "ClaimChecks" in json.dumps(r.json_body)
    )
    assert sizes == [15, 15]


def test_claims_mode_with_a_missing_verdict_is_a_judge_error(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("ClaimList", (), fixed({"claims": ["a", "b"]})),
            ("ClaimChecks", (), fixed(verdicts(1, support="supported"))),
        ]
    )
    with pytest.raises(JudgeError, match="numbered"):
        judged(server, router, metric("faithfulness", "claims"), SAMPLE)


def test_context_recall_attribution_keeps_the_one_indexed_source(server: FakeLLMServer) -> None:
    reply = {
        "verdicts": [
            {"index": 1, "reasoning": "r", "covered": True, "source_context": 1},
            {"index": 2, "reasoning": "r", "covered": False, "source_context": None},
        ]
    }
    router = Router(
        [
            ("ClaimList", (), fixed({"claims": ["built 1889", "built by Eiffel"]})),
            ("FactAttributions", (), fixed(reply)),
        ]
    )
    result = judged(server, router, metric("context_recall", "attribution"), SAMPLE)
    assert result.score == 0.5
    facts = result.evidence_dict()["facts"]
    assert [(f["fact"], f["source_context"]) for f in facts] == [("built 1889", 1), ("built by Eiffel", None)]
    reply["verdicts"][1].update(covered=True, source_context=9)
    with pytest.raises(JudgeError, match="context 9"):
        judged(server, router, metric("context_recall", "attribution"), SAMPLE)


def test_generated_questions_mode_is_mean_cosine_through_the_embeddings_api(server: FakeLLMServer) -> None:
    vectors = {SAMPLE.question: [1.0, 0.0], "Q one?": [1.0, 0.0], "Q two?": [0.6, 0.8]}
    router = Router(
        [("GeneratedQuestions", ("write 2 different",), fixed({"questions": ["Q one?", "Q two?"]}))], vectors
    )
    result = judged(server, router, metric("answer_relevancy", "questions"), SAMPLE, {"n_questions": 2})
    assert result.score == pytest.approx((1.0 + 0.6) / 2)
    assert result.calls.live == 2  # one generation, one embeddings request
    embedding_calls = [r for r in server.requests if r.path.endswith("/embeddings")]
    assert embedding_calls[0].json_body["model"] == "text-embedding-3-small"


def test_embeddings_are_cached_like_judgments(server: FakeLLMServer, tmp_path: Path) -> None:
    vectors = {SAMPLE.answer: [1.0, 0.0], SAMPLE.reference or "": [0.0, 1.0]}
    router = Router([], vectors)
    first = judged(server, router, metric("semantic_similarity"), SAMPLE, cache_dir=tmp_path)
    again = judged(server, router, metric("semantic_similarity"), SAMPLE, cache_dir=tmp_path)
    assert first.score == again.score == 0.0
    assert (first.calls.live, again.calls.live, again.calls.cached) == (1, 0, 1)
    other = judged(
        server,
        router,
        metric("semantic_similarity"),
        SAMPLE,
        {"embedding_model": "other-model"},
        cache_dir=tmp_path,
    )
    assert other.calls.live == 1  # the embedding model is part of the key


def test_context_precision_is_average_precision_of_the_useful_ranks(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("UsefulnessVerdict", ("Bananas",), fixed({"reasoning": "r", "useful": False})),
            ("UsefulnessVerdict", (), fixed({"reasoning": "r", "useful": True})),
        ]
    )
    per_passage = {"per_passage": True}
    result = judged(server, router, metric("context_precision"), SAMPLE, per_passage)
    assert result.score == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert result.calls.live == 3  # one request per passage when asked for
    assert [p["relevant"] for p in result.evidence_dict()["passages"]] == [True, False, True]
    nothing = Router([("UsefulnessVerdict", (), fixed({"reasoning": "r", "useful": False}))])
    assert judged(server, nothing, metric("context_precision"), SAMPLE, per_passage).score == 0.0


def test_context_precision_grades_all_passages_in_one_request_by_default(server: FakeLLMServer) -> None:
    verdicts = {
        f"passage_{i}": {"reasoning": "r", "useful": u} for i, u in ((2, False), (1, True), (3, True))
    }
    router = Router([("UsefulnessListVerdict", (), fixed(verdicts))])
    result = judged(server, router, metric("context_precision"), SAMPLE)
    assert result.calls.live == 1
    assert result.score == pytest.approx((1 / 1 + 2 / 3) / 2)  # verdicts are matched by key, not order
    assert [p["relevant"] for p in result.evidence_dict()["passages"]] == [True, False, True]
    schema = server.requests[-1].json_body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["passage_1", "passage_2", "passage_3"]  # one answer per passage, enforced
    missing = {k: v for k, v in verdicts.items() if k != "passage_2"}
    with pytest.raises(JudgeError, match="passage_2"):  # invalid twice (reply and repair): a judge error
        judged(
            server,
            Router([("UsefulnessListVerdict", (), fixed(missing))]),
            metric("context_precision"),
            SAMPLE,
        )


def test_context_precision_gives_the_reply_room_for_every_passage(server: FakeLLMServer) -> None:
    """At about 100 tokens a verdict, twenty passages do not fit in 1024 tokens: a reply cut off
    there holds no verdict, so the room grows with the passages."""
    many = Sample(question="q?", contexts=tuple(Chunk(f"passage {i}") for i in range(1, 21)))
    verdicts = {f"passage_{i}": {"reasoning": "r", "useful": i % 2 == 1} for i in range(1, 21)}
    router = Router([("UsefulnessListVerdict", (), fixed(verdicts))])
    result = judged(server, router, metric("context_precision"), many)
    assert result.details["useful"] == 10
    assert server.requests[-1].json_body["max_tokens"] == 256 + 160 * 20
    judged(server, router, metric("context_precision"), SAMPLE)
    assert server.requests[-1].json_body["max_tokens"] == 1024  # three passages: the usual room


def test_umbrela_grades_give_precision_ap_and_mrr(server: FakeLLMServer) -> None:
    grades = {"1889": 0, "Bananas": 1, "330": 3}
    rules = [("UmbrelaVerdict", (word,), fixed({"reasoning": "r", "score": g})) for word, g in grades.items()]
    result = judged(server, Router(rules), metric("umbrela"), SAMPLE, {"k_values": [1, 3]})
    assert result.score == pytest.approx(4 / 3)
    assert result.normalized == pytest.approx(4 / 9)
    d = result.details
    assert (d["precision@1"], d["precision@3"], d["ap@1"], d["ap@3"], d["mrr"]) == pytest.approx(
        (0, 1 / 3, 0, 1 / 3, 1 / 3)
    )
    assert [p["grade"] for p in result.evidence_dict()["passages"]] == [0, 1, 3]


def test_tonic_retrieval_and_augmentation(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("RelevanceVerdict", ("Bananas",), fixed({"reasoning": "r", "relevant": False})),
            ("RelevanceVerdict", (), fixed({"reasoning": "r", "relevant": True})),
            ("UsedVerdict", ("330 metres",), fixed({"reasoning": "r", "used": False})),
            ("UsedVerdict", (), fixed({"reasoning": "r", "used": True})),
        ]
    )
    assert judged(server, router, metric("retrieval_precision"), SAMPLE).score == pytest.approx(2 / 3)
    precision = judged(server, router, metric("augmentation_precision"), SAMPLE)
    assert precision.score == 0.5 and precision.calls.live == 3 + 2
    assert judged(server, router, metric("augmentation_accuracy"), SAMPLE).score == pytest.approx(2 / 3)
    none_relevant = Router([("RelevanceVerdict", (), fixed({"reasoning": "r", "relevant": False}))])
    with pytest.raises(InputError, match="no retrieved passage"):
        judged(server, none_relevant, metric("augmentation_precision"), SAMPLE)


def test_answer_consistency_and_its_binary_form(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("ClaimList", (), fixed({"claims": ["done in 1889", "330 m tall", "painted red"]})),
            ("AttributableVerdict", ("painted red",), fixed({"reasoning": "r", "attributable": False})),
            ("AttributableVerdict", (), fixed({"reasoning": "r", "attributable": True})),
            (
                "BinaryConsistencyVerdict",
                (),
                fixed(
                    {
                        "reasoning": "r",
                        "unsupported_information": ["painted red"],
                        "has_unsupported_information": True,
                    }
                ),
            ),
        ]
    )
    result = judged(server, router, metric("answer_consistency"), SAMPLE)
    assert result.score == pytest.approx(2 / 3) and result.calls.live == 4
    assert result.evidence_dict()["unsupported_statements"] == ["painted red"]
    assert judged(server, router, metric("answer_consistency_binary"), SAMPLE).score == 0.0


def test_answer_similarity_normalises_by_five(server: FakeLLMServer) -> None:
    router = Router([("SimilarityVerdict", (), fixed({"reasoning": "r", "differences": [], "score": 4}))])
    result = judged(server, router, metric("answer_similarity"), SAMPLE)
    assert (result.score, result.normalized, result.scale) == (4, 0.8, "0-5")


def test_factual_correctness_precision_recall_f1_and_both_claim_lists(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("ClaimList", ("<answer>\n",), fixed({"claims": ["a1", "a2", "a3"]})),
            ("ClaimList", ("<reference>\n",), fixed({"claims": ["r1", "r2"]})),
            (
                "EntailmentChecks",
                ("a1",),
                fixed(
                    {
                        "verdicts": [
                            {"index": 1, "reasoning": "r", "verdict": "entailment"},
                            {"index": 2, "reasoning": "r", "verdict": "contradiction"},
                            {"index": 3, "reasoning": "r", "verdict": "neutral"},
                        ]
                    }
                ),
            ),
            ("EntailmentChecks", ("r1",), fixed(verdicts(2, verdict="entailment"))),
        ]
    )
    result = judged(server, router, metric("factual_correctness"), SAMPLE)
    p, r = 1 / 3, 1.0
    assert result.score == pytest.approx(2 * p * r / (p + r))
    assert (result.details["precision"], result.details["recall"]) == pytest.approx((p, r))
    evidence = result.evidence_dict()
    assert [c["verdict"] for c in evidence["generated_claims"]] == ["entailment", "contradiction", "neutral"]
    assert [c["claim"] for c in evidence["expected_claims"]] == ["r1", "r2"]
    assert result.calls.live == 4


def test_nuggets_create_label_assign_and_score(server: FakeLLMServer) -> None:
    nuggets = ["built 1889", "330 m tall", "in Paris"]
    importance = {"built 1889": "vital", "330 m tall": "okay", "in Paris": "vital"}
    support = {"built 1889": "support", "330 m tall": "partial_support", "in Paris": "not_support"}

    def label(field: str, table: Mapping[str, str]) -> Callable[[RecordedRequest], Reply]:
        def reply(request: RecordedRequest) -> Reply:
            user = request.json_body["messages"][1]["content"]
            user = user[user.index("<nuggets") :]
            shown = sorted((user.index(n), n) for n in nuggets if n in user)
            return Reply.json(
                {"labels": [{"index": i, field: table[n]} for i, (_, n) in enumerate(shown, 1)]}
            )

        return reply

    router = Router(
        [
            ("NuggetList", (), fixed({"nuggets": nuggets})),
            ("ImportanceLabels", (), label("importance", importance)),
            ("AssignmentLabels", (), label("assignment", support)),
        ]
    )
    result = judged(
        server, router, metric("nuggets"), SAMPLE, {"umbrela_grades": [3, 0, 2], "score": "weighted"}
    )
    # vital: support 1.0 and not_support 0.0; okay: partial 0.5 at half weight
    assert result.score == pytest.approx((1.0 + 0.0 + 0.5 * 0.5) / (2 + 0.5 * 1))
    assert result.details["vital"] == 0.5
    assert result.details["strict_all"] == pytest.approx(1 / 3)
    assert result.details["all"] == pytest.approx(0.5)
    evidence = result.evidence_dict()
    assert [n["text"] for n in evidence["nuggets"]] == ["built 1889", "in Paris", "330 m tall"]  # vital first
    assert evidence["creation_passages"] == [1, 3] and evidence["creation_rounds"] == 2
    assert result.calls.live == 2 + 1 + 1  # two creation rounds (the second changed nothing)
    unrelated = Router([*router.rules, ("UmbrelaVerdict", (), fixed({"reasoning": "r", "score": 0}))])
    with pytest.raises(InputError, match="nothing to build nuggets from"):
        judged(server, unrelated, metric("nuggets"), SAMPLE)


def test_citation_weighted_precision_recall_f1(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("CitationVerdict", ("Bananas", "tall"), fixed({"reasoning": "r", "support": "no_support"})),
            ("CitationVerdict", ("1889", "built"), fixed({"reasoning": "r", "support": "full_support"})),
            ("CitationVerdict", ("330", "tall"), fixed({"reasoning": "r", "support": "partial_support"})),
        ]
    )
    parts = [
        {"text": "It was built in 1889.", "citations": ["p1"]},
        {"text": "It is very tall.", "citations": ["p3", 2]},
        ("It is iron.", []),
    ]
    result = judged(server, router, metric("citation"), SAMPLE, {"citations": parts})
    precision, recall = (1 + 0.5 + 0) / 3, (1 + 0.25 + 0) / 3
    assert result.score == pytest.approx(2 * precision * recall / (precision + recall))
    assert result.calls.live == 3
    with pytest.raises(InputError, match="'p9'"):
        judged(server, router, metric("citation"), SAMPLE, {"citations": [("x", ["p9"])]})


def test_hallucination_and_no_answer(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("ConsistencyScore", (), fixed({"reasoning": "r", "unsupported_statements": [], "score": 0.75})),
            ("AttemptVerdict", (), fixed({"reasoning": "r", "attempted": False})),
        ]
    )
    assert judged(server, router, metric("hallucination"), SAMPLE).score == 0.75
    assert judged(server, router, metric("no_answer"), SAMPLE).score == 0.0
    empty = judged(server, router, metric("no_answer"), Sample(question="q?", answer=""))
    assert empty.score == 0.0 and empty.calls.live == 0


def test_an_unparseable_reply_becomes_a_judge_error_never_a_score(server: FakeLLMServer) -> None:
    router = Router([("ConsistencyScore", (), garbage)])
    with pytest.raises(JudgeError) as caught:
        judged(server, router, metric("hallucination"), SAMPLE)
    assert caught.value.raw_reply == "I think the score is five, honestly."
    assert len(server.requests) == 2  # the reply and its one repair attempt


def test_answer_accuracy_swaps_roles_and_averages(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("AccuracyRating", ("candidate reply",), fixed({"reasoning": "r", "score": 2})),
            ("AccuracyRating", (), fixed({"reasoning": "r", "score": 4})),
        ]
    )
    result = judged(server, router, metric("answer_accuracy"), SAMPLE)
    assert (result.score, result.normalized) == (3.0, 0.75)
    users = {
        json.dumps(r.json_body["messages"][0]): r.json_body["messages"][1]["content"] for r in server.requests
    }
    first, second = sorted(users.values(), key=lambda u: u.index("<response>"))
    assert first != second
    for user in users.values():
        response = user.split("<response>")[1].split("</response>")[0]
        assert ("1889 and is 330" in response) != ("The Eiffel Tower was completed" in response)
    responses = {u.split("<response>")[1].split("</response>")[0].strip() for u in users.values()}
    assert responses == {SAMPLE.answer, SAMPLE.reference}


def test_dual_template_falls_back_to_the_one_valid_rating(server: FakeLLMServer) -> None:
    router = Router(
        [
            ("ThreeLevelRating", ("search system",), garbage),
            ("ThreeLevelRating", (), fixed({"reasoning": "r", "score": 1})),
        ]
    )
    result = judged(server, router, metric("context_relevance"), SAMPLE)
    assert (result.score, result.normalized) == (1.0, 0.5)
    ratings = result.evidence_dict()["ratings"]
    assert ratings[0]["rating"] == 1 and ratings[1]["rating"] is None and ratings[1]["error"]
    # the failed rating's two replies (the garbage and its repair) were sent and are counted with the check
    assert (result.calls.attempts, result.calls.failures) == (3, {"invalid": 2})
    both_bad = Router([("ThreeLevelRating", (), garbage)])
    with pytest.raises(JudgeError):
        judged(server, both_bad, metric("response_groundedness"), SAMPLE)


def test_rubric_scale_comes_from_the_user_levels(server: FakeLLMServer) -> None:
    rubric = {1: "wrong", 3: "right but incomplete", 5: "right and complete"}
    router = Router([("RubricVerdict", ("3 - right but incomplete",), fixed({"reasoning": "r", "score": 3}))])
    result = judged(server, router, metric("rubric"), SAMPLE, {"rubric": rubric})
    assert (result.score, result.scale, result.normalized) == (3, "1-5", 0.5)
    off_level = Router([("RubricVerdict", (), fixed({"reasoning": "r", "score": 4}))])
    with pytest.raises(JudgeError):
        judged(server, off_level, metric("rubric"), SAMPLE, {"rubric": rubric})


def test_consistency_pairs_answers_by_rouge_and_embeddings(server: FakeLLMServer) -> None:
    answers = ["the tower is tall", "the tower is tall", "bananas"]
    vectors = {"the tower is tall": [1.0, 0.0], "bananas": [0.0, 1.0]}
    result = judged(
        server,
        Router([], vectors),
        metric("consistency"),
        Sample(),
        {"answers": answers, "scores": {"f": [4, 5, 3]}},
    )
    assert result.score == pytest.approx(1 / 3)  # cosines 1, 0, 0
    assert result.details["rouge1_f1"] == pytest.approx(1 / 3)
    assert (result.details["f.mean"], result.details["f.variance"], result.details["f.cv"]) == pytest.approx(
        (4, 1, 0.25)
    )
    assert result.calls.live == 1
