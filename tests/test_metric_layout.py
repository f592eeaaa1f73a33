"""A metric family is one module (or one small package): everything of a metric is found there.

For every catalog metric, what it asks and answers is declared in its own family: the templates of
its requests, their verdict models, the evidence of its result and the score form of its
``rag_judge`` helpers. A question one metric reuses from another (augmentation precision asks
retrieval precision's relevance question, nuggets asks UMBRELA's grade) stays with the metric its
template id names, verdict included. What several families share (the claim list every extraction
returns, the two-template rating, the bases of verdict models) lives in a module named for what it
is, and only what at least two families use may live there. No other module of ``pytest_rag.metrics``
declares a verdict or evidence model or a template.

The metrics are driven as in tests/test_prompt_stability.py: the requests they actually ask and the
evidence they actually return are what is checked, not a list kept by hand.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import pkgutil
import typing
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

import pytest_rag.metrics
from pytest_rag.helper_forms import AsyncForm, SyncForm
from pytest_rag.metrics import citation
from pytest_rag.metrics.base import Metric
from pytest_rag.metrics.catalog import CATALOG, builtin_metrics
from pytest_rag.metrics.dual_rating import DualRatingQuestion
from pytest_rag.metrics.prompts import Template
from pytest_rag.rag_judge import RagJudge
from test_prompt_stability import SAMPLE, VARIANTS, RecordingAsker

#: Modules of machinery that several families share. Every other module under metrics/ is (part of)
#: a family, or base.py, catalog.py and the deprecated toolkit.py, which declare no model or template.
SHARED = {"judging", "options", "statements", "dual_rating", "prompts", "verdict_shapes"}
FAMILIES = {where.split(":")[0].split(".")[0] for _, _, where in CATALOG} | {"overall"}


def family_of(module: str) -> str:
    """``pytest_rag.metrics.reference.agreement`` -> ``reference``."""
    parts = module.split(".")
    assert parts[:2] == ["pytest_rag", "metrics"] and len(parts) > 2, module
    return parts[2]


def metric_class(name: str, mode: str) -> type[Metric]:
    return next(m for m in builtin_metrics() if (m.name, m.mode) == (name, mode))


@functools.cache
def metric_modules() -> tuple[ModuleType, ...]:
    names = [info.name for info in pkgutil.walk_packages(pytest_rag.metrics.__path__, "pytest_rag.metrics.")]
    return tuple(importlib.import_module(name) for name in names if not name.endswith(".toolkit"))


def declared_models(module: ModuleType) -> list[type[BaseModel]]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module.__name__
    ]


@functools.cache
def template_homes() -> dict[str, str]:
    """Template id -> the module that declares it (a module-level template whose id its source writes)."""
    homes: dict[str, str] = {}
    for module in metric_modules():
        source = inspect.getsource(module)
        for value in vars(module).values():
            if isinstance(value, Template) and f'id="{value.id}"' in source:
                assert homes.setdefault(value.id, module.__name__) == module.__name__, value.id
            if isinstance(
                value, DualRatingQuestion
            ):  # both wordings of dual_rating_question("<metric>", ...)
                for template in value.templates:
                    if f'dual_rating_question(\n    "{template.id.split(".")[0]}"' in source:
                        assert homes.setdefault(template.id, module.__name__) == module.__name__, template.id
    return homes


def models_within(model: type[BaseModel]) -> set[type[BaseModel]]:
    """The model, the models its fields nest (in lists and optionals) and all their pydantic bases."""
    found: set[type[BaseModel]] = set()
    pending = [model]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        found.add(current)
        pending += [b for b in current.__mro__[1:] if issubclass(b, BaseModel) and b is not BaseModel]
        for field in current.model_fields.values():
            nested = [field.annotation, *typing.get_args(field.annotation)]
            pending += [a for a in nested if isinstance(a, type) and issubclass(a, BaseModel)]
    return found


def run(name: str, mode: str, options: dict[str, Any]) -> tuple[RecordingAsker, Any]:
    asker = RecordingAsker()
    scored = asyncio.run(metric_class(name, mode)().score(asker, SAMPLE, options))
    return asker, scored


def score_form_home(name: str, mode: str) -> str:
    """The module of the class (a base of RagJudge) that declares the metric's score form."""
    homes = {
        (value.metric, value.mode): owner.__module__
        for owner in RagJudge.__mro__
        for value in vars(owner).values()
        if isinstance(value, (SyncForm, AsyncForm)) and value.source is value and value.metric
    }
    return homes.get((name, mode)) or homes[(name, None)]


