"""Text that cannot be encoded is the input's error, told at the user's line before any request.

A lone surrogate (``"\\udcff"``, left by bytes decoded with ``errors="surrogateescape"``) has no UTF-8
form, so no request holding it can be sent. The OpenAI judge used to retry it five times and then
blame the base URL; every judge now refuses it where inputs are read, naming the field and where in
it the character is, and nothing reaches the server.
"""

from __future__ import annotations

import pytest

from conftest import rag_args, verdict
from fake_llm import FakeLLMServer
from pytest_rag.errors import InputError
from pytest_rag.inputs import Chunk, Sample, coerce_sample

ANSWER = "Refunds take five days.\udcff"


@pytest.mark.parametrize(
    ("build", "named"),
    [
        (lambda: Sample(answer=ANSWER), "Sample answer holds a character that cannot be encoded: '\\udcff' at index 23"),
        (lambda: Sample(question="Why\ud800?"), "Sample question holds a character that cannot be encoded: '\\ud800' at index 3"),
        (lambda: Sample(contexts=["fine", "bad \udc80 text"]), "context item 2 holds a character that cannot be encoded: '\\udc80' at index 4"),
        (lambda: Sample(contexts=[Chunk("ok"), {"text": "\udcff"}]), "context item 2 holds"),
        (lambda: Sample(reference="ref \udcff"), "Sample reference holds"),
        (lambda: coerce_sample({"answer": "a", "contexts": "x\udcffy"}), "context item 1 holds"),
        (lambda: Chunk("by hand \udcff"), "Chunk text holds a character that cannot be encoded: '\\udcff' at index 8"),
    ],
)  # fmt: skip
def test_the_error_names_the_field_and_the_index(build: object, named: str) -> None:
    with pytest.raises(InputError) as info:
        build()  # type: ignore[operator]
    message = str(info.value)
    assert message.startswith(named), message
    assert "lone surrogate" in message and "errors='replace'" in message


def test_text_that_encodes_is_untouched() -> None:
    sample = Sample(question="Où?", answer="Ça prend 5 jours 🙂", contexts=["日本語のテキスト"])
    assert (sample.question, sample.answer, sample.contexts[0].text) == (
        "Où?",
        "Ça prend 5 jours 🙂",
        "日本語のテキスト",
    )


SUITE = """
def test_helper(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.\\udcff", ["Refunds take five days."], threshold=3)

def test_evaluate(rag_judge):
    rag_judge.evaluate([{"question": "q", "answer": "a", "contexts": ["ctx \\ud800"]}], metrics=["faithfulness"])

def test_history(rag_judge):
    rag_judge.turn_relevancy("Yes.", question="And then?", history=[{"role": "user", "content": "hi\\udcff"}])
"""


@pytest.mark.parametrize("judge", ["openai:fake-gpt", "anthropic:fake-claude", "local"])
def test_no_judge_is_sent_it_and_the_test_errors_at_the_users_line(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, judge: str
) -> None:
    fake_llm.script(*[verdict(5)] * 10)
    pytester.makepyfile(test_texts=SUITE)
    result = pytester.runpytest(*rag_args(fake_llm, pytester.path / "cache", judge=judge))
    output = result.stdout.str()
    result.assert_outcomes(errors=3)  # a check refused before any judge: an error, never a failure
    assert fake_llm.request_count == 0  # nothing was sent, and nothing retried
    assert "answer holds a character that cannot be encoded: '\\udcff' at index 23" in output
    assert "context item 1 holds a character that cannot be encoded: '\\ud800' at index 4" in output
    assert (
        "history message 1 content holds a character that cannot be encoded: '\\udcff' at index 2" in output
    )
    assert "base URL" not in output and "proxy" not in output
    assert 'rag_judge.assert_faithful("Refunds take five days.\\udcff"' in output  # the user's line
