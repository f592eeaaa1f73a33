"""Evaluating one metric on one sample across every configured judge and repeat.

Each judge answers ``repeats`` times (distinct cache entries through the repeat index); a judge's score
is the median of its repeats and the ensemble's score is the median of its judges' scores (as the omk specification aggregates repeats and ensembles).
The reasons and evidence shown come from the judgment closest to that final score, so a failure
message explains the number it reports.

When every judgment came with the odds of its grade, the result also carries the expected score and
the probability of reaching the threshold: per judge the means over its repeats, for the check the
means over all judgments (:func:`~pytest_rag.scoring.grade_odds.pooled`). With ``pass_on="expected"``
the check passes when its expected score reaches the threshold; a check without odds still passes on
its score.
"""

from __future__ import annotations

import statistics
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from ..errors import JudgeError, NotJudgedError, cut_text
from ..inputs import Sample
from ..judges.embeddings import EmbeddingJudge, StoredVectors, Vectors, embedding_request
from ..judges.protocol import Judge
from ..judges.request import JudgeRequest
from ..metrics.base import Metric, Scored
from ..results import COMPUTED, CallTally, JudgeScore, MetricResult
from ..scoring.grade_odds import GradeOdds, against_bar, pooled
from .embeddings import check_embeddable, embedder_for
from .judgment import JudgmentEngine
from .loop import gather_all

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


