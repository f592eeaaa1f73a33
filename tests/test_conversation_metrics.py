"""The conversation metrics and the case expectations: the offline judge's rules (a turn read with
the turns before it, contradictions of earlier statements), passage recall's matching, abstention,
and an LLM judge asked through the real SDK against the fake server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.evaluation import evaluate
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.errors import InputError
from pytest_rag.inputs import Chunk, Sample
from pytest_rag.judges.local.dialogue import leans_on_history, question_with_topic, standalone_question
from pytest_rag.judges.local.judge import LocalJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.metrics.catalog import builtin_metrics
from pytest_rag.results import MetricResult

FEES = ["Refunds are free of charge. Exchanges are not free of charge: a fee of 5 EUR applies."]
EXCHANGE = [
    {"role": "user", "content": "Can I exchange a gift?"},
    {"role": "assistant", "content": "Yes, gifts can be exchanged within 30 days."},
]
ORDER = [
    {"role": "user", "content": "My order number is 4521. I live in Porto."},
    {"role": "assistant", "content": "Thank you, I found your order."},
]
PRICES = [
    {"role": "user", "content": "How much is the Pro plan?"},
    {"role": "assistant", "content": "The Pro plan costs $12 per month and includes priority support."},
]


def offline(name: str, sample: Sample, **options: Any) -> MetricResult:
    metric = next(m for m in builtin_metrics() if m.name == name)()
    metric.check_options(options)
    return asyncio.run(
        evaluate(
            JudgmentEngine(JudgmentCache(Path("unused"), "off")),
            metric,
            sample,
            options,
            judges=[LocalJudge(JudgeSpec("local", "", None))],
            repeats=1,
            threshold=None,
            test_id="t",
            cache_only=True,
        )
    )


def test_a_pronoun_is_read_as_what_the_earlier_turn_talked_about() -> None:
    assert standalone_question("Is it free of charge?", [list(m.values()) for m in EXCHANGE], FEES) == (
        "Is exchange free of charge?"
    )
    assert standalone_question("Is it free of charge?", [], FEES) == "Is it free of charge?"
    assert (
        standalone_question("How long do refunds take?", [["user", "Hi"]], FEES)
        == "How long do refunds take?"
    )
    assert question_with_topic("And on Sundays?", [["user", "When is the office open?"]]) == (
        "When is the office open? And on Sundays?"
    )
    assert [
        leans_on_history(q) for q in ("And on Sundays?", "What about that one?", "How long do refunds take?")
    ] == [
        True,
        True,
        False,
    ]


def test_turn_faithfulness_judges_a_bare_yes_by_what_the_conversation_asked() -> None:
    sample = Sample(question="Is it free of charge?", answer="Yes.", contexts=(Chunk(FEES[0]),))
    with_history = offline("turn_faithfulness", sample, history=EXCHANGE)
    without = offline("turn_faithfulness", sample, history=[])
    assert with_history.score == 1 and "negation reversed" in with_history.reasons
    assert without.score == 5  # "it" read alone matches the refunds, which are free
    assert with_history.evidence_dict()["statements"] == ["exchange is free of charge."]


def test_turn_relevancy_reads_a_follow_up_with_the_question_before_it() -> None:
    sample = Sample(question="Does it cost anything?", answer="Refunds are free of charge.")
    history = [
        {"role": "user", "content": "How long do refunds take?"},
        {"role": "assistant", "content": "Five days."},
    ]
    assert (
        offline("turn_relevancy", sample, history=history).score
        > offline("turn_relevancy", sample, history=[]).score
    )


@pytest.mark.parametrize(
    ("answer", "retains"),
    [
        ("Your order 4521 was shipped yesterday. It will arrive in 5 days.", True),
        ("Your order 4517 was shipped yesterday.", False),
        ("Since you live in Lisbon, delivery takes two days.", False),
        ("Could you tell me your order number?", False),
        ("Delivery to Porto takes two days.", True),
    ],
)
def test_knowledge_retention_fails_an_answer_that_contradicts_or_forgets_what_the_user_said(
    answer: str, retains: bool
) -> None:
    result = offline(
        "knowledge_retention", Sample(question="Where is my parcel?", answer=answer), history=ORDER
    )
    assert result.score == (1.0 if retains else 0.0)
    assert bool(result.evidence_dict()["statements"]) is not retains


@pytest.mark.parametrize(
    ("answer", "consistent"),
    [
        ("The Pro plan costs $15 per month.", False),
        ("The Pro plan does not include priority support.", False),
        ("Pro also includes 2 TB of storage.", True),
        ("Yes, the Pro plan costs $12 per month.", True),
    ],
)
def test_conversation_consistency_fails_an_answer_that_contradicts_an_earlier_one(
    answer: str, consistent: bool
) -> None:
    result = offline(
        "conversation_consistency", Sample(question="Tell me more.", answer=answer), history=PRICES
    )
    assert result.score == (1.0 if consistent else 0.0)


def test_conversation_metrics_refuse_a_malformed_history_or_one_without_what_they_compare() -> None:
    sample = Sample(question="q?", answer="a.")
    with pytest.raises(InputError, match="history message 2 must be a mapping with 'role'"):
        offline(
            "turn_relevancy",
            sample,
            history=[{"role": "user", "content": "hi"}, {"role": "bot", "content": "x"}],
        )
    with pytest.raises(InputError, match="history must be a list of messages"):
        offline("turn_relevancy", sample, history="hi")
    with pytest.raises(InputError, match="conversation_consistency needs earlier assistant messages"):
        offline("conversation_consistency", sample, history=[{"role": "user", "content": "hi"}])


POLICY = Chunk("Refunds are processed within five business days of approval.", id="refunds.md#1")
HOURS = Chunk("Our office is closed on public holidays and on Sundays.", id="hours.md#1")


def test_passage_recall_finds_expected_passages_by_id_or_by_text_in_other_cuts() -> None:
    sample = Sample(contexts=(HOURS, Chunk("Intro. " + POLICY.text + " Exchanges take longer.")))
    by_text = offline("passage_recall", sample, expected=[{"text": POLICY.text}])
    assert by_text.score == 1.0 and by_text.details == {"expected": 1.0, "found": 1.0, "reciprocal_rank": 0.5}
    by_id = offline(
        "passage_recall", Sample(contexts=(HOURS, POLICY)), expected=["refunds.md#1", "fees.md#2"]
    )
    assert by_id.score == 0.5 and "Missed: 'fees.md#2'" in by_id.reasons
    assert by_id.evidence_dict()["expected"][0]["rank"] == 2
    piece = Chunk("Refunds are processed within five business days of approval. Approval takes a day.")
    long_passage = {"text": POLICY.text + " Approval takes a day. Payment goes to the original card."}
    assert offline("passage_recall", Sample(contexts=(piece,)), expected=[long_passage]).score == 1.0
    assert offline("passage_recall", Sample(), expected=["refunds.md#1"]).score == 0.0
    with pytest.raises(InputError, match="carry no ids"):
        offline("passage_recall", Sample(contexts=(Chunk(POLICY.text),)), expected=["refunds.md#1"])
    with pytest.raises(InputError, match="needs the passages retrieval should find"):
        offline("passage_recall", Sample(contexts=(POLICY,)), expected=[])


def test_abstention_is_one_when_the_app_declines() -> None:
    question = "Is there a student discount?"
    assert (
        offline(
            "abstention", Sample(question=question, answer="I don't know; the documents do not say.")
        ).score
        == 1
    )
    assert offline("abstention", Sample(question=question, answer="Yes, students get 20% off.")).score == 0
    empty = offline("abstention", Sample(question=question, answer=""))
    assert empty.score == 1 and empty.calls.offline == 0


CONVERSATION_TEST = """
HISTORY = [
    {"role": "user", "content": "My order number is 4521."},
    {"role": "assistant", "content": "Thanks, I found order 4521."},
]

