"""Every metric of the registry has its four helpers, derived from one score form.

The forms are read off the ``RagJudge`` class and the helpers classes it inherits (one per metric
family): every score form (a ``SyncForm`` that is its own source) must come with an assert form and
two async forms with the very same parameters, and every built-in (metric, mode) must be reachable
through one of them. Deprecated old names of forms are left out here (tests/test_deprecated_names.py). The asserting forms must refuse a
check that has no threshold before any judge is paid, which a stand-in session proves by failing
the test if it is ever asked to score.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from conftest import rag_args
from pytest_rag.errors import ConfigError, InputError
from pytest_rag.failures import RagAssertionError
from pytest_rag.helper_forms import AsyncForm, Check, SyncForm, on_a_thread
from pytest_rag.inputs import Sample
from pytest_rag.metrics.base import Metric
from pytest_rag.metrics.catalog import builtin_metrics, resolve_metric
from pytest_rag.rag_judge import RagJudge
from pytest_rag.results import MetricResult
from pytest_rag.run.session_results import SessionResults

#: A value for every parameter a form may require, by name.
ARGUMENTS: Mapping[str, Any] = {
    "metric": "faithfulness",
    "answer": "Refunds take five business days.",
    "question": "How long do refunds take?",
    "contexts": ["Refunds are processed within five business days."],
    "reference": "Five business days.",
    "citations": [("Refunds take five business days.", ["1"])],
    "rubric": {1: "wrong", 5: "right"},
    "answers": ["Five days.", "Five business days."],
    "history": [
        {"role": "user", "content": "My name is Ana."},
        {"role": "assistant", "content": "Hello Ana, refunds need approval."},
    ],
    "expected": [{"text": "Refunds are processed within five business days."}],
}

FORMS = {
    name: value
    for owner in reversed(RagJudge.__mro__)  # a subclass's attribute wins, as in attribute lookup
    for name, value in vars(owner).items()
    if isinstance(value, (SyncForm, AsyncForm)) and value.renamed_to is None
}
SCORE_FORMS = {name: form for name, form in FORMS.items() if form.source is form}


def derived_of(score: SyncForm[Any] | AsyncForm[Any]) -> dict[str, SyncForm[Any] | AsyncForm[Any]]:
    return {name: form for name, form in FORMS.items() if form.source is score and form is not score}


def required_arguments(form: SyncForm[Any] | AsyncForm[Any]) -> dict[str, Any]:
    return {
        p.name: ARGUMENTS[p.name]
        for p in form.signature.parameters.values()
        if p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD
    }


@dataclass(frozen=True)
class StandInPlan:
    """What RagJudge reads of a plan: the check, and the bar resolved for it."""

    check: Check
    threshold: float | None


class NoJudgeSession:
    """Stands in for RagSession: thresholds come from ``bars``; scoring returns ``score`` unless the
    test forbids any judge call, in which case being asked to score fails the test."""

    def __init__(self, bars: Mapping[str, float | None], score: float | None = None) -> None:
        self.bars = bars
        self.score_value = score
        self.scored: list[str] = []
        self.results = SessionResults()  # where RagJudge hands the calls it refuses

    def metric_class(self, name: str, mode: str | None) -> type[Metric]:
        canonical, alias_mode = resolve_metric(name, mode)
        for metric in builtin_metrics():
            if (metric.name, metric.mode) == (canonical, alias_mode or "default"):
                return metric
        raise ConfigError(f"unknown metric {name!r}")

    def plan(self, test_id: str, check: Check, sample: Sample) -> StandInPlan:
        name = check.metric or ""
        return StandInPlan(check, check.threshold if check.threshold is not None else self.bars.get(name))

    def score(self, plan: StandInPlan) -> MetricResult:
        name = plan.check.metric or ""
        self.scored.append(name)
        if self.score_value is None:
            raise AssertionError(f"a judge was asked to score {name} although the check had no threshold")
        return MetricResult(
            metric=name,
            mode=plan.check.mode or "default",
            judge="stand-in",
            score=self.score_value,
            scale_low=0,
            scale_high=5,
            normalized=self.score_value / 5,
            threshold=plan.threshold,
            passed=None if plan.threshold is None else self.score_value >= plan.threshold,
        )

    async def ascore(self, plan: StandInPlan) -> MetricResult:
        return self.score(plan)


def judge_with(session: NoJudgeSession) -> RagJudge:
    return RagJudge(session, "test_forms.py::test")  # type: ignore[arg-type]


def call(judge: RagJudge, name: str, **extra: Any) -> Any:
    form = FORMS[name]
    bound = getattr(judge, name)
    outcome = bound(**required_arguments(form), **extra)
    return asyncio.run(outcome) if isinstance(form, AsyncForm) else outcome


@pytest.mark.parametrize("name,mode", sorted({(m.name, m.mode) for m in builtin_metrics()}))
def test_every_registered_metric_has_a_score_form(name: str, mode: str) -> None:
    serving = [
        form
        for form in SCORE_FORMS.values()
        if form.metric == name
        and (
            form.mode == mode
            or (form.mode is None and (mode == "default" or "mode" in form.signature.parameters))
        )
    ]
    assert serving, f"no helper scores {name} in mode {mode}"


@pytest.mark.parametrize("name", sorted(SCORE_FORMS))
def test_each_score_form_has_an_assert_and_two_async_forms_with_its_parameters(name: str) -> None:
    score = SCORE_FORMS[name]
    derived = derived_of(score)
    kinds = sorted(form.kind for form in derived.values())
    assert kinds == ["assert", "async assert", "async score"], derived
    async_names = {form.kind: n for n, form in derived.items() if isinstance(form, AsyncForm)}
    assert async_names["async score"] == "a" + name
    assert async_names["async assert"] == "a" + next(n for n, f in derived.items() if f.kind == "assert")
    judge = judge_with(NoJudgeSession({}))
    for form_name in (name, *derived):
        bound = getattr(judge, form_name)
        assert inspect.signature(bound) == score.signature, form_name
        assert inspect.iscoroutinefunction(bound) == isinstance(FORMS[form_name], AsyncForm)
        assert bound.__name__ == form_name
        assert (bound.__doc__ or "").strip(), f"{form_name} has no docstring"


@pytest.mark.parametrize("name", sorted(n for n, f in FORMS.items() if f.enforce))
def test_an_assert_form_without_a_threshold_fails_before_any_judge_is_paid(name: str) -> None:
    session = NoJudgeSession({})  # no metric has a threshold, and no judge may be asked
    with pytest.raises(InputError, match="no default threshold; pass threshold="):
        call(judge_with(session), name)
    assert session.scored == []


@pytest.mark.parametrize("bad", ["4", True, float("nan"), [4]], ids=["str", "bool", "nan", "list"])
@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_threshold_that_is_no_real_number_is_an_input_error_in_every_form(name: str, bad: Any) -> None:
    """``threshold="4"`` crashed inside the plugin, ``threshold=True`` was the bar 1."""
    session = NoJudgeSession({}, score=None)  # being asked to score fails the test
    judge = judge_with(session)
    with pytest.raises(
        InputError, match=rf"^{name}\(\): threshold (must be a number on the metric's scale|is NaN)"
    ):
        call(judge, name, threshold=bad)
    assert session.scored == [] and len(session.results.take_unexamined()[1]) == 1


@pytest.mark.parametrize("bad", ["4", True, float("nan")], ids=["str", "bool", "nan"])
def test_the_combined_forms_refuse_such_thresholds_too(bad: Any) -> None:
    judge = judge_with(NoJudgeSession({}, score=None))
    sample = {"answer": "An answer.", "contexts": ["A passage."]}
    with pytest.raises(InputError, match=r"^assert_rag\(\): faithfulness .*write e\.g\. faithfulness=4"):
        judge.assert_rag(sample, faithfulness=bad)
    with pytest.raises(
        InputError, match=r"^evaluate\(\): thresholds\['faithfulness'\] .*thresholds=\{'faithfulness': 4\}"
    ):
        judge.evaluate([sample], ["faithfulness"], thresholds={"faithfulness": bad})
    with pytest.raises(InputError, match=r"^overall_score\(\): threshold "):
        judge.overall_score([], threshold=bad)
    with pytest.raises(InputError, match="holds every metric to the bar given"):
        judge.assert_rag(sample, faithfulness=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(n for n, f in FORMS.items() if f.enforce))
def test_an_assert_form_fails_below_its_threshold_and_passes_above(name: str) -> None:
    metric = FORMS[name].metric or "faithfulness"
    low = NoJudgeSession({metric: 4}, score=2)
    with pytest.raises(RagAssertionError, match="is below the threshold 4"):
        call(judge_with(low), name)
    high = NoJudgeSession({metric: 4}, score=5)
    assert call(judge_with(high), name).passed is True


@pytest.mark.parametrize("name", sorted(n for n, f in FORMS.items() if not f.enforce))
def test_a_score_form_returns_the_result_below_the_threshold_without_failing(name: str) -> None:
    metric = FORMS[name].metric or "faithfulness"
    session = NoJudgeSession({metric: 4}, score=2)
    result = call(judge_with(session), name)
    assert result.passed is False
    assert session.scored == [metric]


def test_a_form_passes_its_fixed_mode_and_the_callers_options() -> None:
    seen: list[Check] = []

    class Recording(NoJudgeSession):
        def score(self, plan: StandInPlan) -> MetricResult:
            seen.append(plan.check)
            return super().score(plan)

    judge = judge_with(Recording({}, score=1))
    judge.faithfulness_claims("An answer.", ["A passage."], batch_size=2)
    judge.umbrela("A question?", ["A passage."])  # k_values left out: the metric's default applies
    assert (seen[0].metric, seen[0].mode, dict(seen[0].options)) == (
        "faithfulness",
        "claims",
        {"batch_size": 2},
    )
    assert (seen[1].metric, seen[1].mode, dict(seen[1].options)) == ("umbrela", None, {})


def test_the_core_score_forms_take_the_threshold_where_their_assert_forms_do() -> None:
    seen: list[float | None] = []

    class Recording(NoJudgeSession):
        def score(self, plan: StandInPlan) -> MetricResult:
            seen.append(plan.check.threshold)
            return super().score(plan)

    judge = judge_with(Recording({}, score=3))
    judge.faithfulness("An answer.", ["A passage."], 4)
    judge.answer_relevancy("An answer.", "A question?", 2)
    judge.context_recall("An answer.", "A reference.", 1)
    assert seen == [4, 2, 1]


def test_an_assertion_without_a_threshold_never_reaches_a_real_judge(
    pytester: pytest.Pytester, fake_llm: Any, tmp_path: Any
) -> None:
    pytester.makepyfile(
        """
        def test_no_bar(rag_judge):
            rag_judge.assert_umbrela("Where is the office?", ["The office is in Leeds."])
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "cache"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*InputError: umbrela has no default threshold*"])
    assert fake_llm.requests == []


