"""Why a replay missed, when the store holds a request alike in every part its identity keeps."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import rag_args, relevancy_verdict, verdict
from fake_llm import FakeLLMServer
from pytest_rag.engine.replay import StoredRequests

STORED: dict[str, Any] = {
    "provider": "openai",
    "model": "gpt-4o",
    "base_url": "https://llm.example/v1",
    "judge": "",
    "template": "faithfulness.single",
    "version": "1",
    "inputs": "1260cb08c2c41769",
    "messages": "664927554f55c500",
    "schema": "c03454cdba319238",
    "sampling": {"temperature": 0.0, "max_tokens": 1024, "seed": None},
    "repeat": 0,
}


def test_a_request_alike_but_asked_for_another_metric_names_the_metrics() -> None:
    store = StoredRequests([{**STORED, "metric": "faithfulness"}], 1, "store")
    assert store.why_missing({**STORED, "metric": "my_faithfulness"}) == (
        "the store has this request for metric faithfulness, not my_faithfulness"
    )


def test_a_request_alike_in_all_that_is_kept_points_at_what_is_not() -> None:
    store = StoredRequests([{**STORED, "metric": "faithfulness"}], 1, "store")
    reason = store.why_missing({**STORED, "metric": "faithfulness"})
    assert reason.startswith("the store has this very request (same judge, prompt, inputs and sampling)")
    assert "another pytest-rag version keyed it" in reason and "none of these inputs" not in reason


def test_another_inputs_digest_still_says_the_inputs_changed() -> None:
    store = StoredRequests([{**STORED, "metric": "faithfulness"}], 1, "store")
    reason = store.why_missing({**STORED, "inputs": "0000000000000000", "metric": "faithfulness"})
    assert "none of these inputs" in reason


REPLAYED = """
import os

ANSWER = os.environ.get("ANSWER", "Refunds take five days.")

def test_grounded(rag_judge):
    rag_judge.faithfulness(ANSWER, ["Refunds take five business days."])

def test_relevant(rag_judge):
    rag_judge.answer_relevancy(ANSWER, question="How long do refunds take?")
"""


def test_a_miss_after_an_input_change_names_only_the_inputs_the_request_holds(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A miss names the inputs its request holds, not every input its metric can take: faithfulness
    asked without a question holds the answer and the contexts only, so its miss must not name one;
    answer relevancy holds no contexts."""
    fake_llm.script(verdict(5), relevancy_verdict(5))
    pytester.makepyfile(REPLAYED)
    cache = pytester.path / "cache"
    assert pytester.runpytest(*rag_args(fake_llm, cache)).ret == 0
    monkeypatch.setenv("ANSWER", "Refunds take a week.")
    result = pytester.runpytest(*rag_args(fake_llm, cache, "--rag-cache=replay"))
    output = result.stdout.str()
    assert "by faithfulness.single, none of these inputs (the answer or contexts changed since" in output
    assert "by answer_relevancy.single, none of these inputs (the question or answer changed since" in output
    assert "the answer, contexts or question changed" not in output
    assert fake_llm.request_count == 2
