"""Deciding whether a live judge call may be made: ``--rag-dry-run`` and ``--rag-budget``.

The engine consults :class:`Spending` right before every live call (cached verdicts and the offline
judge never reach it):

* In a dry run no live call is made. The would-be call is counted with its estimated tokens and dollars
  and the judgment ends in :class:`~pytest_rag.errors.NotJudgedError`. The check is recorded as not
  judged, and the test that made it is reported as *skipped* (never passed, never failed: nothing about
  the application was learnt). The estimate travels in the check's record, so the summary can print it
  also when pytest-xdist workers made the calls. A request is counted once, by its cache key, as the
  real run pays for it once and takes every repeat from the cache: within a process here, across
  pytest-xdist workers (who share the cache) in the summary, from the keys in the records.
* With a budget, live calls stop once the dollars spent reach it: every later judgment ends in
  :class:`~pytest_rag.errors.BudgetExceededError`, which fails its test, since the user asked for a
  judgment that was not made. Calls already in flight finish, so the spend can pass the budget by at
  most the cost of ``--rag-concurrency`` calls.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..errors import BudgetExceededError, NotJudgedError, WaitingForBatchError
from ..judges.protocol import Judge
from ..judges.request import JudgeRequest
from .pricing import PriceTable, usd
from .ratelimit import estimate_output_tokens, estimate_prompt_tokens


@dataclass
class Estimate:
    """Would-be calls and what they would cost."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    price_unknown: int = 0
    keyed: dict[str, Estimate] = field(default_factory=dict)
    """The calls among these whose request has a cache key, one each by key: the same request
    counted in two processes is one call of the run, and the summary subtracts the second."""

    def add(self, other: Estimate) -> None:
        self._shift(other, 1)
        self.keyed.update(other.keyed)

    def unique(self, seen: set[str]) -> Estimate:
        """These calls less those whose key is in ``seen`` (counted in another record already);
        their keys join ``seen``."""
        left = replace(self, keyed={})
        for key, call in self.keyed.items():
            if key in seen:
                left._shift(call, -1)
            else:
                left.keyed[key] = call
            seen.add(key)
        return left

    def _shift(self, other: Estimate, sign: int) -> None:
        """Add (``sign=1``) or take away (``sign=-1``) ``other``'s counts, one loop over the counted
        fields, so a new count cannot be missed in one direction."""
        for name in _COUNTED:
            setattr(self, name, getattr(self, name) + sign * getattr(other, name))

    def as_evidence(self) -> dict[str, Any]:
        evidence: dict[str, Any] = {
            "would_call": self.calls,
            "est_tokens_in": self.tokens_in,
            "est_tokens_out": self.tokens_out,
            "est_cost_usd": round(self.cost_usd, 8),
            "price_unknown": self.price_unknown,
        }
        if self.keyed:
            evidence["would_call_keys"] = {
                key: [call.tokens_in, call.tokens_out, round(call.cost_usd, 8), call.price_unknown]
                for key, call in sorted(self.keyed.items())
            }
        return evidence

    @classmethod
    def from_evidence(cls, evidence: Mapping[str, Any]) -> Estimate:
        keyed = evidence.get("would_call_keys")
        return cls(
            calls=int(evidence.get("would_call", 0)),
            tokens_in=int(evidence.get("est_tokens_in", 0)),
            tokens_out=int(evidence.get("est_tokens_out", 0)),
            cost_usd=float(evidence.get("est_cost_usd", 0.0)),
            price_unknown=int(evidence.get("price_unknown", 0)),
            keyed={
                str(key): cls(1, int(call[0]), int(call[1]), float(call[2]), int(call[3]))
                for key, call in (keyed.items() if isinstance(keyed, dict) else ())
            },
        )


_COUNTED = tuple(f.name for f in fields(Estimate) if f.name != "keyed")


