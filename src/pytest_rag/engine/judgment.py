"""The judgment engine: one place where a request becomes a verdict.

For every judge call it (1) computes the cache key, (2) serves a cached reply when the cache mode
allows, (3) otherwise calls the judge under the session's concurrency limit, retrying transient faults
with exponential backoff, jitter and ``Retry-After`` under a deadline, (4) validates the reply against
the verdict model, giving an invalid reply one repair attempt, and (5) stores the valid reply.
Whatever cannot end in a valid verdict ends in a :class:`~pytest_rag.errors.JudgeError` that carries
the raw reply: never a score, never a pass.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from ..errors import CacheMissError, JudgeError
from ..judges.protocol import Judge, JudgeReply, TransientFault
from ..judges.request import JudgeRequest, Message
from ..results import CallTally
from .cache import CachedReply, JudgmentCache
from .limits import EngineSettings
from .parsing import InvalidVerdict, parse_verdict
from .pricing import PriceTable
from .ratelimit import RateLimiter, estimate_output_tokens, estimate_prompt_tokens
from .spending import Spending

if TYPE_CHECKING:
    from .batch.desk import BatchDesk

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


class NeedsLiveCall(Exception):
    """Raised on the synchronous fast path when a judgment is not in the cache: the caller then runs
    the evaluation again on the engine's event loop, where live calls can be made."""


@dataclass
class EngineCounters:
    """What happened inside this process's judge calls that the check records do not show: retries,
    repair attempts and failed calls (calls, tokens and cost are summed from the records instead)."""

    repaired: int = 0
    retries: int = 0
    errors: int = 0


@dataclass
class Answer:
    verdict: BaseModel
    cached: bool
    key: str | None
    tally: CallTally = field(default_factory=CallTally)


