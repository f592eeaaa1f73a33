"""What a check's record keeps of a judge's words: every string of its evidence cut to a bound, every
list of strings cut to a length, each cut saying what it left out, and nothing else touched.

:func:`~pytest_rag.results.bounded` walks the evidence of every recorded check; these hold what it
cuts, what it keeps as it is, and that subclasses and other mappings are treated like the plain ones.
"""

from __future__ import annotations

from types import MappingProxyType

from pytest_rag.errors import cut_text
from pytest_rag.results import EVIDENCE_CHARS, EVIDENCE_ITEMS, bounded


class Note(str):
    """A string of a subclass: cut like any string."""


def test_strings_are_cut_at_the_bound_and_short_ones_are_kept() -> None:
    short, long = "s" * EVIDENCE_CHARS, "l" * (EVIDENCE_CHARS + 1)
    assert bounded(short) is short
    assert bounded(long) == cut_text(long, EVIDENCE_CHARS) != long
    assert bounded(long).endswith("...[cut: 1 more characters of 501]")
    assert bounded(Note(long)) == cut_text(long, EVIDENCE_CHARS)
    assert bounded("abcdef", 3) == "abc ...[cut: 3 more characters of 6]"


def test_nested_evidence_is_cut_inside_and_its_other_values_are_kept() -> None:
    long = "x" * 600
    evidence = {"claims": [{"text": long, "supported": True, "weight": 0.5, "rank": 2, "source": None}]}
    assert bounded(evidence) == {
        "claims": [
            {
                "text": cut_text(long, EVIDENCE_CHARS),
                "supported": True,
                "weight": 0.5,
                "rank": 2,
                "source": None,
            }
        ]
    }
    assert bounded(MappingProxyType({"why": long})) == {"why": cut_text(long, EVIDENCE_CHARS)}
    kept = (long, 1)
    assert bounded(kept) is kept  # neither a list nor a mapping: returned as it is


def test_a_list_of_strings_is_cut_to_its_length_and_a_list_of_records_is_not() -> None:
    statements = [f"statement {i}" for i in range(EVIDENCE_ITEMS + 10)]
    cut = bounded(statements)
    assert cut[:EVIDENCE_ITEMS] == statements[:EVIDENCE_ITEMS]
    assert cut[EVIDENCE_ITEMS:] == ["...[cut: 10 more items]"]
    records = [{"passage": i} for i in range(EVIDENCE_ITEMS + 10)]
    assert bounded(records) == records