class Spending:
    """The run's policy for live calls, plus the dollars spent so far in this process."""

    def __init__(
        self,
        prices: PriceTable,
        *,
        dry_run: bool = False,
        budget_usd: float | None = None,
        batch_prices: bool = False,
    ) -> None:
        if budget_usd is not None and budget_usd < 0:
            raise ValueError(f"a budget must be at least 0 dollars, got {budget_usd}")
        self.prices = prices
        self.dry_run = dry_run
        self.batch_prices = batch_prices
        """Estimate at the batch APIs' prices (under --rag-batch the calls would go into a batch)."""
        self.budget_usd = budget_usd
        self.spent_usd = 0.0
        self.refused = 0
        # (test id, metric) -> would-be calls not yet attached to a record
        self._pending: dict[tuple[str, str], Estimate] = {}
        self._counted: set[str] = set()  # cache keys of the requests counted so far
        self._lock = threading.Lock()

    @property
    def guards(self) -> bool:
        """False when every live call may go ahead (the engine then skips the check entirely)."""
        return self.dry_run or self.budget_usd is not None

    def estimate(self, judge: Judge, request: JudgeRequest, key: str | None = None) -> Estimate:
        """One call of ``request``; ``key`` is its cache key when a repeat of it would be served
        from the cache."""
        tokens_in = estimate_prompt_tokens(request)
        tokens_out = estimate_output_tokens(request)
        prices = self.prices
        if self.batch_prices and prices.batch_lookup(judge.spec) is not None:
            cost, unknown = prices.batch_cost(judge.spec, tokens_in, tokens_out), 0
        else:
            cost, unknown = (
                prices.cost(judge.spec, tokens_in, tokens_out),
                0 if prices.known(judge.spec) else 1,
            )
        call = Estimate(1, tokens_in, tokens_out, cost, unknown)
        if key is not None:
            call.keyed[key] = Estimate(1, tokens_in, tokens_out, cost, unknown)
        return call

    def before_live_call(
        self, judge: Judge, request: JudgeRequest, test_id: str, key: str | None = None
    ) -> None:
        """Raise instead of letting the call happen when the dry run or the budget says so. ``key``
        is the request's cache key when the run stores what it judges (a repeat then costs nothing)."""
        if self.dry_run:
            with self._lock:
                repeat = key is not None and key in self._counted
                if not repeat:
                    estimate = self.estimate(judge, request, key)
                    self._pending.setdefault((test_id, request.metric), Estimate()).add(estimate)
                    if key is not None:
                        self._counted.add(key)
            if repeat:
                raise NotJudgedError(
                    "--rag-dry-run: this judgment was not made, and not counted again: another check of "
                    "this run asks the very same request, which a real run judges once and then takes "
                    "from the cache. Run without --rag-dry-run to judge it",
                    judge=judge.spec.label,
                    metric=request.metric,
                )
            cost = usd(estimate.cost_usd) if not estimate.price_unknown else "price unknown"
            raise NotJudgedError(
                f"--rag-dry-run: this judgment was counted, not made (about {estimate.tokens_in:,} "
                f"prompt tokens, {cost}). Run without --rag-dry-run to judge it",
                judge=judge.spec.label,
                metric=request.metric,
            )
        if self.budget_usd is not None and self.spent_usd >= self.budget_usd:
            with self._lock:
                self.refused += 1
            raise BudgetExceededError(
                f"--rag-budget={usd(self.budget_usd)} is spent ({usd(self.spent_usd)} so far); no more live "
                "judge calls are made in this run. Raise --rag-budget, or rerun: judged checks come from the "
                "cache for free",
                judge=judge.spec.label,
                metric=request.metric,
            )

    def spent(self, cost_usd: float) -> None:
        with self._lock:
            self.spent_usd += cost_usd

    def claim_estimate(self, test_id: str, metric: str) -> dict[str, Any]:
        """The would-be calls of ``metric`` in ``test_id`` not yet attached to a record, as record
        evidence (empty when there are none). The first not-judged record takes them all, so totals
        over records are exact even when a judgment's parallel calls (ensemble judges, repeats) were
        refused together and only the first refusal reached the test."""
        with self._lock:
            estimate = self._pending.pop((test_id, metric), None)
        return estimate.as_evidence() if estimate is not None else {}


def skip_not_judged(report: Any, excinfo: Any, records: list[Any]) -> None:
    """Report a test whose checks were not judged as skipped instead of passed or failed: in a dry run
    (counted), or under ``--rag-batch`` (queued for a provider batch, judged by a later run).

    A test that stopped at :class:`~pytest_rag.errors.NotJudgedError` (in its call or its set-up), or
    finished (e.g. a batch ``evaluate``, whose table holds not-judged rows) after any check of it was
    not judged, learnt nothing about the application. Failures for any other reason stay failures.
    """
    if report.when == "teardown" or report.skipped:
        return
    stopped = excinfo is not None and excinfo.errisinstance(NotJudgedError)
    if report.when == "setup" and not stopped:
        return  # a not-judged check the set-up went past: the call's report, which sees it, decides
    waiting = sum(1 for r in records if r.error_kind == WaitingForBatchError.__name__)
    not_judged = sum(1 for r in records if r.error_kind == NotJudgedError.__name__)
    if not (stopped or (report.passed and (not_judged or waiting))):
        return
    if waiting or (stopped and excinfo.errisinstance(WaitingForBatchError)):
        first = (
            excinfo.value if stopped else next(r for r in records if r.error_kind == "WaitingForBatchError")
        )
        why = str(getattr(first, "reason", None) or first.error).split("waiting for batch: ", 1)[-1]
        reason = f"waiting for batch: {max(waiting, 1)} check(s) not judged yet: {why}"
    else:
        reason = (
            f"--rag-dry-run: {max(not_judged, 1)} check(s) not judged (counted, see the pytest-rag summary)"
        )
    skip_at_test(report, reason)


def skip_at_test(report: Any, reason: str) -> None:
    """Make ``report`` a skip, told at the test's own line (as ``-rs`` lists it), not at the line of
    pytest-rag that found there was nothing to judge."""
    path, lineno = report.location[0], report.location[1]
    report.outcome = "skipped"
    report.longrepr = (str(path), (lineno or 0) + 1, f"Skipped: {reason}")
