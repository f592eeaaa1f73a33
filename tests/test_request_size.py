"""A request above ``--rag-max-request-chars`` is refused before it is sent, by every provider's path.

A 5 MB context was sent as it was. The guard sits in the engine, where every provider's request
passes (a live call, a request queued for a provider batch, a repair, the dry run's count), so each
path is run here against the fake server through the real SDKs: nothing reaches the server, and the
check is an error naming the size, the limit and what to do.
"""

from __future__ import annotations

import pytest

from conftest import rag_args, verdict
from fake_llm import FakeLLMServer

BIG = """
def test_whole_document(rag_judge):
    rag_judge.faithfulness("Refunds take five days.", ["Refunds take five days. " * 210_000])
"""
CONTEXT_CHARS = len("Refunds take five days. " * 210_000)


@pytest.mark.parametrize(
    ("judge", "extra"),
    [
        ("openai:fake-gpt", ()),
        ("anthropic:fake-claude", ()),
        ("ollama:fake-llama", ()),  # an OpenAI-compatible server
        ("openai:fake-gpt", ("--rag-batch",)),
        ("anthropic:fake-claude", ("--rag-batch",)),
        ("openai:fake-gpt", ("--rag-dry-run",)),
    ],
)
def test_a_request_above_the_limit_is_not_sent_by_any_path(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, judge: str, extra: tuple[str, ...]
) -> None:
    pytester.makepyfile(test_big=BIG)
    result = pytester.runpytest(*rag_args(fake_llm, pytester.path / "cache", *extra, judge=judge))
    output = result.stdout.str()
    result.assert_outcomes(errors=1)
    assert fake_llm.request_count == 0  # not sent, not queued, not uploaded in a batch
    assert (
        f"most of it the contexts ({CONTEXT_CHARS:,} characters), more than the 1,000,000 a request may hold"
        in output
    )
    assert "(--rag-max-request-chars); it was not sent. Pass shorter contexts" in output
    assert "raise the limit with --rag-max-request-chars=N (ini rag_max_request_chars)" in output
    assert "1 RequestTooLargeError" in output


def test_the_limit_is_a_setting(pytester: pytest.Pytester, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(verdict(5))
    pytester.makepyfile(test_big=BIG)
    raised = pytester.runpytest(
        *rag_args(fake_llm, pytester.path / "cache", "--rag-max-request-chars=6000000")
    )
    raised.assert_outcomes(passed=1)
    assert fake_llm.request_count == 1
    pytester.makeini("[pytest]\nrag_max_request_chars = 1000\n")
    small = pytester.makepyfile(
        test_small='def test_small(rag_judge):\n    rag_judge.faithfulness("Refunds take five days.", ["x " * 600])\n'
    )
    lowered = pytester.runpytest(*rag_args(fake_llm, pytester.path / "cache2"), str(small))
    lowered.assert_outcomes(errors=1)
    assert "more than the 1,000 a request may hold" in lowered.stdout.str()
    assert fake_llm.request_count == 1
