"""``RagJudge``: the object behind the ``rag_judge`` fixture.

Every metric has four helpers: a score form returning the typed
:class:`~pytest_rag.results.MetricResult` (``rag_judge.faithfulness(...)``), an assert form that fails
the test below the threshold (``assert_faithful``), and ``a``-prefixed async twins of both. A metric's
score form is written once, with the metric, as a builder of a :class:`~pytest_rag.helper_forms.Check`
in its family's helpers class (``GroundingHelpers`` ...); the other three are derived from it
(:mod:`pytest_rag.helper_forms`), so all four take the same parameters, and ``RagJudge`` gets them all
by inheriting one helpers class per family. Here: ``score``/``assert_score``, which reach any
registered metric by name (plugin metrics included), ``overall_score``, and ``evaluate`` and
``assert_rag``, which score many checks concurrently.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .cases.run import CaseHelpers
from .errors import InputError, RagError, handing_errors_to
from .failures import RagAssertionError
from .helper_forms import Check, on_a_thread, score_form
from .inputs import ContextLike, Sample, coerce_sample, read_threshold
from .metrics.citation import CitationHelpers
from .metrics.consistency import ConsistencyHelpers
from .metrics.context_use import ContextUseHelpers
from .metrics.conversation import ConversationHelpers
from .metrics.expectations import ExpectationHelpers
from .metrics.grounding import GroundingHelpers
from .metrics.nuggets import NuggetsHelpers
from .metrics.reference import ReferenceHelpers
from .metrics.relevance import RelevanceHelpers
from .metrics.retrieval import RetrievalHelpers
from .metrics.rubric import RubricHelpers
from .results import MetricResult
from .results_table import ResultsTable, Row
from .run.thresholds import require_threshold

if TYPE_CHECKING:
    from .run.check_plan import CheckPlan
    from .run.session import RagSession


def require_pass(result: MetricResult) -> MetricResult:
    """Fail the test with the result's explanation when it is below its threshold."""
    __tracebackhide__ = True
    require_threshold(result.metric, result.threshold)
    if not result.passed:
        raise RagAssertionError(result)
    return result


