"""An amount of money is the same amount whether its currency is a symbol, a code or a word, and
another currency is another amount.

The tokenizer drops "$", "€" and "£": "18 euros" against "€18" had a word the contexts lack and
failed, while "$18" against "18 euros" changed the currency unseen and passed.
"""

from __future__ import annotations

import pytest

from pytest_rag.judges.local.money import Amount, amounts, money_words_backed, other_currency
from pytest_rag.judges.local.scorer import SUPPORTED, LocalScorer

GYM = "A day pass to the gym costs €12, and a yearly membership costs EUR 390."
TAXI = "A taxi from the airport to the old town costs $45 at a flat rate."
SHOP = "The museum shop sells the catalogue for £25."


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (GYM, "A day pass to the gym costs 12 euros."),
        (GYM, "A yearly membership costs 390 euros."),
        (TAXI, "A taxi from the airport to the old town costs 45 dollars at a flat rate."),
        (TAXI, "A taxi from the airport to the old town costs USD 45 at a flat rate."),
        (SHOP, "The museum shop sells the catalogue for 25 pounds."),
    ],
)
def test_a_currency_written_another_way_is_the_same_amount(
    scorer: LocalScorer, context: str, answer: str
) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers == () and found.sentences[0].added_words == ()
    assert found.probability >= SUPPORTED


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (GYM, "A day pass to the gym costs $12."),
        (TAXI, "A taxi from the airport to the old town costs €45 at a flat rate."),
        (TAXI, "A taxi from the airport to the old town costs 45 euros at a flat rate."),
        (SHOP, "The museum shop sells the catalogue for 25 dollars."),
    ],
)
def test_another_currency_is_another_amount(scorer: LocalScorer, context: str, answer: str) -> None:
    found = scorer.support(answer, [context])
    assert found.sentences[0].unsupported_numbers != ()
    assert found.probability < SUPPORTED


def test_the_amounts_of_a_text_in_every_form() -> None:
    assert [(a.number, a.currency) for a in amounts("€18, 18 €, EUR 18, 18 euros, 1,200 EUR")] == [
        ("18", "EUR"),
        ("18", "EUR"),
        ("18", "EUR"),
        ("18", "EUR"),
        ("1200", "EUR"),
    ]
    assert [(a.number, a.currency) for a in amounts("a $2 billion deal, 2 billion dollars")] == [
        ("2", "USD"),
        ("2", "USD"),
    ]
    assert amounts("euros 5 times, 12 people") == []  # a name before a number names no amount


def test_a_word_that_also_names_a_weight_backs_money_but_never_flags_it() -> None:
    pounds = [Amount("5", "GBP", "pounds")]
    assert money_words_backed(pounds, [Amount("5", "GBP", "£")]) == {"pounds"}
    assert other_currency(pounds, [Amount("5", "USD", "$")]) == []  # "5 pounds" may be a weight
    assert other_currency([Amount("5", "USD", "$")], pounds) == []
    assert other_currency([Amount("5", "USD", "$")], [Amount("5", "EUR", "€")]) == ["5"]
