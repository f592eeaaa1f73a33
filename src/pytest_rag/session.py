"""The session object that the plugin's hooks delegate to (as syrupy's hooks delegate to its
``SnapshotSession``): it owns the settings, the registry, the judges, the engine, the loop and the
results, and builds each of them only when a test first needs it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .config import RagSettings, read_settings
from .errors import ConfigError, JudgeError, NotJudgedError, RagError
from .session_results import SessionResults

if TYPE_CHECKING:  # the modules behind these import pydantic; loaded when a test first asks
    from .engine.loop import LoopThread
    from .inputs import Sample
    from .judges.protocol import Judge
    from .registry import Registry
    from .results import MetricResult


class RagSession:
    def __init__(self, config: Any) -> None:
        self.config = config
        self.settings: RagSettings = read_settings(config)
        self.results = SessionResults()
        self.started_at = time.time()
        self._registry: Registry | None = None
        self._judges: list[Judge] | None = None
        self._engine: Any = None
        self._loop_thread: LoopThread | None = None
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
            from .judges.protocol import JudgeOptions
            from .judges.spec import parse_judge_specs

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
            options = JudgeOptions(timeout_s=settings.timeout_s)
            self._judges = [self.registry.providers[spec.provider](spec, options) for spec in specs]
        return self._judges

    def _check_threshold_names(self) -> None:
        """A threshold for a metric nobody registered is a typo that would silently leave the default."""
        known = set(self.registry.metric_names())
        from .metrics.catalog import ALIASES

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
            from .engine.judgment import EngineSettings, JudgmentEngine
            from .engine.pricing import PriceTable
            from .engine.ratelimit import RateLimiter
            from .engine.spending import Spending

            s = self.settings
            prices = PriceTable.from_ini_lines(s.prices)
            share = self._worker_share()  # xdist workers split the run-wide limits and budget
            self._engine = JudgmentEngine(
                JudgmentCache(s.cache_dir, s.cache_mode),
                EngineSettings(
                    concurrency=s.concurrency,
                    timeout_s=s.timeout_s,
                    deadline_s=s.deadline_s,
                    max_attempts=s.max_attempts,
                ),
                prices,
                limiter=RateLimiter(s.rpm * share if s.rpm else None, s.tpm * share if s.tpm else None),
                spending=Spending(
                    prices,
                    dry_run=s.dry_run,
                    budget_usd=None if s.budget_usd is None else s.budget_usd * share,
                ),
            )
        return self._engine

    def _worker_share(self) -> float:
        """This process's share of run-wide limits: 1, or 1/N in each of N pytest-xdist workers."""
        workerinput = getattr(self.config, "workerinput", None)
        count = int(workerinput.get("workercount", 1)) if isinstance(workerinput, dict) else 1
        return 1.0 / max(1, count)

    @property
    def engine_started(self) -> bool:
        return self._engine is not None

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

    def _plan(
        self,
        test_id: str,
        name: str,
        mode: str | None,
        sample: Sample,
        options: Mapping[str, Any],
        threshold: float | None,
    ) -> Any:
        """Return a factory of the evaluation coroutine (called once per attempt: fast, then live)."""
        from .engine.evaluation import evaluate

        metric = self._metric_class(name, mode)()
        metric.check_inputs(sample)
        judges = self.judges()
        engine = self.engine
        bar = self.threshold_for(metric.name, metric.default_threshold, threshold, mode=metric.mode)

        def make(cache_only: bool) -> Coroutine[Any, Any, MetricResult]:
            return evaluate(
                engine,
                metric,
                sample,
                options,
                judges=judges,
                repeats=self.settings.repeats,
                threshold=bar,
                test_id=test_id,
                cache_only=cache_only,
            )

        return make

    def score(
        self,
        test_id: str,
        name: str,
        sample: Sample,
        *,
        mode: str | None = None,
        options: Mapping[str, Any] | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        from .engine.loop import UNFINISHED, run_fast
        from .results import MetricResult

        make = self._plan(test_id, name, mode, sample, options or {}, threshold)
        try:
            result = run_fast(make(True))
            if result is UNFINISHED:
                result = self._loop.run(make(False))
        except RagError as exc:
            self._record_error(test_id, name, mode, sample, exc)
            raise
        assert isinstance(result, MetricResult)
        return self._record(test_id, sample, result)

    async def ascore(
        self,
        test_id: str,
        name: str,
        sample: Sample,
        *,
        mode: str | None = None,
        options: Mapping[str, Any] | None = None,
        threshold: float | None = None,
    ) -> MetricResult:
        from .engine.loop import UNFINISHED, run_fast
        from .results import MetricResult

        make = self._plan(test_id, name, mode, sample, options or {}, threshold)
        try:
            result = run_fast(make(True))
            if result is UNFINISHED:
                result = await self._loop.run_async(make(False))
        except RagError as exc:
            self._record_error(test_id, name, mode, sample, exc)
            raise
        assert isinstance(result, MetricResult)
        return self._record(test_id, sample, result)

    def score_many(
        self,
        test_id: str,
        jobs: Sequence[tuple[str, str | None, Sample, Mapping[str, Any], float | None]],
    ) -> list[MetricResult | RagError]:
        """Score several (metric, sample) jobs concurrently; each job ends as a result or an error."""
        from .engine.loop import UNFINISHED, gather_all, run_fast
        from .results import MetricResult

        plans: list[Any] = []
        outcomes: list[MetricResult | RagError | None] = []
        for name, mode, sample, options, threshold in jobs:
            try:
                plans.append(self._plan(test_id, name, mode, sample, options, threshold))
                outcomes.append(None)
            except RagError as exc:  # bad input or unknown metric: the caller's error, not a judgment
                plans.append(None)
                outcomes.append(exc)
        pending = [i for i, plan in enumerate(plans) if plan is not None]
        from .report.progress import batch_progress

        progress = batch_progress(self.config, len(pending))
        fast: dict[int, MetricResult] = {}
        live: list[int] = []
        unexpected: Exception | None = (
            None  # a bug (e.g. in a plugin metric): raised after recording the rest
        )
        for i in pending:
            try:
                value = run_fast(plans[i](True))
            except RagError as exc:
                outcomes[i] = exc
                self._record_error(test_id, jobs[i][0], jobs[i][1], jobs[i][2], exc)
                progress.finished(exc)
                continue
            except Exception as exc:
                unexpected = unexpected or exc
                continue
            if value is UNFINISHED:
                live.append(i)
            else:
                assert isinstance(value, MetricResult)
                fast[i] = value
                progress.finished(value)

        async def settle(i: int) -> tuple[MetricResult | Exception]:
            # boxed: gather_all re-raises an exception that is returned as a value
            try:
                value: MetricResult = await plans[i](False)
                progress.finished(value)
                return (value,)
            except RagError as exc:
                progress.finished(exc)
                return (exc,)
            except Exception as exc:
                return (exc,)

        settled: list[tuple[MetricResult | Exception]] = (
            self._loop.run(gather_all(False, [settle(i) for i in live])) if live else []
        )
        progress.close()
        for i, (value,) in zip(live, settled, strict=True):
            if isinstance(value, RagError):
                outcomes[i] = value
                self._record_error(test_id, jobs[i][0], jobs[i][1], jobs[i][2], value)
            elif isinstance(value, Exception):
                unexpected = unexpected or value
            else:
                fast[i] = value
        for i, result in fast.items():
            outcomes[i] = self._record(test_id, jobs[i][2], result)
        if unexpected is not None:
            raise unexpected
        return [o for o in outcomes if o is not None]

    # -- recording ----------------------------------------------------------------------------------

    def _record(self, test_id: str, sample: Sample, result: MetricResult) -> MetricResult:
        from .results import CheckRecord, SampleExcerpt

        record = CheckRecord.from_result(test_id, result, sample_id=sample.id, texts=SampleExcerpt.of(sample))
        self.results.add(record)
        self.config.hook.pytest_rag_check_recorded(record=record)
        return result

    def _record_error(self, test_id: str, name: str, mode: str | None, sample: Sample, exc: RagError) -> None:
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
            for judge in judges:
                await judge.aclose()

        if self._loop_thread is not None:
            self._loop_thread.stop(final=close_clients)
        if self._engine is not None:
            self._engine.cache.close()