class RagJudge(
    GroundingHelpers,
    RelevanceHelpers,
    RetrievalHelpers,
    ReferenceHelpers,
    ContextUseHelpers,
    NuggetsHelpers,
    CitationHelpers,
    RubricHelpers,
    ConsistencyHelpers,
    ConversationHelpers,
    ExpectationHelpers,
    CaseHelpers,
):
    """Judged assertions for one test. Obtain it through the ``rag_judge`` fixture."""

    def __init__(self, session: RagSession, test_id: str | Callable[[], str]) -> None:
        self._session = session
        self._test_id = test_id

    @property
    def test_id(self) -> str:
        """The test its checks are recorded under: its own, or (``rag_session_judge``, shared by
        fixtures of every scope) the test whose set-up, call or teardown is running."""
        return self._test_id if isinstance(self._test_id, str) else self._test_id()

    def refuse(self, error: RagError) -> None:
        """A call refused before a judge was asked (bad input, unknown metric, no bar): never
        recorded as a check, yet it leaves its test without a verdict (:mod:`.run.unjudged`)."""
        self._session.results.refuse(error)

    @property
    def judges(self) -> list[str]:
        return [judge.spec.label for judge in self._session.judges()]

    # -- the one path every form takes ---------------------------------------------------------

    def _prepare(self, check: Check, *, enforce: bool) -> CheckPlan:
        """Read the inputs and plan the check (metric, options, bar) and, for an assertion, make sure
        the plan has a bar: all before any judge is paid or any check recorded."""
        __tracebackhide__ = True
        assert check.metric is not None  # filled in by the form
        with handing_errors_to(self.refuse):
            plan = self._session.plan(self.test_id, check, check.sample())
            if enforce:
                require_threshold(check.metric, plan.threshold)
        return plan

    def run_check(self, check: Check, *, enforce: bool) -> MetricResult:
        __tracebackhide__ = True
        result = self._session.score(self._prepare(check, enforce=enforce))
        return require_pass(result) if enforce else result

    async def arun_check(self, check: Check, *, enforce: bool) -> MetricResult:
        __tracebackhide__ = True
        result = await self._session.ascore(self._prepare(check, enforce=enforce))
        return require_pass(result) if enforce else result

    # -- any metric by name --------------------------------------------------------------------

    @score_form()
    def score(
        self,
        /,
        metric: str,
        *,
        answer: str | None = None,
        question: str | None = None,
        contexts: ContextLike = None,
        reference: str | None = None,
        mode: str | None = None,
        threshold: float | None = None,
        **options: Any,
    ) -> Check:
        """Score any registered metric by name (plugin metrics too); its options as keywords."""
        return Check(
            answer=answer,
            question=question,
            contexts=contexts,
            reference=reference,
            mode=mode,
            threshold=threshold,
            options=options,
            metric=metric,
        )

    assert_score, ascore, aassert_score = score.other_forms()

    # -- computed from results, not judged -----------------------------------------------------

    def overall_score(self, results: Sequence[MetricResult], threshold: float | None = None) -> MetricResult:
        """Tonic's overall score: the mean normalised score of the metrics that ran (no judge call);
        recorded in the session results like any check."""
        from .metrics.overall import NAME, overall_score

        with handing_errors_to(self.refuse):
            bar = read_threshold(threshold, "overall_score()")
            result = overall_score(results, self._session.threshold_for(NAME, None, bar))
        return self._session.record(self.test_id, result)

    def assert_overall_score(
        self, results: Sequence[MetricResult], threshold: float | None = None
    ) -> MetricResult:
        __tracebackhide__ = True
        return require_pass(self.overall_score(results, threshold))

    # -- several at once -----------------------------------------------------------------------

    def evaluate(
        self,
        samples: Sequence[Sample | Mapping[str, Any]],
        metrics: Sequence[str] | str,
        *,
        thresholds: Mapping[str, float] | None = None,
        batch: bool = False,
    ) -> ResultsTable:
        """Score every sample on every metric, all judgments concurrently; never raises for a judge
        error (it is a row of the table, counted in the summary, and makes the test an error:
        :mod:`pytest_rag.run.unjudged`).

        With ``batch=True`` the judgments that are not cached go to the providers' batch APIs at half
        price: the call submits its batches, waits for them (round after round for multi-step
        metrics) and returns the judged table. One metric may be named alone (``metrics="faithfulness"``)."""
        if isinstance(metrics, str):  # a str is a sequence of one-letter names, never what is meant
            metrics = [metrics]
        with handing_errors_to(self.refuse):
            if not metrics:
                raise InputError("evaluate() needs at least one metric name, e.g. metrics=['faithfulness']")
            if isinstance(samples, (str, Mapping, Sample)):
                raise InputError(
                    f"evaluate() takes a list of samples, got one {type(samples).__name__}; "
                    "write evaluate([sample], ...)"
                )
            prepared = [coerce_sample(s) for s in samples]
            values = {
                name: read_threshold(
                    bar, "evaluate()", f"thresholds[{name!r}]", f"thresholds={{{{{name!r}: {{}}}}}}"
                )
                for name, bar in (thresholds or {}).items()
            }
            named = self._each_metric_once(metrics, "evaluate()", " in metrics")
            bars = {self._evaluated_metric(key, metrics, named): value for key, value in values.items()}
        jobs = [
            (Check(metric=name, threshold=bars.get(name)), sample) for sample in prepared for name in metrics
        ]
        indices = [i for i in range(len(prepared)) for _ in metrics]
        outcomes = self._session.score_many(
            self.test_id, jobs, batch=batch, sample_indices=indices, refuse=self.refuse
        )
        rows = []
        for (check, sample), outcome, index in zip(jobs, outcomes, indices, strict=True):
            name = check.metric or ""
            if isinstance(outcome, RagError):
                rows.append(Row(index, sample.id, name, None, outcome))
            else:
                rows.append(Row(index, sample.id, name, outcome, None))
        return ResultsTable(rows)

    def _each_metric_once(self, names: Sequence[str], caller: str, where: str) -> dict[type, str]:
        """The name given for each metric named. Two names of one metric (the same name twice, or
        ``faithful`` beside ``faithfulness``) would score it twice, each maybe against its own bar: an
        input error. A name of no metric is left to its own check's error."""
        seen: dict[type, str] = {}
        for name in names:
            try:
                metric = self._session.metric_class(name, None)
            except RagError:
                continue
            if metric in seen:
                both = f"{name!r} twice" if seen[metric] == name else f"{seen[metric]!r} and {name!r}"
                raise InputError(f"{caller} names {metric.name} twice{where} ({both}); name each metric once")
            seen[metric] = name
        return seen

    def _evaluated_metric(self, key: str, metrics: Sequence[str], named: Mapping[type, str]) -> str:
        """The name in ``metrics`` that the ``thresholds`` key ``key`` is for: the same name, or another
        name of the same metric (``grounded`` for ``faithfulness``; ``named`` gives each metric's name,
        :meth:`_each_metric_once`). A key for no metric evaluated would leave its bar unused, the
        metric held to its default: an input error."""
        if key in metrics:
            return key
        try:
            found = named.get(self._session.metric_class(key, None))
        except RagError:
            found = None
        if found is not None:
            return found
        close = difflib.get_close_matches(str(key), [str(m) for m in metrics], n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(
            f"evaluate(): thresholds names {key!r}, which is not one of the metrics evaluated "
            f"({', '.join(map(str, metrics))}), so its bar would hold nothing; {hint}key thresholds by "
            "the metrics' names"
        )

    def assert_rag(self, /, sample: Sample | Mapping[str, Any], **thresholds: float) -> list[MetricResult]:
        """Score one sample on several metrics at once (concurrently) and fail with every metric that
        fell short, e.g. ``assert_rag(sample, faithfulness=4, answer_relevancy=3)``."""
        __tracebackhide__ = True
        with handing_errors_to(self.refuse):
            if not thresholds:
                raise InputError("assert_rag() needs at least one METRIC=THRESHOLD, e.g. faithfulness=4")
            prepared = coerce_sample(sample)
            bars = {name: read_threshold(bar, "assert_rag()", name) for name, bar in thresholds.items()}
            if None in bars.values():
                raise InputError(
                    "assert_rag() holds every metric to the bar given; write e.g. faithfulness=4"
                )
            self._each_metric_once(list(thresholds), "assert_rag()", "")
        jobs = [(Check(metric=name, threshold=bars[name]), prepared) for name in thresholds]
        outcomes = self._session.score_many(self.test_id, jobs, refuse=self.refuse)
        errors = [o for o in outcomes if isinstance(o, RagError)]
        if errors:
            raise errors[0]
        results = [o for o in outcomes if isinstance(o, MetricResult)]
        failed = [r for r in results if not r.passed]
        if failed:
            raise RagAssertionError(failed)
        return results

    aevaluate = on_a_thread(
        evaluate,
        """:meth:`evaluate` for async tests: the batch runs on a worker thread (its judgments still run
        concurrently on pytest-rag's own loop), so the test's event loop keeps running meanwhile.""",
    )
    aassert_rag = on_a_thread(assert_rag, """:meth:`assert_rag` for async tests (see :meth:`aevaluate`).""")