def layout_problems(name: str, mode: str, options: dict[str, Any]) -> list[str]:
    """What of this metric is declared outside the family it belongs in."""
    family = family_of(metric_class(name, mode).__module__)
    metric_families = {m.name: family_of(m.__module__) for m in builtin_metrics()}
    asker, scored = run(name, mode, options)
    problems = []
    for request in asker.requests:
        owner = metric_families.get(request.template_id.split(".")[0], family)  # the metric it names
        home = template_homes().get(request.template_id)
        if home is None:  # built per check from the options (a rubric's levels): by the metric itself
            home = metric_class(name, mode).__module__
            if f'"{request.template_id}"' not in inspect.getsource(importlib.import_module(home)):
                problems.append(f"template {request.template_id} is built outside {home}")
        if family_of(home) != owner:
            problems.append(f"template {request.template_id} is declared in {home}, not in {owner}")
        verdict = request.response_model
        if family_of(verdict.__module__) not in {family_of(home), *SHARED}:
            problems.append(f"verdict {verdict.__name__} of {request.template_id} is in {verdict.__module__}")
    if scored.evidence is not None and family_of(type(scored.evidence).__module__) not in {family, *SHARED}:
        problems.append(f"evidence {type(scored.evidence).__name__} is in {type(scored.evidence).__module__}")
    if family_of(score_form_home(name, mode)) != family:
        problems.append(f"the score form is declared in {score_form_home(name, mode)}")
    return problems


@pytest.mark.parametrize("label,name,mode,options", VARIANTS, ids=[label for label, *_ in VARIANTS])
def test_a_metric_is_declared_whole_in_its_family(
    label: str, name: str, mode: str, options: dict[str, Any]
) -> None:
    assert layout_problems(name, mode, options) == []


def test_a_verdict_declared_outside_its_family_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citation.CitationVerdict, "__module__", "pytest_rag.metrics.grounding")
    citations = next(options for _, name, _, options in VARIANTS if name == "citation")
    assert (
        layout_problems("citation", "default", citations)
        == ["verdict CitationVerdict of citation.support is in pytest_rag.metrics.grounding"] * 2
    )  # one request per cited passage


def family_uses() -> dict[str, set[type[BaseModel]]]:
    """Family -> every model its metrics ask for or return, with nested models and bases."""
    uses: dict[str, set[type[BaseModel]]] = {}
    for _, name, mode, options in VARIANTS:
        asker, scored = run(name, mode, options)
        models = uses.setdefault(family_of(metric_class(name, mode).__module__), set())
        for request in asker.requests:
            models |= models_within(request.response_model)
        if scored.evidence is not None:
            models |= models_within(type(scored.evidence))
    return uses


def shared_problems() -> list[str]:
    uses = family_uses()
    problems = []
    for module in metric_modules():
        if family_of(module.__name__) not in SHARED:
            continue
        for model in declared_models(module):
            users = sorted(family for family, models in uses.items() if model in models)
            if len(users) < 2:
                problems.append(f"{module.__name__}.{model.__name__} is used by {users or 'no family'}")
    return problems


def test_shared_machinery_holds_only_what_two_families_use() -> None:
    assert shared_problems() == []


def test_a_model_of_one_family_parked_in_shared_machinery_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_rag.metrics import judging

    monkeypatch.setattr(judging, "CitationVerdict", citation.CitationVerdict, raising=False)
    monkeypatch.setattr(citation.CitationVerdict, "__module__", judging.__name__)
    assert shared_problems() == ["pytest_rag.metrics.judging.CitationVerdict is used by ['citation']"]


def test_no_other_module_declares_models_or_templates() -> None:
    for module in metric_modules():
        if family_of(module.__name__) in FAMILIES | SHARED:
            continue
        assert declared_models(module) == [], f"{module.__name__} declares verdict or evidence models"
        assert module.__name__ not in template_homes().values(), f"{module.__name__} declares templates"
    assert {family_of(home) for home in template_homes().values()} <= FAMILIES
