"""One check on its way from a test to the session results.

:meth:`pytest_rag.run.session.RagSession.plan` makes a :class:`CheckPlan` once per check: the metric
found in the registry, its options and inputs checked, its bar resolved (and where that bar came
from), all before any judge is paid. The plan is tried on the fast path first (cached and offline
judgments, no event loop), run again for real when a live call is needed, and ends recorded: as a
score, or as an error that is counted and never a pass.
"""

from __future__ import annotations

import copy
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from ..engine.evaluation import evaluate, judge_label
from ..engine.loop import UNFINISHED, run_fast
from ..errors import JudgeError, NotJudgedError, RagError
from ..results import CallTally, CheckPlace, CheckRecord, MetricResult
from .session_results import SessionResults

if TYPE_CHECKING:
    from ..engine.judgment import JudgmentEngine
    from ..helper_forms import Check
    from ..inputs import Sample
    from ..judges.protocol import Judge
    from ..metrics.base import Metric
    from ..mutants.run import MutantRun


class CheckPlan:
    """The metric with its inputs, judges and bar, ready to be judged and recorded."""

    def __init__(
        self,
        test_id: str,
        check: Check,
        sample: Sample,
        metric: Metric,
        threshold: float | None,
        *,
        sample_index: int | None = None,
        judges: Sequence[Judge],
        engine: JudgmentEngine,
        repeats: int,
        results: SessionResults,
        pass_on: str = "score",
        mutants: MutantRun | None = None,
    ) -> None:
        self.test_id = test_id
        self.check = check
        self.sample = sample
        self.place = CheckPlace(test_id, sample, sample_index)
        """Where the check stands in the run (``sample_index``: the sample's position in its
        ``evaluate`` call, None for one sample); its record, scored or failed, is keyed by it."""
        self.metric = metric
        self.threshold = threshold
        """The bar the check is held to (None: scored without one), resolved once for the plan."""
        self.judges = list(judges)
        self.engine = engine
        self.repeats = repeats
        self.results = results
        self.pass_on = pass_on
        """What the bar is compared with: ``score``, or ``expected`` (--rag-pass-on)."""
        self.mutants = mutants
        """Under --rag-mutants, what keeps the check once recorded, for its mutants at the run's end."""

    def _evaluation(self, cache_only: bool) -> Coroutine[Any, Any, MetricResult]:
        return evaluate(
            self.engine,
            self.metric,
            self.sample,
            self.check.options,
            judges=self.judges,
            repeats=self.repeats,
            threshold=self.threshold,
            test_id=self.test_id,
            cache_only=cache_only,
            pass_on=self.pass_on,
        )

    def fast(self) -> MetricResult | None:
        """The result when every judgment is cached or offline; None when a live call is needed."""
        value = run_fast(self._evaluation(True))
        return None if value is UNFINISHED else value  # type: ignore[return-value]

    def live(self) -> Coroutine[Any, Any, MetricResult]:
        """The evaluation that may call the judges, for pytest-rag's loop to run."""
        return self._evaluation(False)

    def record(self, result: MetricResult) -> MetricResult:
        """Keep the scored check in the session results; returns the result."""
        self.results.record(CheckRecord.from_result(result, self.place))
        if self.mutants is not None:
            self.mutants.consider(self, result)
        return result

    def record_error(self, exc: RagError) -> None:
        """Keep a check that ended in an error: counted in the summary under its metric's row (with
        the scale, so an all-error row still shows it), never a pass."""
        scale = self.metric.scale
        self.results.record(
            CheckRecord(
                test_id=self.test_id,
                metric=self.metric.name,
                mode=self.metric.mode,
                judge=judge_label(self.metric, self.judges),  # the check's row, not a member's
                error=str(exc).split("\n--- raw judge reply")[0],
                error_kind=type(exc).__name__,
                evidence=self._error_evidence(exc),
                sample_id=self.place.sample_id,
                calls=getattr(exc, "calls", None) or CallTally(),
                scale_low=scale.low,
                scale_high=scale.high,
                texts=self.place.excerpt(),
                sample_index=self.place.sample_index,
            )
        )
        if self.mutants is not None:
            self.mutants.consider(self, exc)

    def with_sample(self, sample: Sample) -> CheckPlan:
        """This plan for another sample (a mutant of its answer): the same metric, options, bar,
        judges and engine, recorded nowhere unless :meth:`record` is called."""
        twin = copy.copy(self)
        twin.sample = sample
        twin.place = CheckPlace(self.test_id, sample, self.place.sample_index)
        twin.mutants = None  # a mutant's mutants are not made
        return twin

    def _error_evidence(self, exc: RagError) -> dict[str, Any]:
        if isinstance(exc, NotJudgedError):
            return self.engine.spending.claim_estimate(self.test_id, exc.metric or self.metric.name)
        return {"raw_reply": exc.raw_reply} if isinstance(exc, JudgeError) and exc.raw_reply else {}


def carry_calls(waited: tuple[Any], later: tuple[Any]) -> None:
    """Add the calls a waiting round of a check spent to the outcome of its next round."""
    spent = getattr(waited[0], "calls", None)
    outcome = later[0]
    if spent is None:
        return
    if isinstance(outcome, JudgeError):
        if outcome.calls is None:
            outcome.calls = CallTally()
        outcome.calls.add(spent)
    elif isinstance(outcome, MetricResult):
        outcome.calls.add(spent)  # a MetricResult is frozen, its tally is not
