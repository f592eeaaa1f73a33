"""Estimated dollars: longest model-name prefix wins, ini lines override, free judges cost nothing."""

from __future__ import annotations

import re

import pytest

from pytest_rag.engine.pricing import PriceTable, usd
from pytest_rag.engine.spending import Estimate
from pytest_rag.errors import ConfigError
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.report.summary import calls_line, estimate_text
from pytest_rag.results import CallTally


def test_the_longest_matching_model_prefix_sets_the_price() -> None:
    table = PriceTable()
    # gpt-4o-mini must not be priced as gpt-4o, its prefix: 1M in + 1M out = 0.15 + 0.60
    assert table.cost(JudgeSpec("openai", "gpt-4o-mini-2024-07-18"), 1_000_000, 1_000_000) == pytest.approx(
        0.75
    )
    assert table.cost(JudgeSpec("openai", "gpt-4o-2024-08-06"), 1_000_000, 0) == pytest.approx(2.50)


def test_embedding_models_are_priced_on_input_tokens() -> None:
    assert PriceTable().cost(JudgeSpec("openai", "text-embedding-3-small"), 500_000, 0) == pytest.approx(0.01)


def test_ini_lines_override_and_add_models() -> None:
    table = PriceTable.from_ini_lines(["# comment", "gpt-4o = 1, 2", "my-finetune = 0.5, 0.5", ""])
    assert table.cost(JudgeSpec("openai", "gpt-4o"), 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert table.known(JudgeSpec("openai", "my-finetune-v2"))


def test_free_providers_cost_nothing_and_unknown_models_are_not_known() -> None:
    table = PriceTable()
    assert table.cost(JudgeSpec("ollama", "llama3.1"), 10**9, 10**9) == 0.0
    assert table.cost(JudgeSpec("local", ""), 10**9, 10**9) == 0.0
    assert not table.known(JudgeSpec("openai", "some-new-model"))


@pytest.mark.parametrize(
    "line", ["gpt-4o = 2.5", "gpt-4o 2.5, 10", "gpt-4o = two, ten", "gpt-4o = inf, 10", "gpt-4o = 1, nan"]
)
def test_a_malformed_price_line_names_the_fix(line: str) -> None:
    with pytest.raises(ConfigError, match="MODEL = INPUT_USD_PER_MTOK, OUTPUT_USD_PER_MTOK"):
        PriceTable.from_ini_lines([line])


@pytest.mark.parametrize("amount", [0.0036, 0.25, 0.00004])
def test_one_amount_prints_one_way_on_a_summary_line(amount: float) -> None:
    """What a batched check cost and what it saved are the same amount here: the calls line must print
    them alike, whichever side of a cent they fall on."""
    line = calls_line(CallTally(batched=1, cost_usd=amount, saved_usd=amount))
    printed = re.findall(r"\$[0-9.]+", line)
    assert len(printed) == 2 and printed[0] == printed[1] == usd(amount)


def test_the_dry_run_estimate_prints_dollars_like_the_batch_lines() -> None:
    text = estimate_text(Estimate(calls=1, tokens_in=10, cost_usd=0.0036))
    assert usd(0.0036) in text and "$0.0036 " not in text


def test_adding_tallies_sums_every_count_and_cost_field() -> None:
    """``CallTally.add`` writes the sums past pydantic's setattr: every numeric field must be one it
    sums (a new field of another numeric type would otherwise be dropped without a word)."""
    numeric = {name: 1 for name, value in CallTally().model_dump().items() if isinstance(value, (int, float))}
    assert len(numeric) >= 10
    total = CallTally(**numeric, failures={"timeout": 1}, refused_schemas={"j": {"A": "first"}})
    total.add(
        CallTally(
            **{name: 2 for name in numeric},
            failures={"timeout": 2, "refused": 1},
            refused_schemas={"j": {"A": "later", "B": "b"}, "k": {"*": "all"}},
        )
    )
    assert {name: getattr(total, name) for name in numeric} == {name: 3 for name in numeric}
    assert total.failures == {"timeout": 3, "refused": 1}
    # a refused schema is said once, with the first reason heard
    assert total.refused_schemas == {"j": {"A": "first", "B": "b"}, "k": {"*": "all"}}
    assert CallTally.model_validate(total.model_dump()) == total
