"""The synthetic edits the entailment model is trained on (scripts/entailment_edits.py).

Each generator must make the edit it names, keep the rest of the sentence, and refuse what it
cannot do, since a wrong label here teaches the model the wrong thing.
"""

from __future__ import annotations

import random
import re

import pytest

from script_loader import load_script

edits = load_script("entailment_edits")

SENTENCE = "In 1998, the Harbour Trust paid Elena Ruiz 4,500 euros to restore the lighthouse before March."


def rngs(n: int = 20) -> list[random.Random]:
    return [random.Random(seed) for seed in range(n)]


def changed_words(before: str, after: str) -> tuple[set[str], set[str]]:
    """Words (numbers whole, "4,500") in ``before`` only, and in ``after`` only."""
    a, b = (set(re.findall(r"\d[\d,.]*\d|\w+", text)) for text in (before, after))
    return a - b, b - a


def test_number_swap_changes_one_number_to_one_the_premise_lacks() -> None:
    premise = SENTENCE + " The repairs took 14 months."
    for rng in rngs():
        edited = edits.number_swap(SENTENCE, rng, premise)
        assert edited is not None
        removed, added = changed_words(SENTENCE, edited)
        assert removed == {"4,500"}
        assert len(added) == 1 and any(ch.isdigit() for ch in next(iter(added)))
        assert next(iter(added)) not in premise
        assert "1998" in edited  # years are left to date_swap


def test_number_swap_handles_spelled_numbers_and_refuses_without_numbers() -> None:
    edited = edits.number_swap("The ferry stops at three harbours on the way.", random.Random(0))
    assert edited is not None and "three" not in edited
    assert edited.split()[4] in {
        "two",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
    }
    assert edits.number_swap("The ferry stops at every harbour on the way.", random.Random(0)) is None


@pytest.mark.parametrize("word", ["1998", "March"])
def test_date_swap_changes_a_year_or_month_and_nothing_else(word: str) -> None:
    seen = set()
    for rng in rngs():
        edited = edits.date_swap(SENTENCE, rng, SENTENCE)
        assert edited is not None
        removed, added = changed_words(SENTENCE, edited)
        assert len(removed) == 1 and len(added) == 1
        seen |= removed
    assert word in seen


def test_date_swap_refuses_a_sentence_without_dates() -> None:
    assert edits.date_swap("The lighthouse was painted white.", random.Random(0)) is None


def test_name_spans_skip_the_first_word_months_and_function_words() -> None:
    spans = edits.name_spans("The Harbour Trust paid Elena Ruiz in March, and Ruiz thanked Oslo.")
    text = "The Harbour Trust paid Elena Ruiz in March, and Ruiz thanked Oslo."
    assert [text[a:b] for a, b in spans] == ["Harbour Trust", "Elena Ruiz", "Ruiz", "Oslo"]


def test_name_swap_uses_a_name_the_premise_does_not_hold() -> None:
    pool = ["Elena Ruiz", "Jonas Berg"]
    for rng in rngs():
        edited = edits.name_swap(SENTENCE, rng, pool, SENTENCE)
        assert edited is not None and "Jonas Berg" in edited
    assert edits.name_swap(SENTENCE, random.Random(0), ["Elena Ruiz"], SENTENCE) is None


def test_role_swap_trades_two_names() -> None:
    edited = edits.role_swap("Yesterday Anna Weber hired Tom Fischer as head chef.", random.Random(0))
    assert edited == "Yesterday Tom Fischer hired Anna Weber as head chef."


def test_role_swap_trades_noun_phrases_and_keeps_the_capital() -> None:
    edited = edits.role_swap("A small dog is chasing the cat.", random.Random(0))
    assert edited == "The cat is chasing a small dog."


