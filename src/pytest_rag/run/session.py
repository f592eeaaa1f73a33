"""The session object that the plugin's hooks delegate to (as syrupy's hooks delegate to its
``SnapshotSession``): it owns the settings, the registry, the judges, the engine, the loop and the
results, and builds each of them only when a test first needs it.

What it does with them lives beside it: which bar a check is held to in :mod:`.thresholds`, one
check on its way (judged, then recorded) in :mod:`.check_plan`, the records in
:mod:`.session_results`. This module is imported when a test first asks for ``rag_judge``, never at
start-up, so it imports what it uses at the top.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ..config import RagSettings, read_settings
from ..engine.batch.rounds import BatchRounds, not_submitted
from ..engine.batch.run import open_desk
from ..engine.cache import JudgmentCache
from ..engine.judgment import JudgmentEngine
from ..engine.loop import LoopThread, gather_window
from ..engine.pricing import PriceTable
from ..engine.ratelimit import RateLimiter
from ..engine.spending import Spending
from ..errors import ConfigError, InputError, RagError, WaitingForBatchError, handing_errors_to
from ..judges.openai.embeddings import close_embedding_clients
from ..judges.spec import JudgeReach, check_base_urls, parse_judge_specs
from ..metrics.catalog import resolve_metric
from ..mutants.run import MutantRun
from ..registry import Registry
from ..report.progress import batch_progress
from ..results import CheckPlace, CheckRecord, MetricResult
from .check_plan import CheckPlan, carry_calls
from .session_results import SessionResults
from .thresholds import Thresholds

if TYPE_CHECKING:
    from ..engine.batch.reply_or_queue import BatchDesk
    from ..helper_forms import Check
    from ..inputs import Sample
    from ..judges.protocol import Judge
    from ..metrics.base import Metric
    from ..mutants.records import MutantRecord


class RagSession:
    def __init__(
        self, config: Any, threshold_names: Sequence[str] | None = None, settings: RagSettings | None = None
    ) -> None:
        self.config = config
        self.settings: RagSettings = (
            settings if settings is not None else read_settings(config, threshold_names)
        )
        self.results = SessionResults(lambda record: config.hook.pytest_rag_check_recorded(record=record))
        self.started_at = time.time()
        self._registry: Registry | None = None
        self._thresholds: Thresholds | None = None
        self._judges: list[Judge] | None = None
        self._engine: JudgmentEngine | None = None
        self._loop_thread: LoopThread | None = None
        self.batching = self.settings.batch.enabled
        """True once a check of this run may wait for a provider batch (--rag-batch, evaluate(batch=True))."""
        self.mutants = MutantRun(dry_run=self.settings.dry_run) if self.settings.mutants.enabled else None
        """Under --rag-mutants, the passing answer-level checks kept for mutation, and their mutants."""
        # Tests may score from several threads at once: each lazily built part must be built once
        # (two engines would mean two budgets, two rate limiters, two caches).
        self._building = threading.RLock()

    # -- lazily built parts -------------------------------------------------------------------------

    @property
    def registry(self) -> Registry:
        with self._building:
            if self._registry is None:
                self._registry = Registry.from_hook(self.config.hook)
            return self._registry

    @property
    def thresholds(self) -> Thresholds:
        """The ini's thresholds against the registered metrics."""
        with self._building:
            if self._thresholds is None:
                self._thresholds = Thresholds(self.settings.thresholds, self.registry)
            return self._thresholds

    @property
    def _loop(self) -> LoopThread:
        with self._building:
            if self._loop_thread is None:
                self._loop_thread = LoopThread()
            return self._loop_thread

    def judges(self) -> list[Judge]:
        """The configured judges, built on first use; a bad spec raises ConfigError (set-up error)."""
        with self._building:
            if self._judges is None:
                self._judges = self._build_judges()
            return self._judges

    def _build_judges(self) -> list[Judge]:
        settings = self.settings
        assert settings.judge is not None
        try:  # checked at start-up (pytest_rag.run.startup): this only fails for a session built by hand
            specs = parse_judge_specs(
                settings.judge, known_providers=set(self.registry.providers), base_url=settings.base_url
            )
        except ConfigError as exc:
            raise ConfigError(f"{settings.judge_source}: {exc}") from None
        judges = [self.registry.providers[spec.provider](spec, settings.judge_options) for spec in specs]
        reach = [
            JudgeReach(spec, judge.offline, getattr(judge, "base_url", None))
            for spec, judge in zip(specs, judges, strict=True)
        ]
        check_base_urls(reach, settings.base_url, settings.base_url_source)
        return judges

    @property
    def engine(self) -> JudgmentEngine:
        with self._building:
            if self._engine is None:
                self._engine = self._build_engine()
            return self._engine

    def _build_engine(self) -> JudgmentEngine:
        s = self.settings
        prices = PriceTable.from_ini_lines(s.prices)
        share = self._worker_share()  # xdist workers split the run-wide limits and budget
        engine = JudgmentEngine(
            JudgmentCache(s.cache_dir, s.cache_mode),
            s.limits,
            prices,
            limiter=RateLimiter(s.rpm * share if s.rpm else None, s.tpm * share if s.tpm else None),
            spending=Spending(
                prices,
                dry_run=s.dry_run,
                budget_usd=None if s.budget_usd is None else s.budget_usd * share,
                batch_prices=s.batch.enabled,
            ),
        )
        # kept only once its batch desk is open: an engine left without one after a failure
        # would make full-price live calls for the rest of a --rag-batch run
        try:
            engine.batches = open_desk(engine, queueing=s.batch.enabled)
        except BaseException:
            engine.cache.close()
            raise
        return engine

    def batch_desk(self) -> BatchDesk:
        """The engine's batch desk, made on first use by ``evaluate(batch=True)`` in any run."""
        engine = self.engine
        with self._building:
            desk = engine.batches
            if desk is None:
                desk = engine.batches = open_desk(engine, queueing=self.settings.batch.enabled, force=True)
                if desk is None:
                    raise ConfigError(
                        f"evaluate(batch=True) cannot work with --rag-cache={self.settings.cache_mode}: a batch's "
                        "replies are collected into the judgment cache, which must be read and written. Use "
                        "--rag-cache=rw (the default)"
                    )
            self.batching = True
            return desk

    def _worker_share(self) -> float:
        """This process's share of run-wide limits: 1, or 1/N in each of N pytest-xdist workers."""
        workerinput = getattr(self.config, "workerinput", None)
        count = int(workerinput.get("workercount", 1)) if isinstance(workerinput, dict) else 1
        return 1.0 / max(1, count)

    # -- planning and scoring -----------------------------------------------------------------------

    def metric_class(self, name: str, mode: str | None) -> type[Metric]:
        """The registered class of a metric name (or short alias such as ``relevancy``) and mode."""
        registry = self.registry
        found = registry.metrics.get((name, mode or "default"))
        if found is not None:  # a registered name and mode, asked for on every check: found at once
            return found
        if not isinstance(name, str):
            raise InputError(
                f"a metric is named by a string, got {type(name).__name__} ({name!r:.60}); "
                "write e.g. score('faithfulness', ...) or metrics=['faithfulness']"
            )
        if name not in {registered for registered, _ in registry.metrics}:
            name, mode = resolve_metric(name, mode)  # short names such as relevancy=3 in assert_rag
        return registry.metric(name, mode)

    def plan(
        self, test_id: str, check: Check, sample: Sample, *, sample_index: int | None = None
    ) -> CheckPlan:
        """Everything about one check that can be known before a judge is paid: the metric, its
        options and inputs checked, and its bar, resolved here once (an input error otherwise).
        ``sample_index`` is the sample's position in an ``evaluate`` call, kept on the record."""
        assert check.metric is not None
        metric_class = self.metric_class(check.metric, check.mode)
        bar = self.thresholds.of(metric_class, check.threshold)
        metric = metric_class()
        metric.check_options(check.options)
        metric.check_inputs(sample)
        metric.check_threshold(bar, check.options, self.thresholds.source(metric_class, check.threshold))
        return CheckPlan(
            test_id,
            check,
            sample,
            metric,
            bar,
            sample_index=sample_index,
            judges=self.judges(),
            engine=self.engine,
            repeats=self.settings.repeats,
            results=self.results,
            pass_on=self.settings.pass_on,
            mutants=self.mutants,
        )

    def threshold_for(
        self, name: str, default: float | None, explicit: float | None, *, mode: str = "default"
    ) -> float | None:
        """The bar of a check computed without a registered metric class (``overall_score``)."""
        return self.thresholds.bar(name, default, explicit, mode)

    def score(self, plan: CheckPlan) -> MetricResult:
        """Score one planned check from a sync test: cached and offline judgments finish here, live
        ones on pytest-rag's loop while this thread waits."""
        with handing_errors_to(plan.record_error):
            result = plan.fast()
            if result is None:
                result = self._loop.run(plan.live())
        return plan.record(result)

    async def ascore(self, plan: CheckPlan) -> MetricResult:
        """:meth:`score` for async tests: the test's own loop keeps running while the judges work."""
        with handing_errors_to(plan.record_error):
            result = plan.fast()
            if result is None:
                result = await self._loop.run_async(plan.live())
        return plan.record(result)

    def score_many(
        self,
        test_id: str,
        jobs: Sequence[tuple[Check, Sample]],
        *,
        batch: bool = False,
        sample_indices: Sequence[int] | None = None,
        refuse: Callable[[RagError], None] = lambda error: None,
    ) -> list[MetricResult | RagError]:
        """Score several checks concurrently; each ends as a result or an error. With ``batch``, the
        judgments go through the providers' batch APIs, round after round, until none waits.
        ``sample_indices`` (one per job) are the samples' positions in an ``evaluate`` call, kept on
        the records. A check that cannot even be planned is handed to ``refuse`` too (it is not
        recorded: no judge saw it)."""
        plans: list[CheckPlan | None] = []
        outcomes: list[MetricResult | RagError | None] = []
        for job, (check, sample) in enumerate(jobs):
            try:
                index = sample_indices[job] if sample_indices is not None else None
                plan = self.plan(test_id, check, sample, sample_index=index)
                plans.append(plan)
                outcomes.append(None)
            except RagError as exc:  # bad input or unknown metric: the caller's error, not a judgment
                plans.append(None)
                outcomes.append(exc)
                refuse(exc)
        pending = [(i, plan) for i, plan in enumerate(plans) if plan is not None]
        progress = batch_progress(self.config, len(pending), test_id)
        fast: dict[int, MetricResult] = {}
        live: list[tuple[int, CheckPlan]] = []
        unexpected: Exception | None = (
            None  # a bug (e.g. in a plugin metric): raised after recording the rest
        )
        for i, plan in pending:
            try:
                early = plan.fast()
            except RagError as exc:
                outcomes[i] = exc
                plan.record_error(exc)
                progress.finished(exc)
                continue
            except Exception as exc:
                unexpected = unexpected or exc
                continue
            if early is None:
                live.append((i, plan))
            else:
                fast[i] = early
                progress.finished(early)

        async def settle(plan: CheckPlan) -> tuple[MetricResult | Exception]:
            # boxed: one check's failure is its outcome, not the batch's
            try:
                value = await plan.live()
                progress.finished(value)
                return (value,)
            except WaitingForBatchError as exc:  # not finished: a later round (or run) judges it
                return (exc,)
            except RagError as exc:
                progress.finished(exc)
                return (exc,)
            except Exception as exc:
                return (exc,)

        # a few checks per concurrency slot in flight: the judge stays busy, memory stays flat
        window = 4 * self.settings.limits.concurrency

        def run(todo: Sequence[tuple[int, CheckPlan]]) -> list[tuple[MetricResult | Exception]]:
            jobs = [partial(settle, plan) for _, plan in todo]
            return self._loop.run(gather_window(jobs, window)) if todo else []

        if batch and live:
            rounds = BatchRounds(self.batch_desk(), self.settings.batch, show=progress.show)
            settled = rounds.run(
                live,
                run,
                waiting=lambda outcome: isinstance(outcome[0], WaitingForBatchError),
                carry=carry_calls,
                failed=lambda outcome, problem: (not_submitted(outcome[0], problem),),
            )
        else:
            settled = run(live)
        progress.close()
        for (i, plan), (outcome,) in zip(live, settled, strict=True):
            if isinstance(outcome, RagError):
                outcomes[i] = outcome
                plan.record_error(outcome)
            elif isinstance(outcome, Exception):
                unexpected = unexpected or outcome
            else:
                fast[i] = outcome
        for i, result in fast.items():
            done = plans[i]
            assert done is not None
            outcomes[i] = done.record(result)
        if unexpected is not None:
            raise unexpected
        return [o for o in outcomes if o is not None]

    def record(self, test_id: str, result: MetricResult) -> MetricResult:
        """Keep a check computed without a judge (``overall_score``) in the session results."""
        self.results.record(CheckRecord.from_result(result, CheckPlace(test_id)))
        return result

    def judge_mutants(self) -> list[MutantRecord]:
        """--rag-mutants: judge the mutants of the checks this process kept, at its end, with this
        session's judges, engine and loop; every mutant record of the run so far (none without the option)."""
        if self.mutants is None:
            return []
        self.mutants.judge(lambda coro: self._loop.run(coro), 4 * self.settings.limits.concurrency)
        return self.mutants.records()

    # -- end of session -----------------------------------------------------------------------------

    def close(self) -> None:
        judges = self._judges or []

        async def close_clients() -> None:
            for judge in judges:
                await judge.aclose()
            await close_embedding_clients()  # those of embedders that share no judge's client

        if self._loop_thread is not None:
            self._loop_thread.stop(final=close_clients)
        if self._engine is not None:
            if self._engine.batches is not None:
                self._engine.batches.close()
            self._engine.cache.close()
