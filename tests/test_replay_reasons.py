"""Why a replay missed, when the store holds a request alike in every part its identity keeps."""

from __future__ import annotations

from typing import Any

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
