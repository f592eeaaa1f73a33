"""A prompt the server cut to its context window is a judge error naming num_ctx, never a verdict.

Ollama's OpenAI endpoint cannot be given ``num_ctx`` per request; a prompt longer than the model's
window is cut from the front without an error (the instructions go first), and the model answers
what is left. The fake server does the same with ``context_window``; the judge sees it in the usage
the server reports and says what to raise.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import FixedScoreResponder, rag_args, verdict
from fake_llm import FakeLLMServer, Reply
from judge_requests import GradeVerdict, complete_each, grading_request
from pytest_rag.errors import JudgeError
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.judges.request import REPAIR_SUFFIX

PAGE = "Refunds are processed within five business days of approval, and paid to the card. " * 250
"""About 21,000 characters: some 5,200 tokens by the quarter-of-characters estimate."""


@pytest.fixture
def small_window(judge_env: None) -> Iterator[FakeLLMServer]:
    """A server like Ollama serving a model with num_ctx 2048."""
    with FakeLLMServer(FixedScoreResponder(4), context_window=2048) as server:
        yield server
        assert not server.errors


def ollama_judge(server: FakeLLMServer) -> OpenAIChatJudge:
    return OpenAIChatJudge(JudgeSpec("ollama", "fake-gpt", server.openai_base_url), timeout_s=5.0)


def test_a_prompt_cut_to_the_window_is_a_judge_error_naming_num_ctx(small_window: FakeLLMServer) -> None:
    with pytest.raises(JudgeError) as info:
        complete_each(ollama_judge(small_window), grading_request(GradeVerdict, PAGE))
    error = info.value
    assert error.kind == "prompt cut"
    message = str(error)
    assert "read 2,048 prompt tokens of a prompt of about 5,199" in message
    assert "num_ctx" in message and "OLLAMA_CONTEXT_LENGTH" in message and "PARAMETER num_ctx" in message


def test_a_prompt_that_fits_the_window_is_read_as_usual(small_window: FakeLLMServer) -> None:
    fits = PAGE[:7000]  # about 1,750 tokens: inside the window
    (reply,) = complete_each(ollama_judge(small_window), grading_request(GradeVerdict, fits))
    assert '"score": 4' in reply.text


def test_a_long_prompt_read_whole_is_not_taken_for_a_cut_one(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(verdict(5))
    judge = OpenAIChatJudge(JudgeSpec("openai", "fake-gpt", fake_llm.openai_base_url), timeout_s=5.0)
    (reply,) = complete_each(judge, grading_request(GradeVerdict, PAGE * 4))
    assert reply.input_tokens > 20_000 and '"score": 5' in reply.text


def completion(prompt_tokens: int, cached_tokens: int) -> dict[str, object]:
    """A chat completion whose usage says how many prompt tokens were read, and how many of them the
    server had cached."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "fake-gpt",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": '{"reasoning": "r", "score": 4}'},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 9,
            "total_tokens": prompt_tokens + 9,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def test_tokens_the_server_had_cached_count_as_read(fake_llm: FakeLLMServer) -> None:
    """A server that leaves the tokens it had in its cache out of ``prompt_tokens`` but reports them as
    cached read the whole prompt."""
    fake_llm.script(Reply.status(200, body=completion(300, 5000)), Reply.status(200, body=completion(300, 0)))
    judge = ollama_judge(fake_llm)
    (reply,) = complete_each(judge, grading_request(GradeVerdict, PAGE))
    assert '"score": 4' in reply.text
    with pytest.raises(JudgeError, match="num_ctx"):
        complete_each(ollama_judge(fake_llm), grading_request(GradeVerdict, PAGE))


def test_a_repeat_or_a_repair_of_a_prompt_is_not_checked_again(small_window: FakeLLMServer) -> None:
    """Their prompt begins with one the server has just read, which a server may count as cached
    without a word; the first request of that prompt is the one checked."""
    first = grading_request(GradeVerdict, PAGE)
    repair = replace(first, template_id=first.template_id + REPAIR_SUFFIX)
    repeat, repaired = complete_each(ollama_judge(small_window), first.with_repeat(1), repair)
    assert '"score": 4' in repeat.text and '"score": 4' in repaired.text


GROUNDED = f"""
def test_grounded(rag_judge):
    rag_judge.assert_faithful("Refunds take five business days.", [{PAGE!r}], threshold=1)
"""


def test_a_cut_prompt_makes_the_test_an_error_and_is_counted(
    pytester: pytest.Pytester, small_window: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(GROUNDED)
    result = pytester.runpytest(*rag_args(small_window, tmp_path / "c", judge="ollama:fake-gpt"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*it cut the prompt to fit its context window (num_ctx)*"])
    result.stdout.fnmatch_lines(["*requests: 1 sent, 1 failed (1 prompt cut)*"])
    # nothing cut was cached: the next run asks again
    again = pytester.runpytest(*rag_args(small_window, tmp_path / "c", judge="ollama:fake-gpt"))
    again.assert_outcomes(errors=1)
    assert small_window.request_count == 2
