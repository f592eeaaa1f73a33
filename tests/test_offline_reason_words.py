"""The offline judge's reasons say what was compared with what, and quote words as written.

Context recall checks the reference's facts against the answer, yet its reasons said "numbers not in
the contexts" and "best match in context 1"; and a name ending in a letter outside ASCII was cut
short ("Café" read as "Caf"), so the reasons quoted what looked like a word stem, and the name
counted as missing from contexts that hold it.
"""

from __future__ import annotations

from pytest_rag.inputs import Sample
from pytest_rag.judges.local.names import names_in
from test_metrics_catalog import offline

VIENNA = ["The Café Central opened in 1876 in Vienna. It serves Sachertorte."]


def test_context_recall_reasons_name_the_answer_they_compare_against() -> None:
    sample = Sample(
        question="When did the Café Central open?",
        answer="The Café Central is in Vienna.",
        contexts=VIENNA,
        reference="The Café Central opened in 1876 in Vienna.",
    )
    reasons = offline("context_recall", sample).reasons
    assert "reference facts are supported by the answer" in reasons
    assert "best match in the answer: 'The Café Central is in Vienna.'" in reasons
    assert "numbers not in the answer: 1876" in reasons
    assert "contexts" not in reasons and "context 1" not in reasons


def test_faithfulness_reasons_still_name_the_contexts() -> None:
    result = offline(
        "faithfulness", Sample(answer="The Café Central opened in 1880 in Graz.", contexts=VIENNA)
    )
    assert "best match in context 1:" in result.reasons
    assert "numbers not in the contexts: 1880" in result.reasons
    assert "names not in the contexts: Graz" in result.reasons


def test_a_name_is_quoted_as_written_and_found_where_the_contexts_hold_it() -> None:
    assert names_in("We met at Café Central and the Variablé bar.") == ["Café", "Central", "Variablé"]
    assert names_in("It is from Zürich, Kraków and São Paulo.") == ["Zürich", "Kraków", "São", "Paulo"]
    assert names_in("Shares of Apple' rose.") == ["Apple"]  # a closing quote is no part of a name
    found = offline("faithfulness", Sample(answer="The Café Central serves Sachertorte.", contexts=VIENNA))
    assert found.score >= 4, found.reasons
    missing = offline("faithfulness", Sample(answer="The Café Lumière serves Sachertorte.", contexts=VIENNA))
    assert "names not in the contexts: Lumière" in missing.reasons
    assert "Caf," not in missing.reasons and "Caf " not in missing.reasons
