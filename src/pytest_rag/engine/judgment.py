"""The judgment engine: one place where a request becomes a verdict.

For every judge call it (1) computes the cache key, (2) serves a cached reply when the cache mode
allows, (3) otherwise calls the judge under the session's concurrency limit, retrying transient faults
with exponential backoff, jitter and ``Retry-After`` under a deadline, (4) validates the reply against
the verdict model, asking a reply cut off at its token limit once more with twice the room and
giving an invalid reply one repair attempt, and (5) stores the valid reply, with
the alternatives the model weighed at its grade's token when the judge reported them
(:mod:`.grade_tokens`), so a cached verdict has the odds the live one had.
Whatever cannot end in a valid verdict ends in a :class:`~pytest_rag.errors.JudgeError` that carries
the raw reply: never a score, never a pass.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from ..errors import JudgeError, JudgeUnavailableError, RagError, cut_text, sentence
from ..judges.protocol import Judge, JudgeReply, TransientFault, set_up
from ..judges.request import REPAIR_SUFFIX, JudgeRequest, Message
from ..judges.schema import verdict_grades
from ..results import CallTally
from ..scoring.grade_odds import GradeOdds
from .cache import CachedReply, JudgmentCache, judgment_key
from .failure_advice import remedy
from .grade_tokens import grade_odds, score_alternatives
from .limits import EngineSettings
from .parsing import InvalidVerdict, parse_verdict, refusal_in
from .pricing import PriceTable
from .ratelimit import RateLimiter, estimate_output_tokens, estimate_prompt_tokens
from .replay import IDENTITY_KEY, ReplayMisses, request_identity
from .request_size import check_request
from .spending import Spending

if TYPE_CHECKING:
    from .batch.reply_or_queue import BatchDesk

V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")


MOST_ROOM = 16_384
"""The most tokens a reply cut off at its limit is asked again with: twice its limit, at most this
(a verdict that needs more is a runaway reply, not a long list)."""


class NeedsLiveCall(Exception):
    """Raised on the synchronous fast path when a judgment is not in the cache: the caller then runs
    the evaluation again on the engine's event loop, where live calls can be made."""


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
        # judges that cannot work this run: label -> the test whose check found out (and says why)
        self._unavailable: dict[str, str] = {}
        self._replay_misses = ReplayMisses(cache)
        self.batches: BatchDesk | None = None
        """Provider batches (--rag-batch): consulted where a live call would be made."""
        self._sleep = sleep
        self._semaphore: asyncio.Semaphore | None = None
        # cache key -> (its loop, done) of each request being judged now: an equal one waits for it
        self._flights: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = {}
        self._rng = random.Random(0x5EED)

    # -- the public entry -------------------------------------------------------------------------

    async def ask_graded(
        self,
        judge: Judge,
        request: JudgeRequest,
        model: type[V],
        *,
        test_id: str,
        cache_only: bool,
    ) -> tuple[V, CallTally, GradeOdds | None]:
        """The verdict of ``judge`` on ``request``, the calls it took, and the odds of the verdict's
        grade when the judge reported them (None for a verdict without a grade, a provider without
        log-probabilities, an entry stored without them). The one entry: a caller that needs no odds
        drops them."""
        request = self._with_token_limit(request)
        key = judgment_key(judge, request) if judge.cacheable and self.cache.mode != "off" else None
        tally = CallTally()
        if key is not None and self.cache.reads:
            stored, unreadable = self._read(key, model)
            if stored is not None:
                tally.cached = 1
                return stored[0], tally, stored[1]
            if self.cache.mode == "replay":
                raise self._replay_misses.error(judge, request, key, test_id, unreadable)
        if cache_only and not judge.offline:
            raise NeedsLiveCall()
        if key is None or self.cache.mode != "rw":
            return await self._judge(judge, request, model, key, test_id, tally)
        stored = await self._judged_meanwhile(key, model)
        if stored is not None:
            tally.cached = 1
            return stored[0], tally, stored[1]
        flight = (asyncio.get_running_loop(), asyncio.get_running_loop().create_future())
        self._flights[key] = flight
        try:
            return await self._judge(judge, request, model, key, test_id, tally)
        finally:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight[1].set_result(None)

    def _stored(self, key: str, model: type[V]) -> tuple[V, GradeOdds | None] | None:
        """The cached verdict of ``key`` with the odds of its grade; None when there is none, or it no
        longer reads (a stale or hand-edited entry is judged again as if missing)."""
        return self._read(key, model)[0]

    def _read(self, key: str, model: type[V]) -> tuple[tuple[V, GradeOdds | None] | None, str | None]:
        """One read of ``key``: its verdict and odds, or why the entry stored there is no verdict (the
        :class:`InvalidVerdict` message, so a replay miss says the request is there and its reply is
        what fails, without reading the store again); (None, None) when nothing is stored."""
        hit = self.cache.get(key)
        if hit is None:
            return None, None
        try:
            return (parse_verdict(model, hit.text), grade_odds(model, hit.score_logprobs)), None
        except InvalidVerdict as exc:
            return None, str(exc)

    async def _judged_meanwhile(self, key: str, model: type[V]) -> tuple[V, GradeOdds | None] | None:
        """The verdict of a check on this loop that is asking the very same request right now: this
        one waits for it and takes its verdict from the cache, so a request asked twice at once (a
        table with a row twice) is paid for once, as when asked one after the other, and as the dry
        run counts it. None when no such check runs, or it ended without a verdict."""
        loop = asyncio.get_running_loop()
        while True:
            flight = self._flights.get(key)
            if flight is None or flight[0] is not loop:
                return None
            await asyncio.shield(flight[1])
            stored = self._stored(key, model)
            if stored is not None:
                return stored
            # it ended in an error (or was counted, or queued): ask again, unless another waiter has

    async def _judge(
        self,
        judge: Judge,
        request: JudgeRequest,
        model: type[V],
        key: str | None,
        test_id: str,
        tally: CallTally,
    ) -> tuple[V, CallTally, GradeOdds | None]:
        """A verdict the cache did not have: from the judge (or a collected batch reply), then stored."""
        self._check_available(judge, request)
        # before the dry run counts it, a live call sends it or a batch queues it
        check_request(judge, request, self.settings.max_request_chars)
        if self.spending.guards and not judge.offline and not self._collected(judge, request):
            # dry run / budget: may raise. A repeat is free only where the run stores what it judges
            stored_as = key if self.cache.mode == "rw" else None
            self.spending.before_live_call(judge, request, test_id, stored_as)
        try:
            verdict, reply = await self._live(judge, request, model, tally)
        except JudgeError as exc:
            if exc.calls is None:
                exc.calls = tally  # failed calls still spent tokens: the summary counts them
            if isinstance(exc, JudgeUnavailableError):
                self._unavailable.setdefault(judge.spec.label, test_id)
            raise
        alternatives = score_alternatives(reply) if verdict_grades(model) is not None else None
        if key is not None:
            self.cache.put(
                key,
                CachedReply(reply.text, reply.input_tokens, reply.output_tokens, reply.model, alternatives),
                meta={
                    "metric": request.metric,
                    "template": request.template_id,
                    "version": request.template_version,
                    "judge": judge.spec.label,
                    "test": test_id,
                    IDENTITY_KEY: request_identity(judge.identity(), request),  # explains a replay miss
                },
            )
        return verdict, tally, grade_odds(model, alternatives)

    def _with_token_limit(self, request: JudgeRequest) -> JudgeRequest:
        """The request with --rag-max-tokens applied (requests that write no text keep theirs)."""
        limit = self.settings.max_tokens
        if limit is None or request.sampling.max_tokens <= 0 or request.sampling.max_tokens == limit:
            return request
        return replace(request, sampling=replace(request.sampling, max_tokens=limit))

    def _collected(self, judge: Judge, request: JudgeRequest) -> bool:
        """True when a finished provider batch answered the request (paid for already)."""
        return self.batches is not None and self.batches.has_reply(judge, request)

    def _check_available(self, judge: Judge, request: JudgeRequest) -> None:
        """A judge found unusable earlier in the run fails at once, with one line pointing at the check
        that says why: no request, no retry, no repeat of the long explanation."""
        found = self._unavailable.get(judge.spec.label)
        if found is not None:
            error = JudgeUnavailableError(
                f"the judge is unavailable in this run: see the first failing check of it, {found}",
                judge=judge.spec.label,
                metric=request.metric,
                kind="unavailable",
            )
            error.refers_to = found
            raise error

    # -- live calls -------------------------------------------------------------------------------

    async def _live(
        self, judge: Judge, request: JudgeRequest, model: type[V], tally: CallTally
    ) -> tuple[V, JudgeReply]:
        reply, asked = await self._with_room(judge, request, tally)
        roomier, request = asked is not request, asked
        try:
            return self._accept(judge, request, model, reply, tally, roomier=roomier), reply
        except InvalidVerdict as first:
            tally.failed("invalid")  # a reply without a verdict, even when the repair saves the check
            repair = self._repair_request(request, reply.text, str(first))
            check_request(judge, repair, self.settings.max_request_chars)  # the reply makes it longer
            second = await self._call(judge, repair, tally)
            try:
                return self._accept(judge, request, model, second, tally), second
            except InvalidVerdict as again:
                tally.failed("invalid")
                raise self._error(
                    judge,
                    request,
                    f"invalid verdict after one repair attempt: first reply {first}; repaired reply {again}",
                    second.text,
                    kind="invalid",
                ) from None

    async def _with_room(
        self, judge: Judge, request: JudgeRequest, tally: CallTally
    ) -> tuple[JudgeReply, JudgeRequest]:
        """The judge's reply to ``request``, and the request it answers. A reply cut off at the token
        limit holds no whole verdict, and a repair would be cut off the same way: the request is
        asked once more with twice the room (up to :data:`MOST_ROOM` tokens), unless the run set
        its own limit (``--rag-max-tokens``), which is kept. The verdict that reply gives is stored
        under the first request's key, as a repaired one is, so a rerun hits the cache."""
        reply = await self._call(judge, request, tally)
        limit = request.sampling.max_tokens
        room = min(2 * limit, MOST_ROOM)
        if not reply.truncated or self.settings.max_tokens is not None or limit <= 0 or room <= limit:
            return reply, request
        tally.failed("cut off")
        roomier = replace(request, sampling=replace(request.sampling, max_tokens=room))
        return await self._call(judge, roomier, tally), roomier

    def _accept(
        self,
        judge: Judge,
        request: JudgeRequest,
        model: type[V],
        reply: JudgeReply,
        tally: CallTally,
        *,
        roomier: bool = False,
    ) -> V:
        """The verdict in the reply. A reply that no repair can mend (a refusal, a reply cut off at the
        token limit even with room, one too large to keep) is a judge error at once; an invalid one
        gets a repair."""
        limit = self.settings.max_reply_chars
        refusal = reply.refusal if reply.refusal is not None else refusal_in(reply.text)
        if len(reply.text) > limit:
            failure = ("too large", f"the reply has {len(reply.text):,} characters, more than the "
                       f"{limit:,} a verdict can need; it was not kept")  # fmt: skip
        elif refusal is not None:
            failure = ("refused", f"the judge refused: {cut_text(refusal, 300)}")
        elif reply.truncated:
            failure = ("cut off", f"the reply was cut off at the token limit of the request "
                       f"(max_tokens={request.sampling.max_tokens}{self._room_said(roomier)}), so the "
                       "verdict is incomplete and was not repaired. Raise --rag-max-tokens for a "
                       "verbose or reasoning judge")  # fmt: skip
        else:
            return parse_verdict(model, reply.text)
        tally.failed(failure[0])
        # a refusal given in its own field (OpenAI's) leaves the text empty: the refusal is what it said
        raise self._error(judge, request, failure[1], reply.text or refusal, kind=failure[0])

    def _room_said(self, roomier: bool) -> str:
        """Where the limit of a cut-off request came from, in words."""
        if self.settings.max_tokens is not None:
            return ", the run's --rag-max-tokens"
        return ", asked again with twice the room of the first request" if roomier else ""

    def _repair_request(self, request: JudgeRequest, raw: str, problem: str) -> JudgeRequest:
        fix = (
            f"Your previous reply could not be used: it {problem}. Reply again with only the JSON "
            "object the instructions ask for, with every field filled in."
        )
        messages = (*request.messages, Message("assistant", raw), Message("user", fix))
        return replace(request, messages=messages, template_id=request.template_id + REPAIR_SUFFIX)

    def _error(
        self, judge: Judge, request: JudgeRequest, message: str, raw: str | None, *, kind: str
    ) -> JudgeError:
        return JudgeError(message, judge=judge.spec.label, metric=request.metric, raw_reply=raw, kind=kind)

    async def _call(self, judge: Judge, request: JudgeRequest, tally: CallTally) -> JudgeReply:
        """One judge call with retries under the deadline; counts every attempt, failure and retry,
        and prices the call."""
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
                    reply = await self._send(judge, request)
                else:
                    async with self._limit():
                        tally.attempts += 1
                        if queued:  # waiting for a free slot is queueing, not judging: start the clock now
                            queued = False
                            set_up(judge)  # and so is the judge's one-off set-up
                            deadline = time.monotonic() + settings.deadline_s
                        # the deadline bounds each attempt too, not only the waits between them
                        remaining = max(0.001, deadline - time.monotonic())
                        try:
                            reply = await asyncio.wait_for(self._rate_limited(judge, request), remaining)
                        except asyncio.TimeoutError:
                            raise TransientFault(
                                f"the judgment deadline of {settings.deadline_s:g}s passed mid-request",
                                kind="deadline",
                            ) from None
                break
            except TransientFault as fault:
                tally.failed(fault.kind)
                delay = self._backoff(attempt, fault.retry_after)
                if attempt >= settings.max_attempts or time.monotonic() + delay > deadline:
                    # attempts left, but the wait before the next would pass the deadline: say so, or
                    # the advice to raise --rag-max-attempts reads as the way out
                    waited_out = ""
                    if attempt < settings.max_attempts and fault.kind != "deadline":  # not said twice
                        who = (
                            "The server asked to wait" if fault.retry_after is not None else "The backoff is"
                        )
                        waited_out = (
                            f"{who} {delay:.3g}s before the next try, past --rag-deadline "
                            f"(now {settings.deadline_s:g}s). "
                        )
                    raise self._error(
                        judge,
                        request,
                        f"gave up after {attempt} attempt(s) in {time.monotonic() - started:.1f}s: "
                        + sentence(fault)
                        + " "
                        + waited_out
                        + remedy(fault.kind, judge, settings),
                        fault.raw,
                        kind=fault.kind,
                    ) from None
                tally.retries += 1
                await self._sleep(delay)
            except JudgeError as exc:
                if isinstance(exc, JudgeUnavailableError) and not exc.sent:
                    tally.attempts -= 1  # counted as it started, but nothing left the machine
                else:
                    tally.failed(exc.kind)
                raise exc if exc.metric else exc.naming(request.metric) from None
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
        if reply.schema_fallback is not None:
            tally.unenforced(judge.spec.label, reply.schema_fallback.schema, reply.schema_fallback.reason)
        if cost and self.spending.budget_usd is not None:
            self.spending.spent(cost)
        return reply

    async def _send(self, judge: Judge, request: JudgeRequest) -> JudgeReply:
        """Ask the judge once. A judge that raises something other than the protocol's two kinds of
        fault has a bug: that becomes a judge error of this check, never a crash of the session."""
        try:
            return await judge.complete(request)
        except (TransientFault, RagError):
            raise
        except Exception as exc:
            raise JudgeError(
                f"the judge failed with {type(exc).__name__}: {exc} (a bug in the judge provider)",
                judge=judge.spec.label,
                metric=request.metric,
                kind="judge bug",
            ) from exc

    async def _rate_limited(self, judge: Judge, request: JudgeRequest) -> JudgeReply:
        """One request under the --rag-rpm/--rag-tpm buckets: reserve an estimate, correct it after."""
        limiter = self.limiter
        if not limiter.active:
            return await self._send(judge, request)
        permit = await limiter.acquire(estimate_prompt_tokens(request) + estimate_output_tokens(request))
        reply = await self._send(judge, request)  # a failed attempt keeps its reservation
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
