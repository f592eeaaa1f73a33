"""Amounts of money, whether the currency is a symbol, a code or a word.

The tokenizer drops punctuation, and with it "$", "€" and "£": "Tickets cost €18" reads as
"tickets cost 18". So "18 euros" against it had a word, "euros", that the contexts lack (a claim
added, and the answer failed), while "$18" against "18 euros" changed the currency unseen (and
passed). Amounts are read here from the text itself, each as (number, currency): "€18", "18 €",
"EUR 18", "18 euros" and "18 EUR" are all ("18", "EUR").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...scoring.text import normalize_number

_CURRENCY_FORMS_TEXT = """
    USD:$,us$,usd,dollar,dollars EUR:€,eur,euro,euros GBP:£,gbp,pound,pounds,sterling
    JPY:¥,jpy,yen CHF:chf,franc,francs INR:₹,inr,rupee,rupees
"""
_CURRENCY: dict[str, str] = {
    form: code
    for group in _CURRENCY_FORMS_TEXT.split()
    for code, forms in [group.split(":")]
    for form in forms.split(",")
}
AMBIGUOUS = frozenset({"pound", "pounds"})
"""Currency words that also name something else ("5 pounds" of flour): they back an amount the
contexts give in that currency, but never make another currency's amount a different one."""

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_SYMBOL = r"us\$|\$|€|£|¥|₹"
_WORD = "|".join(sorted((re.escape(f) for f in _CURRENCY if f[0].isalpha()), key=len, reverse=True))
_CODE = "|".join(sorted({code.lower() for code in _CURRENCY.values()}))
_AMOUNT_RE = re.compile(  # a symbol or a code before the number; a symbol, code or name after it
    rf"(?P<before>{_SYMBOL}|\b(?:{_CODE})\b)\s?(?P<n1>{_NUMBER})"
    rf"|(?P<n2>{_NUMBER})\s?(?:(?:thousand|million|billion|trillion)\s)?"
    rf"(?P<after>(?:{_SYMBOL})|\b(?:{_WORD})\b)"
)


@dataclass(frozen=True)
class Amount:
    """One amount of a text: its number (normalised), its currency code, and the word or symbol
    that named the currency, as written (lower-cased)."""

    number: str
    currency: str
    written: str

    @property
    def ambiguous(self) -> bool:
        return self.written in AMBIGUOUS


def amounts(text: str) -> list[Amount]:
    """The amounts of money ``text`` states, in order."""
    found = []
    for match in _AMOUNT_RE.finditer(text.lower()):
        written = match["before"] or match["after"]
        number = match["n1"] or match["n2"]
        found.append(Amount(normalize_number(number.rstrip(",")), _CURRENCY[written], written))
    return found


def money_words_backed(sentence: Sequence[Amount], contexts: Sequence[Amount]) -> frozenset[str]:
    """The currency words of the sentence's amounts that the contexts state in the same currency
    for the same number, in any form: "euros" of "18 euros" where a context says "€18"."""
    stated = {(a.number, a.currency) for a in contexts}
    return frozenset(
        a.written for a in sentence if a.written[0].isalpha() and (a.number, a.currency) in stated
    )


def other_currency(sentence: Sequence[Amount], contexts: Sequence[Amount]) -> list[str]:
    """Numbers the sentence gives in a currency that the contexts give them in only another one:
    "$18" where every "18" of the contexts is "18 euros"."""
    by_number: dict[str, set[str]] = {}
    for amount in contexts:
        by_number.setdefault(amount.number, set()).add(amount.currency)
    unambiguous = {a.number for a in contexts if not a.ambiguous}
    return [
        a.number
        for a in sentence
        if not a.ambiguous and a.number in unambiguous and a.currency not in by_number[a.number]
    ]
