"""A collected batch reply, or the queue: what the judgment engine consults where it would make a
live call. The engine holds it as its batch desk (:class:`BatchDesk`).

:meth:`BatchDesk.answer` returns the reply a finished batch gave for the request (read by the judge's
own parsing, then validated, repaired and stored by the engine exactly as a live reply), or queues the
request and raises :class:`~pytest_rag.errors.WaitingForBatchError`, or returns None to let the engine
call the judge live (a run without ``--rag-batch``, or a judge whose provider has no batch API).

Where a request is queued depends on who asked: inside ``evaluate(batch=True)`` (a
:class:`BatchScope` is active) it joins that call's own batch; under ``--rag-batch`` it joins the run's
queue on disk, submitted when the run ends. A request already pending in a submitted batch is never
queued again, and the queue ignores a key it holds already, so several processes queueing the same
request submit it once.

A collected reply stays on disk until the engine has stored its verdict in the cache, or its check
ended in an error (the next run then asks again). A reply whose verdict was invalid stays while its
repair request waits in a later batch: the repair needs it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import ValidationError

from ...errors import JudgeError, WaitingForBatchError
from ...judges.batch_api import BatchAPI, BatchTarget, CollectedReply, QueuedRequest
from ...judges.protocol import Judge, JudgeReply, TransientFault
from ...judges.request import JudgeRequest
from ...results import CallTally
from ..cache import judgment_key
from ..grade_tokens import reply_of_stored
from ..ratelimit import estimate_output_tokens, estimate_prompt_tokens
from .providers import api_for_judge
from .store import BatchStore

if TYPE_CHECKING:
    from ..cache import JudgmentCache
    from ..pricing import PriceTable
    from ..spending import Spending


@dataclass
class BatchScope:
    """The requests one ``evaluate(batch=True)`` call queued and waits for (its own batch)."""

    queued: dict[str, QueuedRequest] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)

    @contextmanager
    def active(self) -> Iterator[BatchScope]:
        """Judgments started inside (on this thread, and the judge loop's tasks it starts) join it."""
        token = _SCOPE.set(self)
        try:
            yield self
        finally:
            _SCOPE.reset(token)


_SCOPE: ContextVar[BatchScope | None] = ContextVar("pytest_rag_batch_scope", default=None)
_ASKED: ContextVar[str | None] = ContextVar("pytest_rag_batch_asked", default=None)
"""The key of the latest first request in this task: the engine asks a repair right after it."""


@dataclass
class BatchDesk:
    """The batches of one cache directory, as one process's engine sees them; ``queueing`` is
    ``--rag-batch`` (without it a miss outside ``evaluate(batch=True)`` is judged live)."""

    store: BatchStore
    cache: JudgmentCache
    prices: PriceTable
    spending: Spending
    queueing: bool

    def __post_init__(self) -> None:
        self._pending = self.store.pending_keys()
        self._replies = self.store.reply_count() > 0
        self._adaptations = self.store.adaptations()
        self._routes: dict[int, tuple[BatchAPI, BatchTarget] | None] = {}
        self._taken: set[str] = set()
        self._lock = threading.Lock()

    def reload(self) -> None:
        """Read again which keys are pending (after this process submitted or collected)."""
        pending, replies = self.store.pending_keys(), self.store.reply_count() > 0
        with self._lock:
            self._pending, self._replies = pending, replies

    def _idle(self) -> bool:
        """True when nothing can come of asking: no reply waits to be used, and nothing is queued."""
        return not self._replies and not self.queueing and _SCOPE.get() is None

    def known(self, key: str) -> bool:
        """True when the cache holds a verdict for ``key`` (such a request is never submitted)."""
        return self.cache.get(key) is not None

    def _route(self, judge: Judge) -> tuple[BatchAPI, BatchTarget] | None:
        with self._lock:
            if id(judge) in self._routes:
                return self._routes[id(judge)]
        route = api_for_judge(judge)
        adapt = getattr(judge, "adapt", None)
        if route is not None and adapt is not None:
            for param in self._adaptations.get(route[1].judge, []):
                adapt(param)  # a parameter the model refused in an earlier batch is not sent again
        with self._lock:
            self._routes[id(judge)] = route
        return route

    def has_reply(self, judge: Judge, request: JudgeRequest) -> bool:
        """True when a finished batch answered ``request`` (so no live call is needed to judge it)."""
        if not self._replies or self._route(judge) is None:
            return False
        return self.store.reply(judgment_key(judge, request)) is not None

    async def answer(self, judge: Judge, request: JudgeRequest, tally: CallTally) -> JudgeReply | None:
        """The collected reply for ``request``; or queue it and raise WaitingForBatchError; or None
        for a live call."""
        route = None if self._idle() else self._route(judge)
        if route is None:
            return None
        api, target = route
        key = judgment_key(judge, request)
        parent = _ASKED.get() if request.is_repair else None
        if not request.is_repair:
            _ASKED.set(key)
        collected = self.store.reply(key)
        if collected is not None:
            reply = await self._use(api, judge, request, key, collected, tally)
            if reply is not None:
                return reply
        else:
            stored = self._stored_meanwhile(key, tally)
            if stored is not None:
                return stored
        scope = _SCOPE.get()
        if scope is None and not self.queueing:
            return None
        self._queue(api, target, judge, request, key, parent, scope)
        return None  # not reached: queueing raises

    async def _use(
        self,
        api: BatchAPI,
        judge: Judge,
        request: JudgeRequest,
        key: str,
        collected: CollectedReply,
        tally: CallTally,
    ) -> JudgeReply | None:
        label = judge.spec.label
        refused, adapt = collected.rejected_param, getattr(judge, "adapt", None)
        if refused is not None and adapt is not None:
            with self._lock:
                learnt = refused in self._adaptations.get(label, [])
            if adapt(refused) or learnt:
                # the model refused a parameter: the judge stops sending it, and the request is asked again
                with self._lock:
                    self._adaptations.setdefault(label, []).append(refused)
                self.store.remember_adaptation(label, refused)
                self.store.discard(key)
                return None
        if collected.error is not None or collected.body is None:
            reason = f"batch {collected.batch} could not judge this request: {collected.error or 'no reply'}"
            if not collected.sent:
                reason += " (nothing was sent to the model)"
            raise self._failed(key, tally, "rejected", reason, judge, request, collected.raw, collected.sent)
        try:
            reply = await api.reply(judge, request, collected.body)
        except Exception as exc:  # anything else is a bug of the judge's reading: still a judge error
            kind = (
                "unreadable"
                if isinstance(exc, (JudgeError, TransientFault, ValidationError))
                else "judge bug"
            )
            reason = f"the reply of batch {collected.batch} could not be read: {exc}"
            raise self._failed(key, tally, kind, reason, judge, request, json.dumps(collected.body)) from None
        with self._lock:
            self._taken.add(key)
        if not self.store.claim(key):  # counted already: by an earlier run, or another worker just now
            tally.cached += 1
            return reply
        cost = self.prices.batch_cost(judge.spec, reply.input_tokens, reply.output_tokens)
        tally.attempts += 1
        tally.batched += 1
        tally.tokens_in += reply.input_tokens
        tally.tokens_out += reply.output_tokens
        tally.cost_usd += cost
        tally.saved_usd += self.prices.cost(judge.spec, reply.input_tokens, reply.output_tokens) - cost
        return reply

    def _stored_meanwhile(self, key: str, tally: CallTally) -> JudgeReply | None:
        """The verdict another process stored for ``key`` since the engine missed it in the cache.

        That process used the batch's reply and let it go (a worker lets go of the replies it used
        when it ends), so no reply is left for this one: without this look the request would be
        queued for a batch, or judged live, though its verdict is stored. A used reply is let go only
        once its verdict is stored (or its check failed, and asking again is meant), so a look at the
        cache after the reply's closes the gap."""
        found = self.cache.get(key)
        if found is None:
            return None
        tally.cached += 1
        return reply_of_stored(found)

    def _failed(
        self,
        key: str,
        tally: CallTally,
        kind: str,
        reason: str,
        judge: Judge,
        request: JudgeRequest,
        raw: str | None,
        sent: bool = True,
    ) -> JudgeError:
        """A request the batch did not answer usably: a judge error, reported once (its reply is let go,
        so a later run asks again). Counted as a request sent and failed when it reached the model."""
        self.store.discard(key)
        if sent:
            tally.attempts += 1
            tally.failed(kind)
        return JudgeError(reason, judge=judge.spec.label, metric=request.metric, raw_reply=raw, kind=kind)

    def _queue(
        self,
        api: BatchAPI,
        target: BatchTarget,
        judge: Judge,
        request: JudgeRequest,
        key: str,
        parent: str | None,
        scope: BatchScope | None,
    ) -> None:
        label, metric = judge.spec.label, request.metric
        with self._lock:
            pending = key in self._pending
        if pending:
            if scope is not None:
                scope.waiting.add(key)
            raise WaitingForBatchError(
                f"waiting for batch: this request is in a batch submitted earlier to {target.judge}; a later "
                "run collects its reply (see pytest-rag batch status)",
                judge=label,
                metric=metric,
            )
        tokens_in, tokens_out = estimate_prompt_tokens(request), estimate_output_tokens(request)
        queued = QueuedRequest(
            key=key,
            metric=metric,
            template=request.template_id,
            parent=parent,
            target=target,
            body=api.body(judge, request),
            est_cost_usd=self.prices.batch_cost(judge.spec, tokens_in, tokens_out),
            est_live_usd=self.prices.cost(judge.spec, tokens_in, tokens_out),
            queued_at=time.time(),
        )
        if scope is not None:
            added = key not in scope.queued
            scope.queued[key] = queued
            scope.waiting.add(key)
            when = "submitted by this evaluate(batch=True) call"
        else:
            added = self.store.enqueue(queued)
            when = (
                "submitted at the end of this run; a later run collects its reply (pytest-rag batch status)"
            )
        if added and self.spending.budget_usd is not None:
            self.spending.spent(queued.est_cost_usd)  # the budget counts what the batch will cost
        raise WaitingForBatchError(
            f"waiting for batch: queued for the batch API of {target.judge}, {when}",
            judge=label,
            metric=metric,
        )

    def prune(self) -> None:
        """Let go of collected replies no check will ask for: their verdict is in the cache already
        (judged live while the batch ran, or by an earlier run). Kept, they would stay on disk for
        good and keep every later run looking replies up on each live call."""
        if self._replies:
            self._let_go(self.store.reply_keys(), used=False)
            self.reload()

    def close(self) -> None:
        """Let go of the collected replies this process used that are settled: stored in the cache, or
        ended in an error (asked again next time); keep those whose repair still waits."""
        with self._lock:
            taken = set(self._taken)
            self._taken.clear()
        if taken:
            self._let_go(taken, used=True)
        self.store.close()

    def _let_go(self, keys: Iterable[str], *, used: bool) -> None:
        """Discard the replies of ``keys`` whose verdict (or whose first request's verdict, for a
        repair) is in the cache; with ``used``, also those that ended in an error, unless a repair
        waiting in a later batch still needs them."""
        with self.store.lock():
            waiting_repairs: set[str | None] = set()
            if used:  # a prune at start-up lets go of stored verdicts only: no queue or manifest to read
                waiting_repairs = {r.parent for r in self.store.queued() if r.parent}
                waiting_repairs |= {o.parent for m in self.store.pending() for o in m.requests if o.parent}
            for key in keys:
                collected = self.store.reply(key)
                if collected is None:
                    continue
                stored = self.known(key) or (collected.parent is not None and self.known(collected.parent))
                if stored or (used and key not in waiting_repairs):
                    self.store.discard(key)
