"""The fake server's scripted odds of a value, seen through the real ``openai`` SDK: what the grade
tests of pytest-rag rely on to give exact expected values."""

from __future__ import annotations

import math
from collections.abc import Iterator

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from fake_llm import FakeLLMServer, Reply

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Grade the answer."}]


@pytest.fixture
def client() -> Iterator[tuple[FakeLLMServer, openai.OpenAI]]:
    with (
        FakeLLMServer() as server,
        openai.OpenAI(base_url=server.openai_base_url, api_key="sk-test", max_retries=0) as sdk,
    ):
        yield server, sdk


def test_scripted_odds_reach_the_sdk_as_the_value_tokens_top_logprobs(
    client: tuple[FakeLLMServer, openai.OpenAI],
) -> None:
    server, sdk = client
    server.script(Reply.json({"reasoning": "fine", "score": 4}, odds={"score": {4: 0.6, 5: 0.3, 3: 0.1}}))
    completion = sdk.chat.completions.create(model="gpt-test", messages=USER, logprobs=True, top_logprobs=2)
    choice = completion.choices[0]
    assert choice.logprobs is not None and choice.logprobs.content is not None
    tokens = choice.logprobs.content
    assert "".join(t.token for t in tokens) == choice.message.content == '{"reasoning": "fine", "score": 4}'
    (grade,) = [t for t in tokens if t.token == "4"]
    assert grade.logprob == pytest.approx(math.log(0.6))
    assert [t.token for t in grade.top_logprobs] == ["4", "5"]  # the two most likely, as asked
    assert [t.logprob for t in grade.top_logprobs] == pytest.approx([math.log(0.6), math.log(0.3)])
    others = [t for t in tokens if t is not grade]
    assert all(t.logprob == 0.0 and [a.token for a in t.top_logprobs] == [t.token] for t in others)
    assert all(bytes(t.bytes or []) == t.token.encode() for t in tokens)


def test_logprobs_come_only_when_asked_for_and_scripted(client: tuple[FakeLLMServer, openai.OpenAI]) -> None:
    server, sdk = client
    server.script(Reply.json({"score": 4}, odds={"score": {4: 1.0}}), Reply.json({"score": 4}))
    unasked = sdk.chat.completions.create(model="gpt-test", messages=USER)
    unscripted = sdk.chat.completions.create(model="gpt-test", messages=USER, logprobs=True, top_logprobs=5)
    assert unasked.choices[0].logprobs is None
    assert unscripted.choices[0].logprobs is None  # as from a server that ignores the parameter


def test_bad_odds_fail_where_they_are_written() -> None:
    with pytest.raises(ValueError, match="not a top-level key"):
        Reply.json({"score": 4}, odds={"grade": {4: 1.0}})
    with pytest.raises(ValueError, match="probability of its value 4"):
        Reply.json({"score": 4}, odds={"score": {5: 1.0}})
    with pytest.raises(ValueError, match="summing to at most 1"):
        Reply.json({"score": 4}, odds={"score": {4: 0.8, 5: 0.8}})
