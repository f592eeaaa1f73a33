"""The session object that the plugin's hooks delegate to (as syrupy's hooks delegate to its
``SnapshotSession``): it owns the settings, the registry, the judges, the engine, the loop and the
results, and builds each of them only when a test first needs it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .config import RagSettings, read_settings
from .errors import ConfigError, JudgeError, NotJudgedError, RagError

if TYPE_CHECKING:  # the modules behind these import pydantic; loaded when a test first asks
    from .engine.batch.desk import BatchDesk
    from .engine.loop import LoopThread
    from .helper_forms import Check
    from .inputs import Sample
    from .judges.protocol import Judge
    from .metrics.base import Metric
    from .registry import Registry
    from .results import CheckRecord, MetricResult


class SessionResults:
    """Every check of the run, in the order recorded; thread safe (batch forms record concurrently)."""

    def __init__(self) -> None:
        self._records: list[CheckRecord] = []
        self._lock = threading.Lock()

    def add(self, record: CheckRecord) -> None:
        with self._lock:
            self._records.append(record)

    def extend(self, records: list[CheckRecord]) -> None:
        with self._lock:
            self._records.extend(records)

    def __iter__(self) -> Iterator[CheckRecord]:
        with self._lock:
            return iter(list(self._records))

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def for_test(self, test_id: str) -> list[CheckRecord]:
        return [r for r in self if r.test_id == test_id]

    def to_json_rows(self) -> list[dict[str, Any]]:
        return [r.model_dump(mode="json") for r in self]

    def load_json_rows(self, rows: list[dict[str, Any]]) -> None:
        from .results import CheckRecord

        self.extend([CheckRecord.model_validate(row) for row in rows])


class RagSession:
    def __init__(
        self, config: Any, threshold_names: Sequence[str] | None = None, settings: RagSettings | None = None
    ) -> None:
        self.config = config
        self.settings: RagSettings = (
            settings if settings is not None else read_settings(config, threshold_names)
        )
        self.results = SessionResults()
        self.started_at = time.time()
        self._registry: Registry | None = None
        self._judges: list[Judge] | None = None
        self._engine: Any = None
        self._loop_thread: LoopThread | None = None
        self.batching = self.settings.batch.enabled
        """True once a check of this run may wait for a provider batch (--rag-batch, evaluate(batch=True))."""
        # Tests may score from several threads at once: each lazily built part must be built once
        # (two engines would mean two budgets, two rate limiters, two caches).
        self._building = threading.RLock()

    # -- lazily built parts -------------------------------------------------------------------------

    @property
    def registry(self) -> Registry:
        with self._building:
            if self._registry is None:
                from .registry import Registry

                self._registry = Registry.from_hook(self.config.hook)
            return self._registry

    @property
    def _loop(self) -> LoopThread:
        with self._building:
            if self._loop_thread is None:
                from .engine.loop import LoopThread

                self._loop_thread = LoopThread()
            return self._loop_thread

    def judges(self) -> list[Judge]:
        """The configured judges, built on first use; a bad spec raises ConfigError (set-up error)."""
        with self._building:
            return self._build_judges()

    def _build_judges(self) -> list[Judge]:
        if self._judges is None:
            from .judges.spec import check_base_urls, parse_judge_specs

            settings = self.settings
            assert settings.judge is not None
            try:
                specs = parse_judge_specs(
                    settings.judge,
                    known_providers=set(self.registry.providers),
                    base_url=settings.base_url,
                )
            except ConfigError as exc:
                raise ConfigError(f"{exc} (from {settings.judge_source})") from None
            self._check_threshold_names()
            judges = [self.registry.providers[spec.provider](spec, settings.judge_options) for spec in specs]
            check_base_urls(
                list(zip(specs, judges, strict=True)), settings.base_url, settings.base_url_source
            )
            self._judges = judges
        return self._judges

    def _check_threshold_names(self) -> None:
        """A threshold for a metric nobody registered is a typo that would silently leave the default."""
        from .metrics.catalog import ALIASES, COMPUTED

        known = set(self.registry.metric_names()) | set(COMPUTED)

        for key in self.settings.thresholds:
            name = key.split("[", 1)[0].strip()
            if name in ALIASES and name not in known:
                canonical = ALIASES[name][0]
                raise ConfigError(
                    f"thresholds are keyed by metric name: write {canonical!r} instead of {name!r} in the ini"
                )
            if name not in known:
                raise ConfigError(
                    f"a threshold is set for {name!r}, which is not a registered metric; registered "
                    f"metrics: {', '.join(sorted(known))} (check rag_thresholds and rag_threshold_* in the ini)"
                )

    @property
    def engine(self) -> Any:
        with self._building:
            return self._build_engine()

    def _build_engine(self) -> Any:
        if self._engine is None:
            from .engine.cache import JudgmentCache
            from .engine.judgment import JudgmentEngine
            from .engine.pricing import PriceTable
            from .engine.ratelimit import RateLimiter
            from .engine.spending import Spending

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
            from .engine.batch.run import open_desk

            # kept only once its batch desk is open: an engine left without one after a failure
            # would make full-price live calls for the rest of a --rag-batch run
            try:
                engine.batches = open_desk(engine, queueing=s.batch.enabled)
            except BaseException:
                engine.cache.close()
                raise
            self._engine = engine
        return self._engine

    def batch_desk(self) -> BatchDesk:
        """The engine's batch desk, made on first use by ``evaluate(batch=True)`` in any run."""
        engine = self.engine
        with self._building:
            desk: BatchDesk | None = engine.batches
            if desk is None:
                from .engine.batch.run import open_desk

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

    # -- scoring ------------------------------------------------------------------------------------

    def threshold_for(
        self, name: str, default: float | None, explicit: float | None, *, mode: str = "default"
    ) -> float | None:
        """Explicit threshold, else the ini's ``name[mode]``, else the ini's ``name`` when this mode
        scores on the default mode's scale (a 1-5 bar must not judge a 0-1 mode), else ``default``."""
        if explicit is not None:
            return float(explicit)
        thresholds = self.settings.thresholds
        if mode != "default":
            if f"{name}[{mode}]" in thresholds:
                return thresholds[f"{name}[{mode}]"]
            if name in thresholds and not self._same_scale_as_default(name, mode):
                return default
        return thresholds.get(name, default)

    def _metric_class(self, name: str, mode: str | None) -> type[Any]:
        if name not in self.registry.metric_names():
            from .metrics.catalog import resolve_metric

            name, mode = resolve_metric(name, mode)  # short names such as relevancy=3 in assert_rag
        return self.registry.metric(name, mode)

    def threshold_of(self, name: str, mode: str | None, explicit: float | None) -> float | None:
        """The threshold a check of this metric will be held to; None when it has none at all."""
        metric = self._metric_class(name, mode)
        return self.threshold_for(metric.name, metric.default_threshold, explicit, mode=metric.mode)

    def _same_scale_as_default(self, name: str, mode: str) -> bool:
        try:
            return self.registry.metric(name, None).scale == self.registry.metric(name, mode).scale
        except RagError:  # no default mode registered: nothing to share a bar with
            return False

    def _plan(self, test_id: str, check: Check, sample: Sample) -> _Plan:
        """Check the inputs and build the plan of one check (which runs fast first, then live)."""
        assert check.metric is not None
        metric = self._metric_class(check.metric, check.mode)()
        metric.check_options(check.options)
        metric.check_inputs(sample)
        bar = self.threshold_for(metric.name, metric.default_threshold, check.threshold, mode=metric.mode)
        metric.check_threshold(bar, check.options, self._threshold_source(metric, check.threshold))
        return _Plan(self, test_id, check, sample, metric, bar)

    def _threshold_source(self, metric: Metric, explicit: float | None) -> str:
        """Where a check's bar came from, as the user wrote it, for an error about it."""
        if explicit is not None:
            return f"threshold={explicit:g}"
        for key in (f"{metric.name}[{metric.mode}]", metric.name):
            if key in self.settings.thresholds:
                return f"the ini threshold {key} = {self.settings.thresholds[key]:g}"
        return f"the default threshold {metric.default_threshold}"

    def score(self, test_id: str, check: Check, sample: Sample) -> MetricResult:
        """Score one check from a sync test: cached and offline judgments finish here, live ones
        on pytest-rag's loop while this thread waits."""
        plan = self._plan(test_id, check, sample)
        with plan.recording_errors():
            result = plan.fast()
            if result is None:
                result = self._loop.run(plan.live())
        return plan.record(result)

    async def ascore(self, test_id: str, check: Check, sample: Sample) -> MetricResult:
        """:meth:`score` for async tests: the test's own loop keeps running while the judges work."""
        plan = self._plan(test_id, check, sample)
        with plan.recording_errors():
            result = plan.fast()
            if result is None:
                result = await self._loop.run_async(plan.live())
        return plan.record(result)

    def score_many(
        self, test_id: str, jobs: Sequence[tuple[Check, Sample]], *, batch: bool = False
    ) -> list[MetricResult | RagError]:
        """Score several checks concurrently; each ends as a result or an error. With ``batch``, the
        judgments go through the providers' batch APIs, round after round, until none waits."""
        from functools import partial

        from .engine.loop import gather_window
        from .errors import WaitingForBatchError
        from .report.progress import batch_progress

        plans: list[_Plan | None] = []
        outcomes: list[MetricResult | RagError | None] = []
        for check, sample in jobs:
            try:
                plans.append(self._plan(test_id, check, sample))
                outcomes.append(None)
            except RagError as exc:  # bad input or unknown metric: the caller's error, not a judgment
                plans.append(None)
                outcomes.append(exc)
        pending = [(i, plan) for i, plan in enumerate(plans) if plan is not None]
        progress = batch_progress(self.config, len(pending), test_id)
        fast: dict[int, MetricResult] = {}
        live: list[tuple[int, _Plan]] = []
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

        async def settle(plan: _Plan) -> tuple[MetricResult | Exception]:
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

        def run(todo: Sequence[tuple[int, _Plan]]) -> list[tuple[MetricResult | Exception]]:
            jobs = [partial(settle, plan) for _, plan in todo]
            return self._loop.run(gather_window(jobs, window)) if todo else []

        if batch and live:
            from .engine.batch.rounds import BatchRounds

            rounds = BatchRounds(self.batch_desk(), self.settings.batch, show=progress.show)
            settled = rounds.run(
                live,
                run,
                waiting=lambda outcome: isinstance(outcome[0], WaitingForBatchError),
                carry=_carry_calls,
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

    # -- recording ----------------------------------------------------------------------------------

    def record(self, test_id: str, result: MetricResult, sample: Sample | None = None) -> MetricResult:
        """Keep a scored check in the session results (and tell the plugins); returns the result."""
        from .results import CheckRecord, SampleExcerpt

        record = CheckRecord.from_result(
            test_id,
            result,
            sample_id=sample.id if sample is not None else None,
            texts=SampleExcerpt.of(sample) if sample is not None else None,
        )
        self.results.add(record)
        self.config.hook.pytest_rag_check_recorded(record=record)
        return result

    def record_error(self, test_id: str, name: str, mode: str | None, sample: Sample, exc: RagError) -> None:
        """Keep a check that ended in an error, counted in the summary and never a pass."""
        from .engine.evaluation import ensemble_label
        from .results import CallTally, CheckRecord, SampleExcerpt

        judge = getattr(exc, "judge", "") or self.settings.judge or ""
        try:
            scale = self.registry.metric(name, mode).scale  # so an all-error summary row shows its scale
        except RagError:
            scale = None
        record = CheckRecord(
            test_id=test_id,
            metric=name,
            mode=mode or "default",
            judge=judge
            if not self._judges
            else ensemble_label(self._judges),  # the check's row, not a member's
            error=str(exc).split("\n--- raw judge reply")[0],
            error_kind=type(exc).__name__,
            evidence=self._error_evidence(test_id, name, exc),
            sample_id=sample.id,
            calls=getattr(exc, "calls", None) or CallTally(),
            scale_low=scale.low if scale else None,
            scale_high=scale.high if scale else None,
            texts=SampleExcerpt.of(sample),
        )
        self.results.add(record)
        self.config.hook.pytest_rag_check_recorded(record=record)

    def _error_evidence(self, test_id: str, name: str, exc: RagError) -> dict[str, Any]:
        if isinstance(exc, NotJudgedError) and self._engine is not None:
            return self._engine.spending.claim_estimate(test_id, exc.metric or name)  # type: ignore[no-any-return]
        return {"raw_reply": exc.raw_reply} if isinstance(exc, JudgeError) and exc.raw_reply else {}

    # -- end of session -----------------------------------------------------------------------------

    def close(self) -> None:
        judges = self._judges or []

        async def close_clients() -> None:
            from .engine.embeddings import close_embedding_clients

            for judge in judges:
                await judge.aclose()
            await close_embedding_clients()  # those of embedders that share no judge's client

        if self._loop_thread is not None:
            self._loop_thread.stop(final=close_clients)
        if self._engine is not None:
            if self._engine.batches is not None:
                self._engine.batches.close()
            self._engine.cache.close()


def _carry_calls(waited: tuple[Any], later: tuple[Any]) -> None:
    """Add the calls a waiting round of a check spent to the outcome of its next round."""
    from .results import CallTally, MetricResult

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


class _Plan:
    """One check on its way: the metric with its inputs, judges and bar, tried on the fast path
    (cached or offline judgments, no loop) and, when a live call is needed, run again for real."""

    def __init__(
        self,
        session: RagSession,
        test_id: str,
        check: Check,
        sample: Sample,
        metric: Metric,
        threshold: float | None,
    ) -> None:
        self.session = session
        self.test_id = test_id
        self.check = check
        self.sample = sample
        self.metric = metric
        self.threshold = threshold
        self.judges = session.judges()
        self.engine = session.engine

    def _evaluation(self, cache_only: bool) -> Coroutine[Any, Any, MetricResult]:
        from .engine.evaluation import evaluate

        return evaluate(
            self.engine,
            self.metric,
            self.sample,
            self.check.options,
            judges=self.judges,
            repeats=self.session.settings.repeats,
            threshold=self.threshold,
            test_id=self.test_id,
            cache_only=cache_only,
        )

    def fast(self) -> MetricResult | None:
        """The result when every judgment is cached or offline; None when a live call is needed."""
        from .engine.loop import UNFINISHED, run_fast

        value = run_fast(self._evaluation(True))
        return None if value is UNFINISHED else value  # type: ignore[return-value]

    def live(self) -> Coroutine[Any, Any, MetricResult]:
        return self._evaluation(False)

    @contextmanager
    def recording_errors(self) -> Iterator[None]:
        """A judgment that ends in an error is recorded (counted, never a pass), then re-raised."""
        __tracebackhide__ = True
        try:
            yield
        except RagError as exc:
            self.record_error(exc)
            raise

    def record(self, result: MetricResult) -> MetricResult:
        return self.session.record(self.test_id, result, self.sample)

    def record_error(self, exc: RagError) -> None:
        self.session.record_error(self.test_id, self.check.metric or "", self.check.mode, self.sample, exc)