@dataclass
class BoundAsker:
    """The :class:`~pytest_rag.metrics.base.Asker` a metric receives: one judge, one repeat index."""

    engine: JudgmentEngine
    judge: Judge
    repeat: int
    test_id: str
    cache_only: bool
    metric: str = ""
    tally: CallTally = field(default_factory=CallTally)

    @property
    def judge_label(self) -> str:
        return self.judge.spec.label

    @property
    def offline(self) -> bool:
        return bool(self.judge.offline)

    async def __call__(self, request: JudgeRequest, model: type[V]) -> V:
        verdict, _ = await self.graded(request, model)
        return verdict

    async def graded(self, request: JudgeRequest, model: type[V]) -> tuple[V, GradeOdds | None]:
        try:
            verdict, tally, odds = await self.engine.ask_graded(
                self.judge,
                request.with_repeat(self.repeat),
                model,
                test_id=self.test_id,
                cache_only=self.cache_only,
            )
        except JudgeError as exc:
            # A failed call was sent and paid too. Its counts join this asker's now: when judges or
            # repeats of one check fail together only the first error is raised, and the counts
            # carried by the others would be lost with them.
            if exc.calls is not None:
                self.tally.add(exc.calls)
                exc.calls = None
            raise
        self.tally.add(tally)
        return verdict, odds

    async def gather(self, *awaitables: Awaitable[T]) -> list[T]:
        return await gather_all(self.cache_only, list(awaitables))

    async def embed(self, texts: Sequence[str], model: str | None = None) -> Vectors:
        """Embed ``texts`` with the embedder that goes with this judge, as an ordinary engine request
        (cached, retried, refused on a replay miss, counted in this asker's tally): a float matrix
        with one row per text."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        check_embeddable(self.metric, texts)
        embedding_judge = EmbeddingJudge(embedder_for(self.judge, model))
        sub = replace(self, judge=embedding_judge, repeat=0)  # shares this asker's tally
        verdict = await sub(embedding_request(self.metric, texts), StoredVectors)
        if len(verdict.matrix) != len(texts):
            raise JudgeError(
                f"the embedder returned {len(verdict.matrix)} vectors for {len(texts)} texts",
                judge=embedding_judge.spec.label,
                metric=self.metric,
            )
        matrix: Vectors = verdict.matrix
        return matrix


def ensemble_label(judges: Sequence[Judge]) -> str:
    labels = [j.spec.label for j in judges]
    return labels[0] if len(labels) == 1 else "ensemble(" + ",".join(labels) + ")"


def judge_label(metric: Metric, judges: Sequence[Judge]) -> str:
    """Who a check of ``metric`` is labelled as judged by: its judges, or :data:`COMPUTED` for a
    metric that asks none (so no summary row, report or failure names a judge that was never asked)."""
    return ensemble_label(judges) if metric.asks_judge else COMPUTED


def tell_each_judgment(
    exc: JudgeError,
    askers: Sequence[BoundAsker],
    outcomes: Mapping[int, Scored | JudgeError],
    repeats: int,
) -> None:
    """Add what every judgment of an ensemble (or of repeats) said to the error of the one that
    failed: the check has no score, but a member's score is what the user needs to weigh the
    failure (one judge down, or all of them), and the error is all the report and record keep."""
    said = []
    for at, asker in enumerate(askers):
        name = asker.judge_label + (f" (repeat {asker.repeat + 1})" if repeats > 1 else "")
        outcome = outcomes.get(at)
        if isinstance(outcome, JudgeError):
            said.append(f"{name} failed: {cut_text(outcome.reason, 200)}")
        elif outcome is not None:
            said.append(f"{name} scored {outcome.score:g}")
        else:
            said.append(f"{name} was not asked")
    text, block, raw = str(exc).partition("\n--- raw judge reply")
    exc.args = (f"{text}\nEach judgment of this check: {'; '.join(said)}{block}{raw}",)


async def evaluate(
    engine: JudgmentEngine,
    metric: Metric,
    sample: Sample,
    options: Mapping[str, Any],
    *,
    judges: Sequence[Judge],
    repeats: int,
    threshold: float | None,
    test_id: str,
    cache_only: bool,
    pass_on: str = "score",
) -> MetricResult:
    if not metric.asks_judge:  # the same number from every judge and repeat: computed once
        judges, repeats = judges[:1], 1
    askers = [
        BoundAsker(engine, judge, repeat, test_id, cache_only, metric.name)
        for judge in judges
        for repeat in range(repeats)
    ]
    outcomes: dict[int, Scored | JudgeError] = {}

    async def scored(at: int, asker: BoundAsker) -> Scored:
        try:
            outcomes[at] = await metric.score(asker, sample, options)
        except JudgeError as exc:
            outcomes[at] = exc
            raise
        return outcomes[at]  # type: ignore[return-value]

    try:
        runs: list[Scored] = await gather_all(
            cache_only, [scored(at, asker) for at, asker in enumerate(askers)]
        )
    except JudgeError as exc:
        if len(askers) > 1 and not isinstance(exc, NotJudgedError):  # not judged by design: no failure
            tell_each_judgment(exc, askers, outcomes, repeats)
        # The calls made before the failure (a multi-step metric's first steps) were made and paid:
        # the error's record counts them with the failed calls' own, which the askers hold.
        spent = CallTally()
        for asker in askers:
            spent.add(asker.tally)
        if exc.calls is not None:
            spent.add(exc.calls)
        exc.calls = spent
        raise
    tally = CallTally()
    for asker in askers:
        tally.add(asker.tally)
    per_judge: list[JudgeScore] = []
    for judge in judges:
        own = [run for run, asker in zip(runs, askers, strict=True) if asker.judge is judge]
        scores = [run.score for run in own]
        expected, chance = pooled([run.odds for run in own], threshold)
        per_judge.append(
            JudgeScore(
                judge=judge.spec.label if metric.asks_judge else COMPUTED,
                score=statistics.median(scores),
                repeats=scores,
                expected_score=expected,
                pass_probability=chance,
            )
        )
    final = statistics.median([j.score for j in per_judge])
    shown = min(runs, key=lambda run: abs(run.score - final))
    scale = metric.scale
    expected, chance = pooled([run.odds for run in runs], threshold)
    passed, passed_on = against_bar(final, expected if pass_on == "expected" else None, threshold)
    return MetricResult(
        metric=metric.name,
        mode=metric.mode,
        judge=judge_label(metric, judges),
        score=final,
        scale_low=scale.low,
        scale_high=scale.high,
        normalized=scale.normalize(final),
        threshold=threshold,
        passed=passed,
        reasons=shown.reasons,
        evidence=shown.evidence,
        details=dict(shown.details),
        judges=per_judge,
        calls=tally,
        expected_score=expected,
        pass_probability=chance,
        passed_on=passed_on,
    )
