"""Every built-in request asks the judge for exactly the fields its reply is validated by.

A template lists the fields of the JSON reply it wants in its fixed instructions; the reply is then
validated by the request's response model. When the two name different fields, an LLM judge
that follows the prompt gives a reply the model rejects (or fills a field it never asked for), on
every sample. The requests are those the metrics actually ask (driven as in
tests/test_prompt_stability.py), so a new metric is covered without being listed here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_rag.judges.request import JudgeRequest
from test_metric_layout import run
from test_prompt_stability import VARIANTS

FIELD_LINE = re.compile(r'^- "([^"]+)": ', re.MULTILINE)

#: Templates that name a family of fields by a pattern: context precision grades every passage in
#: one request, under passage_1 ... passage_k.
PATTERNS = {"passage_N": re.compile(r"passage_\d+")}


def asked_fields(request: JudgeRequest) -> list[str]:
    """The reply fields the request's system message lists, in its order."""
    return FIELD_LINE.findall(request.messages[0].content)


def mismatch(request: JudgeRequest) -> tuple[list[str], list[str]] | None:
    """(asked for but not validated, validated but not asked for), or None when they agree."""
    asked = asked_fields(request)
    validated = list(request.response_model.model_fields)
    patterns = [PATTERNS[name] for name in asked if name in PATTERNS]
    unasked = [f for f in validated if f not in asked and not any(p.fullmatch(f) for p in patterns)]
    unvalidated = [f for f in asked if f not in validated and f not in PATTERNS]
    return (unvalidated, unasked) if unvalidated or unasked else None


@pytest.mark.parametrize("label,name,mode,options", VARIANTS, ids=[label for label, *_ in VARIANTS])
def test_a_request_asks_for_the_fields_its_reply_model_reads(
    label: str, name: str, mode: str, options: dict[str, Any]
) -> None:
    asker, _ = run(name, mode, options)  # metrics scored without a judge (lexical, embeddings) ask none
    problems = {r.template_id: mismatch(r) for r in asker.requests if mismatch(r) is not None}
    assert problems == {}


def test_a_template_asking_for_a_field_its_model_lacks_is_found() -> None:
    asker, _ = run("faithfulness", "claims", {})
    request = next(r for r in asker.requests if r.template_id == "faithfulness.claims.extract")
    system = request.messages[0]
    renamed = type(system)(system.role, system.content.replace('- "claims": ', '- "statements": '))
    wrong = type(request)(**{**request.__dict__, "messages": (renamed, *request.messages[1:])})
    assert mismatch(wrong) == (["statements"], ["claims"])