def test_role_swap_leaves_coordinated_phrases_alone() -> None:
    # "a man and a woman" swapped says the same thing: not a negative
    assert edits.role_swap("A man and a woman are talking.", random.Random(0)) is None
    assert edits.role_swap("The lighthouse was painted.", random.Random(0)) is None


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The museum is open on Sundays.", "The museum is not open on Sundays."),
        ("The museum isn't open on Sundays.", "The museum is open on Sundays."),
        ("The museum was not open on Sundays.", "The museum was open on Sundays."),
        ("Visitors cannot enter the tower.", "Visitors can enter the tower."),
        ("The bakery does not sell bread on Mondays.", "The bakery does sell bread on Mondays."),
        ("She never paid the fee.", "She always paid the fee."),
    ],
)
def test_negation_flip(sentence: str, expected: str) -> None:
    assert edits.negation_flip(sentence, random.Random(0)) == expected


def test_negation_flip_refuses_a_sentence_without_an_auxiliary() -> None:
    assert edits.negation_flip("The keeper painted the tower white.", random.Random(0)) is None


def test_comparison_flip_turns_one_word_round_and_keeps_its_case() -> None:
    assert (
        edits.comparison_flip("Before noon the ferry is full.", random.Random(0))
        == "After noon the ferry is full."
    )
    assert edits.comparison_flip("The keeper painted it.", random.Random(0)) is None


def test_recombined_joins_one_subject_to_another_predicate() -> None:
    first = "The north tower was built in 1820 by stonemasons."
    second = "The chapel was rebuilt after a fire in 1901."
    assert edits.recombined(first, second) == "The north tower was rebuilt after a fire in 1901."
    # the same subject twice is no recombination
    assert edits.recombined(first, "The north tower was painted in 1901.") is None


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The bridge, which opened in 1932, carries four lanes of traffic.",
            "The bridge carries four lanes of traffic.",
        ),
        (
            "The city hall (built in 1850) stands on the main square.",
            "The city hall stands on the main square.",
        ),
        ("In 1998, the trust paid for the new roof.", "The trust paid for the new roof."),
    ],
)
def test_clause_dropped_keeps_what_the_sentence_still_says(sentence: str, expected: str) -> None:
    assert edits.clause_dropped(sentence, random.Random(0)) == expected


def test_clause_dropped_never_drops_a_condition_or_leaves_a_fragment() -> None:
    assert edits.clause_dropped("Tickets cost 5 euros, unless you are a student.", random.Random(0)) is None
    assert (
        edits.clause_dropped("The bridge, which is not old, carries traffic daily.", random.Random(0)) is None
    )
    assert (
        edits.clause_dropped("The band toured Europe, including Spain.", random.Random(0)) is None
    )  # 4 words left


def test_added_claim_joins_another_sentence() -> None:
    joined = edits.added_claim("The bridge carries four lanes.", "The museum holds old maps.")
    assert joined == "The bridge carries four lanes, and the museum holds old maps."
    assert edits.added_claim("Yes.", "The museum holds old maps.") is None


def test_edit_pairs_label_copies_entailed_and_edits_not() -> None:
    passage = (
        "The Harbour Trust paid Elena Ruiz to restore the lighthouse in 1998. The work took 14 months. "
        "Visitors could not climb the tower before 2001."
    )
    pairs = edits.edit_pairs(
        passage, random.Random(3), lambda: "The museum holds old maps.", ["Jonas Berg"], windows=8
    )
    assert any(p.entailed for p in pairs) and any(not p.entailed for p in pairs)
    for pair in pairs:
        assert pair.hypothesis != ""
        if pair.kind == "copy":
            assert pair.entailed and pair.hypothesis in pair.premise
        else:
            assert pair.entailed == (pair.kind == "clause_dropped")
            assert pair.hypothesis not in pair.premise or pair.entailed


def test_edit_pairs_are_reproducible() -> None:
    passage = "The Harbour Trust paid Elena Ruiz in 1998. The work took 14 months."

    def make(seed: int) -> list[object]:
        return list(edits.edit_pairs(passage, random.Random(seed), lambda: "Other.", ["Jonas Berg"], 4))

    assert make(5) == make(5)
    assert make(5) != make(6)