class JudgmentEngine:
    def __init__(
        self,
        cache: JudgmentCache,
        settings: EngineSettings | None = None,
        prices: PriceTable | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        limiter: RateLimiter | None = None,
        spending: Spending | None = None,
    ) -> None:
        self.cache = cache
        self.settings = settings or EngineSettings()
        self.prices = prices or PriceTable()
        self.limiter = limiter or RateLimiter()
        self.spending = spending or Spending(self.prices)
        self.counters = EngineCounters()
        self.batches: BatchDesk | None = None
        """Provider batches (--rag-batch): consulted where a live call would be made."""
        self._sleep = sleep
        self._semaphore: asyncio.Semaphore | None = None
        self._rng = random.Random(0x5EED)

    # -- the public entry -------------------------------------------------------------------------

    async def ask(
        self,
        judge: Judge,
        request: JudgeRequest,
        model: type[V],
        *,
        test_id: str,
        cache_only: bool,
    ) -> tuple[V, CallTally]:
        key = request.cache_key(judge.identity()) if judge.cacheable and self.cache.mode != "off" else None
        tally = CallTally()
        if key is not None and self.cache.reads:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    verdict = parse_verdict(model, hit.text)
                except InvalidVerdict:
                    verdict = None  # a stale or hand-edited entry: judge again as if missing
                if verdict is not None:
                    tally.cached = 1
                    return verdict, tally
            if self.cache.mode == "replay":
                raise CacheMissError(
                    f"--rag-cache=replay: no stored judgment for test {test_id!r}, metric "
                    f"{request.metric!r} (template {request.template_id} v{request.template_version}), "
                    f"key {key}. Record it with a judge and --rag-cache=rw, or import the store "
                    "(pytest-rag cache import FILE)",
                    judge=judge.spec.label,
                    metric=request.metric,
                )
        if cache_only and not judge.offline:
            raise NeedsLiveCall()
        if self.spending.guards and not judge.offline and not self._collected(judge, request):
            self.spending.before_live_call(judge, request, test_id)  # dry run / budget: may raise
        try:
            verdict, reply = await self._live(judge, request, model, tally)
        except JudgeError as exc:
            if exc.calls is None:
                exc.calls = tally  # failed calls still spent tokens: the summary counts them
            raise
        if key is not None:
            self.cache.put(
                key,
                CachedReply(reply.text, reply.input_tokens, reply.output_tokens, reply.model),
                meta={
                    "metric": request.metric,
                    "template": request.template_id,
                    "version": request.template_version,
                    "judge": judge.spec.label,
                    "test": test_id,
                },
            )
        return verdict, tally

    def _collected(self, judge: Judge, request: JudgeRequest) -> bool:
        """True when a finished provider batch answered the request (paid for already)."""
        return self.batches is not None and self.batches.has_reply(judge, request)

    # -- live calls -------------------------------------------------------------------------------

    async def _live(
        self, judge: Judge, request: JudgeRequest, model: type[V], tally: CallTally
    ) -> tuple[V, JudgeReply]:
        reply = await self._call(judge, request, tally)
        try:
            return self._accept(judge, request, model, reply), reply
        except InvalidVerdict as first:
            if reply.refusal is not None:
                raise self._error(judge, request, f"the judge refused: {reply.refusal}", reply.text) from None
            repair = self._repair_request(request, reply.text, str(first))
            self.counters.repaired += 1
            second = await self._call(judge, repair, tally)
            try:
                return self._accept(judge, request, model, second), second
            except InvalidVerdict as again:
                raise self._error(
                    judge,
                    request,
                    f"invalid verdict after one repair attempt: first reply {first}; repaired reply {again}",
                    second.text,
                ) from None

    def _accept(self, judge: Judge, request: JudgeRequest, model: type[V], reply: JudgeReply) -> V:
        if reply.refusal is not None and not reply.text.strip():
            raise self._error(judge, request, f"the judge refused: {reply.refusal}", reply.refusal)
        if reply.truncated:
            raise InvalidVerdict("the reply was cut off at the token limit")
        return parse_verdict(model, reply.text)

    def _repair_request(self, request: JudgeRequest, raw: str, problem: str) -> JudgeRequest:
        fix = (
            f"Your previous reply could not be used: it {problem}. Reply again with only the JSON "
            "object the instructions ask for, with every field filled in."
        )
        messages = (*request.messages, Message("assistant", raw), Message("user", fix))
        return replace(request, messages=messages, template_id=request.template_id + "+repair")

    def _error(self, judge: Judge, request: JudgeRequest, message: str, raw: str | None) -> JudgeError:
        self.counters.errors += 1
        return JudgeError(message, judge=judge.spec.label, metric=request.metric, raw_reply=raw)

    async def _call(self, judge: Judge, request: JudgeRequest, tally: CallTally) -> JudgeReply:
        """One judge call with retries under the deadline; counts and prices it."""
        if self.batches is not None and not judge.offline:
            collected = await self.batches.answer(judge, request, tally)  # or queued: WaitingForBatchError
            if collected is not None:
                return collected
        settings = self.settings
        started = time.monotonic()
        deadline = started + settings.deadline_s
        queued = True
        attempt = 0
        while True:
            attempt += 1
            try:
                if judge.offline:
                    reply = await judge.complete(request)
                else:
                    async with self._limit():
                        if queued:  # waiting for a free slot is queueing, not judging: start the clock now
                            queued = False
                            deadline = time.monotonic() + settings.deadline_s
                        # the deadline bounds each attempt too, not only the waits between them
                        remaining = max(0.001, deadline - time.monotonic())
                        try:
                            reply = await asyncio.wait_for(self._rate_limited(judge, request), remaining)
                        except asyncio.TimeoutError:
                            raise TransientFault(
                                f"the judgment deadline of {settings.deadline_s:g}s passed mid-request"
                            ) from None
                break
            except TransientFault as fault:
                delay = self._backoff(attempt, fault.retry_after)
                if attempt >= settings.max_attempts or time.monotonic() + delay > deadline:
                    raise self._error(
                        judge,
                        request,
                        f"gave up after {attempt} attempt(s) in {time.monotonic() - started:.1f}s: {fault}. "
                        "Raise --rag-deadline or --rag-max-attempts, or lower --rag-concurrency",
                        None,
                    ) from None
                self.counters.retries += 1
                await self._sleep(delay)
            except JudgeError as exc:
                self.counters.errors += 1
                if not exc.metric:  # a provider knows the judge, not the metric: name it for the reader
                    raise type(exc)(
                        exc.reason, judge=exc.judge, metric=request.metric, raw_reply=exc.raw_reply
                    ) from None
                raise
        elapsed = time.monotonic() - started
        cost = self.prices.cost(judge.spec, reply.input_tokens, reply.output_tokens)
        if judge.offline:
            tally.offline += 1
        else:
            tally.live += 1
        tally.tokens_in += reply.input_tokens
        tally.tokens_out += reply.output_tokens
        tally.cost_usd += cost
        tally.latency_s += elapsed
        if cost and self.spending.budget_usd is not None:
            self.spending.spent(cost)
        return reply

    async def _rate_limited(self, judge: Judge, request: JudgeRequest) -> JudgeReply:
        """One request under the --rag-rpm/--rag-tpm buckets: reserve an estimate, correct it after."""
        limiter = self.limiter
        if not limiter.active:
            return await judge.complete(request)
        permit = await limiter.acquire(estimate_prompt_tokens(request) + estimate_output_tokens(request))
        reply = await judge.complete(request)  # a failed attempt keeps its reservation
        limiter.settle(permit, reply.input_tokens + reply.output_tokens or None)
        return reply

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        base = min(self.settings.backoff_cap_s, self.settings.backoff_base_s * 2.0 ** (attempt - 1))
        jittered: float = base * (0.5 + self._rng.random() / 2)
        if retry_after is not None:
            return float(retry_after)  # the server knows best when it will have capacity again
        return jittered

    def _limit(self) -> asyncio.Semaphore:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        return self._semaphore
