"""The mutants of one pytest process: the passing checks it keeps while the tests run, and their
mutants judged when the tests are done.

Every answer-level check that passes its bar is kept (:meth:`MutantRun.consider`, called as the
check is recorded); under ``--rag-dry-run`` a check that was counted instead of judged is kept too,
so the dry run counts what its mutants would cost should it pass. At the end of the process (a
pytest-xdist worker's, or the run's) each kept check's mutants are built and judged with the check's
own plan: its metric, options, bar, judges, repeats and engine, and so the run's cache, rate limits,
budget, dry run and batch queue. They run after the tests, so a mutant can never change a test's
outcome; their records are kept here, apart from the session's check records.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Coroutine, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine.evaluation import ensemble_label
from ..engine.loop import gather_window
from ..errors import NotJudgedError, RagError, cut_text
from ..results import CallTally, MetricResult
from .build import Mutant, mutants_of
from .classes import MUTATED_CHECKS, MUTATION_CLASSES
from .records import (
    CAUGHT,
    NO_MUTANT,
    NO_VERDICT,
    SURVIVED,
    MutantRecord,
    kept_sentence,
    mutant_order,
    read_rows,
)

if TYPE_CHECKING:
    from ..run.check_plan import CheckPlan

T = TypeVar("T")
RunOnLoop = Callable[[Coroutine[Any, Any, T]], T]

#: How much of a judge's error message a mutant's record keeps.
ERROR_CHARS = 500


@dataclasses.dataclass(frozen=True)
class _Kept:
    """A check kept for mutation: its plan, and the label of the judge (or ensemble) that passed it."""

    plan: CheckPlan
    judge: str


class MutantRun:
    """The kept checks and the mutant records of this process; thread safe (tests may record checks
    from several threads, and pytest-xdist workers' records arrive on the controller)."""

    def __init__(self, *, dry_run: bool = False) -> None:
        self.dry_run = dry_run
        self._kept: list[_Kept] = []
        self._records: list[MutantRecord] = []
        self._lock = threading.Lock()

    def consider(self, plan: CheckPlan, outcome: MetricResult | RagError) -> None:
        """Keep the check of ``plan`` if its mutants are to be judged: an answer-level check that
        passed its bar (``outcome`` its result), or, in a dry run, one that was counted instead of
        judged (``outcome`` its :class:`~pytest_rag.errors.NotJudgedError`)."""
        metric = plan.metric
        if (metric.name, metric.mode) not in MUTATED_CHECKS or not plan.sample.answer.strip():
            return
        if isinstance(outcome, MetricResult):
            if outcome.passed is not True:
                return
            judge = outcome.judge
        elif self.dry_run and type(outcome) is NotJudgedError:
            judge = ensemble_label(plan.judges)
        else:
            return
        with self._lock:
            self._kept.append(_Kept(plan, judge))

    def judge(self, run_on_loop: RunOnLoop[Any], window: int) -> None:
        """Build and judge the mutants of every check kept so far: cached and offline judgments at
        once, the others ``window`` at a time on pytest-rag's loop (``run_on_loop``, called only
        when some judgment is live). Every outcome becomes a record; nothing is raised."""
        with self._lock:
            kept, self._kept = self._kept, []
        jobs: list[tuple[_Kept, Mutant, CheckPlan]] = []
        made: list[MutantRecord] = []
        for check in kept:
            plan = check.plan
            sources = [chunk.text for chunk in plan.sample.contexts]
            if plan.sample.reference:
                sources.append(plan.sample.reference)
            try:
                found = mutants_of(plan.sample.answer, sources)
            except Exception as exc:  # a text the edits cannot read: said, never the session's crash
                why = {
                    "error_kind": type(exc).__name__,
                    "error": cut_text(f"no mutant could be built: {exc}", ERROR_CHARS),
                }
                made.extend(_record(check, mutation, NO_VERDICT, **why) for mutation in MUTATION_CLASSES)
                continue
            for mutation, mutant in found.items():
                if mutant is None:
                    made.append(_record(check, mutation, NO_MUTANT))
                else:
                    twin = plan.with_sample(dataclasses.replace(plan.sample, answer=mutant.answer))
                    jobs.append((check, mutant, twin))
        outcomes: dict[int, MetricResult | BaseException] = {}
        live: list[int] = []
        for index, (_, _, twin) in enumerate(jobs):
            try:
                early = twin.fast()
            except Exception as exc:  # a judge error, or a bug of a plugin metric: no verdict either way
                outcomes[index] = exc
                continue
            if early is None:
                live.append(index)
            else:
                outcomes[index] = early
        if live:
            settled = run_on_loop(gather_window([partial(_settle, jobs[i][2]) for i in live], window))
            outcomes.update(zip(live, settled, strict=True))
        for index, (check, mutant, twin) in enumerate(jobs):
            made.append(_judged(check, mutant, twin, outcomes[index]))
        with self._lock:
            self._records.extend(made)

    def records(self) -> list[MutantRecord]:
        """Every record of this run so far (this process's and those its workers sent), in report order."""
        with self._lock:
            return mutant_order(self._records)

    def load_json_rows(self, rows: Sequence[Any], source: str) -> None:
        """Add the records a pytest-xdist worker sent."""
        found = read_rows(list(rows), source)
        with self._lock:
            self._records.extend(found)


async def _settle(plan: CheckPlan) -> MetricResult | BaseException:
    """The live evaluation of one mutant, its failure boxed: one mutant's error is its outcome."""
    try:
        return await plan.live()
    except Exception as exc:
        return exc


def _record(check: _Kept, mutation: str, outcome: str, **fields: Any) -> MutantRecord:
    plan = check.plan
    return MutantRecord(
        test_id=plan.test_id,
        sample_id=plan.place.sample_id,
        sample_index=plan.place.sample_index,
        metric=plan.metric.name,
        mode=plan.metric.mode,
        judge=check.judge,
        mutation=mutation,
        outcome=outcome,
        threshold=plan.threshold,
        **fields,
    )


def _judged(
    check: _Kept, mutant: Mutant, twin: CheckPlan, outcome: MetricResult | BaseException
) -> MutantRecord:
    words = {"removed": mutant.removed, "added": mutant.added, "sentence": kept_sentence(mutant.sentence)}
    if isinstance(outcome, MetricResult):
        caught = outcome.passed is not True
        return _record(
            check,
            mutant.mutation,
            CAUGHT if caught else SURVIVED,
            score=outcome.score,
            calls=outcome.calls.model_copy(),
            **words,
        )
    estimate: dict[str, Any] = {}
    if type(outcome) is NotJudgedError:
        estimate = twin.engine.spending.claim_estimate(twin.test_id, outcome.metric or twin.metric.name)
    calls = getattr(outcome, "calls", None)
    return _record(
        check,
        mutant.mutation,
        NO_VERDICT,
        error_kind=type(outcome).__name__,
        error=cut_text(str(outcome).split("\n--- raw judge reply")[0], ERROR_CHARS),
        calls=calls.model_copy() if isinstance(calls, CallTally) else CallTally(),
        estimate=estimate,
        **words,
    )