@pytest.mark.parametrize("name", ["evaluate", "assert_rag"])
def test_the_combined_forms_have_async_twins_with_their_parameters(name: str) -> None:
    sync, twin = getattr(RagJudge, name), getattr(RagJudge, "a" + name)
    assert inspect.iscoroutinefunction(twin) and not inspect.iscoroutinefunction(sync)
    assert inspect.signature(twin) == inspect.signature(sync)
    assert (twin.__name__, twin.__qualname__) == ("a" + name, "RagJudge.a" + name)
    assert f":meth:`{name}` for async tests" in (twin.__doc__ or "")


def test_an_async_twin_runs_its_helper_off_the_tests_event_loop() -> None:
    class Helper:
        def work(self, value: int, *, twice: bool = False) -> tuple[int, bool]:
            return value * (2 if twice else 1), threading.current_thread() is threading.main_thread()

        awork = on_a_thread(work, "work, awaited")

    value, on_main = asyncio.run(Helper().awork(21, twice=True))
    assert (value, on_main) == (42, False)


def test_an_async_twin_follows_a_subclass_that_overrides_its_helper() -> None:
    class Helper:
        def work(self, value: int) -> str:
            return f"base {value}"

        awork = on_a_thread(work, "work, awaited")

    class Override(Helper):
        def work(self, value: int) -> str:
            return f"override {value}"

    assert asyncio.run(Helper().awork(1)) == "base 1"
    assert asyncio.run(Override().awork(2)) == "override 2"
