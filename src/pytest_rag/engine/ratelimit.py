"""Client-side rate limiting: a large suite slows down instead of failing on 429s.

Providers limit requests per minute and tokens per minute. Retrying after a 429 works, but a suite
that outruns its quota spends most of its time in backoff and may hit the retry deadline. Here every
live judge call first takes a permit from two token buckets, one for requests and one for tokens,
each refilling continuously at its per-minute rate with a burst of one minute's allowance (the way
providers account). The token cost is not known before the call, so the permit reserves an estimate
made from the rendered request and is corrected by the usage the provider reports afterwards: a bucket
may go into debt, which later callers wait out.

Waiters are served first come, first served (one lock), so a large request is not starved by a stream
of small ones. The clock and the sleep are injectable, which keeps the tests deterministic.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..judges.request import JudgeRequest

#: Verdicts are short JSON objects (reasoning, a list, a score); this is what one usually costs.
EXPECTED_OUTPUT_TOKENS = 200

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


def estimate_prompt_tokens(request: JudgeRequest) -> int:
    """Prompt tokens of ``request`` estimated as ceil(characters / 4) of the messages and the schema
    (:meth:`JudgeRequest.estimated_prompt_tokens`); exactness does not matter because the reservation
    is corrected by the reported usage after the call."""
    return request.estimated_prompt_tokens()


def estimate_output_tokens(request: JudgeRequest) -> int:
    return min(EXPECTED_OUTPUT_TOKENS, request.sampling.max_tokens)


class TokenBucket:
    """``per_minute`` units refilling continuously, holding at most one minute's worth.

    :meth:`take` waits until the level is non-negative, then subtracts; :meth:`adjust` corrects a
    reservation after the fact and may push the level below zero (a debt later takers wait out).
    """

    def __init__(self, per_minute: float, clock: Clock) -> None:
        if not per_minute > 0:
            raise ValueError(f"a rate limit must be positive, got {per_minute} per minute")
        self.capacity = float(per_minute)
        self.rate = float(per_minute) / 60.0
        self._clock = clock
        self._level = self.capacity
        self._updated = clock()

    @property
    def level(self) -> float:
        self._refill()
        return self._level

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._updated) * self.rate)
        self._updated = now

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` can be taken (0 when it can be taken now). An amount above the
        capacity is treated as the capacity: it waits for a full bucket rather than forever."""
        self._refill()
        needed = min(amount, self.capacity) - self._level
        return 0.0 if needed <= 0 else needed / self.rate

    def take(self, amount: float) -> None:
        self._refill()
        self._level -= amount

    def adjust(self, delta: float) -> None:
        """Charge ``delta`` more (or refund, when negative) for a reservation already taken."""
        self._refill()
        self._level = min(self.capacity, self._level - delta)


@dataclass
class Permit:
    """A granted call: remembers the reserved tokens so :meth:`RateLimiter.settle` can correct them."""

    reserved_tokens: int


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits shared by every live judge call of a process.

    Either limit may be ``None`` (unlimited). Under pytest-xdist each worker process has its own
    limiter, so the session divides the limits by the number of workers.
    """

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.requests = TokenBucket(requests_per_minute, clock) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute, clock) if tokens_per_minute else None
        self._sleep = sleep
        self._lock: asyncio.Lock | None = None
        self.waited_s = 0.0  # total time callers spent waiting for a permit (for reports)

    @property
    def active(self) -> bool:
        return self.requests is not None or self.tokens is not None

    async def acquire(self, estimated_tokens: int) -> Permit:
        """Wait until one request of about ``estimated_tokens`` tokens fits both limits; take it."""
        if not self.active:
            return Permit(0)
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # first come, first served
            while True:
                delay = max(
                    self.requests.wait_for(1) if self.requests else 0.0,
                    self.tokens.wait_for(estimated_tokens) if self.tokens else 0.0,
                )
                if delay <= 0:
                    break
                self.waited_s += delay
                await self._sleep(delay)
            if self.requests is not None:
                self.requests.take(1)
            if self.tokens is not None:
                self.tokens.take(estimated_tokens)
        return Permit(estimated_tokens)

    def settle(self, permit: Permit, actual_tokens: int | None) -> None:
        """Correct the token reservation with the usage the provider reported (None: keep it)."""
        if self.tokens is None or actual_tokens is None or actual_tokens <= 0:
            return
        self.tokens.adjust(actual_tokens - permit.reserved_tokens)