def test_turn(rag_judge):
    rag_judge.assert_turn_faithful("It arrives in 5 days.", ["Delivery takes 5 days."], HISTORY,
                                   question="When does it arrive?")
    rag_judge.assert_turn_relevant("It arrives in 5 days.", "When does it arrive?", HISTORY)
    rag_judge.assert_knowledge_retained("Order 4521 arrives in 5 days.", HISTORY)
    rag_judge.assert_conversation_consistent("Order 4521 arrives in 5 days.", HISTORY)
"""


def test_an_llm_judge_sees_the_earlier_messages_as_fenced_data(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    def verdicts(request: RecordedRequest) -> Reply:
        fields = request.json_body["response_format"]["json_schema"]["schema"]["properties"]
        body: dict[str, Any] = {name: [] for name in fields if name not in ("reasoning", "score")}
        body.update(reasoning="checked", score=5, retains=True, consistent=True)
        return Reply.json({name: body[name] for name in fields})

    fake_llm.responder = verdicts
    pytester.makepyfile(CONVERSATION_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"))
    result.assert_outcomes(passed=1)
    assert fake_llm.request_count == 4
    for request in fake_llm.requests:
        user = request.json_body["messages"][-1]["content"]
        assert user.startswith('<message index="1" role="user">\nMy order number is 4521.\n</message>\n')
        assert '<message index="2" role="assistant">\nThanks, I found order 4521.\n</message>' in user
    systems = [r.json_body["messages"][0]["content"] for r in fake_llm.requests]
    assert (
        sum("never evidence" in s for s in systems) == 1
    )  # turn faithfulness: history resolves, never supports
    result.stdout.fnmatch_lines(["knowledge_retention*openai:fake-gpt*0-1*1*1.00*100% (1/1)*"])
