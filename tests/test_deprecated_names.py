"""Renamed public names keep working and say once, at the user's line, which name replaces them.

An alias means one metric. The ``assert_rag``/``score`` alias ``grounded`` meant faithfulness while
the helper ``assert_grounded`` checks response groundedness, so the alias is deprecated in favour of
``faithful``. The assert form of the metric ``citation`` is ``assert_citation`` (and
``aassert_citation``); the plural names stay as deprecated aliases. The metric toolkit's import path
moved to ``pytest_rag.metrics.judging``. The project's pytest configuration makes these warnings
errors, so only the tests here, which expect them, may use the old names.
"""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import rag_args
from pytest_rag import deprecation
from pytest_rag.deprecation import RagDeprecationWarning
from pytest_rag.helper_forms import AsyncForm, Check, SyncForm
from pytest_rag.inputs import Sample
from pytest_rag.metrics import catalog, judging
from pytest_rag.rag_judge import RagJudge
from pytest_rag.results import MetricResult
from test_metric_forms import StandInPlan

FORMS: dict[str, SyncForm[Any] | AsyncForm[Any]] = {
    name: value
    for owner in reversed(RagJudge.__mro__)
    for name, value in vars(owner).items()
    if isinstance(value, (SyncForm, AsyncForm))
}


@pytest.fixture(autouse=True)
def nothing_told_yet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts as a fresh process would: no old name has been warned about."""
    monkeypatch.setattr(deprecation, "_told", set())
    yield


def helpers_named_after(alias: str) -> dict[str, SyncForm[Any] | AsyncForm[Any]]:
    """The helpers whose name is the alias itself or its assert or async forms."""
    names = (alias, f"assert_{alias}", f"a{alias}", f"aassert_{alias}")
    return {name: FORMS[name] for name in names if name in FORMS}


def test_no_alias_names_a_helper_of_another_metric() -> None:
    for alias, (metric, _) in catalog.ALIASES.items():
        if alias in catalog.DEPRECATED_ALIASES:
            continue
        for name, form in helpers_named_after(alias).items():
            assert form.metric == metric, (
                f"alias {alias!r} means {metric}, helper {name} scores {form.metric}"
            )


def test_the_grounded_alias_is_deprecated_because_its_helper_scores_another_metric() -> None:
    assert catalog.ALIASES["grounded"][0] == "faithfulness"
    assert {form.metric for form in helpers_named_after("grounded").values()} == {"response_groundedness"}
    replacement, _ = catalog.DEPRECATED_ALIASES["grounded"]
    assert catalog.ALIASES[replacement] == catalog.ALIASES["grounded"]


def test_the_grounded_alias_still_means_faithfulness_and_warns_once_at_the_callers_line() -> None:
    with pytest.warns(RagDeprecationWarning, match=r"alias 'grounded' is deprecated; use 'faithful'") as told:
        assert catalog.resolve_metric("grounded") == ("faithfulness", None)
    assert [w.filename for w in told] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert catalog.resolve_metric("grounded", "claims") == ("faithfulness", "claims")  # told already


class StandInSession:
    """Stands in for RagSession: every metric's bar is 3 and every check scores 4."""

    def __init__(self) -> None:
        self.checks: list[Check] = []

    def plan(self, test_id: str, check: Check, sample: Sample) -> StandInPlan:
        return StandInPlan(check, 3.0)

    def score(self, plan: StandInPlan) -> MetricResult:
        self.checks.append(plan.check)
        return MetricResult(
            metric=plan.check.metric or "",
            mode="default",
            judge="stand-in",
            score=4.0,
            scale_low=0.0,
            scale_high=5.0,
            normalized=0.8,
            threshold=3.0,
            passed=True,
        )

    async def ascore(self, plan: StandInPlan) -> MetricResult:
        return self.score(plan)


CITATIONS = [("Refunds take five days.", ["1"])]
CONTEXT = ["Refunds take five business days."]


@pytest.mark.parametrize(
    "old,new", [("assert_citations", "assert_citation"), ("aassert_citations", "aassert_citation")]
)
def test_the_plural_citation_assert_forms_run_the_singular_ones_and_warn_once(old: str, new: str) -> None:
    assert FORMS[old].renamed_to is FORMS[new]
    session = StandInSession()
    judge = RagJudge(session, "test_deprecated_names.py::test")  # type: ignore[arg-type]
    assert inspect.signature(getattr(judge, old)) == inspect.signature(getattr(judge, new))
    assert (getattr(judge, old).__doc__ or "").startswith(f"Deprecated: use ``{new}``.")

    def call(name: str) -> MetricResult:
        if isinstance(FORMS[name], SyncForm):
            return getattr(judge, name)(CITATIONS, CONTEXT)  # type: ignore[no-any-return]

        async def async_test() -> MetricResult:  # the user's line is where the form is awaited
            return await getattr(judge, name)(CITATIONS, CONTEXT)  # type: ignore[no-any-return]

        return asyncio.run(async_test())

    with pytest.warns(
        RagDeprecationWarning, match=rf"rag_judge\.{old} is deprecated; use rag_judge\.{new}"
    ) as told:
        result = call(old)
    assert [w.filename for w in told] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(old)  # told already
        call(new)
    assert result.metric == "citation" and result.passed is True
    assert [c.metric for c in session.checks] == ["citation"] * 3
    assert session.checks[0] == session.checks[2]  # the old name asked exactly what the new one asks


def test_the_old_toolkit_path_still_gives_the_single_judgment_base() -> None:
    with pytest.warns(
        RagDeprecationWarning,
        match=r"metrics\.toolkit\.SingleJudgment is deprecated; use pytest_rag\.metrics\.judging\.SingleJudgment",
    ):
        from pytest_rag.metrics.toolkit import SingleJudgment
    assert SingleJudgment is judging.SingleJudgment
    with pytest.raises(ImportError):
        from pytest_rag.metrics.toolkit import Template  # noqa: F401  (never exported there)


def test_a_suite_using_the_grounded_alias_gets_faithfulness_and_one_warning_at_its_line(
    pytester: pytest.Pytester, fake_llm: Any, tmp_path: Any
) -> None:
    pytester.makepyfile(
        test_old_alias="""
        def test_alias_twice(rag_judge):
            answer, contexts = "Refunds take five days.", ["Refunds take five days."]
            first = rag_judge.score("grounded", answer=answer, contexts=contexts)
            second = rag_judge.score("grounded", answer=answer, contexts=contexts)
            assert first.metric == second.metric == "faithfulness"
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_old_alias.py:3: RagDeprecationWarning: the metric alias 'grounded' is deprecated; use 'faithful'*"
        ]
    )
    assert result.stdout.str().count("RagDeprecationWarning") == 1
