"""The client-side rate limiter on a fake clock: who waits, how long, and how usage corrects estimates.

Nothing here sleeps for real: the limiter's sleep advances the fake clock, so the waits it asks for
are exact numbers that follow from the limits.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel

from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.engine.judgment import JudgmentEngine
from pytest_rag.engine.ratelimit import (
    EXPECTED_OUTPUT_TOKENS,
    RateLimiter,
    TokenBucket,
    estimate_output_tokens,
    estimate_prompt_tokens,
)
from pytest_rag.judges.protocol import JudgeReply, JudgeSpec
from pytest_rag.judges.request import JudgeRequest, JudgeTask, Message, Sampling


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def limiter(clock: FakeClock, rpm: float | None = None, tpm: float | None = None) -> RateLimiter:
    return RateLimiter(rpm, tpm, clock=clock, sleep=clock.sleep)


def test_requests_beyond_the_burst_wait_for_the_refill() -> None:
    clock = FakeClock()
    rl = limiter(clock, rpm=60)  # one request per second, a burst of 60

    async def go() -> None:
        for _ in range(60):
            await rl.acquire(0)
        assert clock.sleeps == []  # a minute's allowance goes out at once
        await rl.acquire(0)
        await rl.acquire(0)

    asyncio.run(go())
    assert clock.sleeps == pytest.approx([1.0, 1.0])
    assert rl.waited_s == pytest.approx(2.0)


def test_tokens_per_minute_hold_back_a_large_request_until_enough_refilled() -> None:
    clock = FakeClock()
    rl = limiter(clock, tpm=6000)  # 100 tokens per second

    async def go() -> None:
        await rl.acquire(5000)
        await rl.acquire(3000)  # 1000 left: 2000 more take 20 s

    asyncio.run(go())
    assert clock.sleeps == pytest.approx([20.0])


def test_reported_usage_corrects_the_reservation_both_ways() -> None:
    clock = FakeClock()
    rl = limiter(clock, tpm=6000)

    async def go() -> None:
        permit = await rl.acquire(1000)
        rl.settle(permit, 4000)  # it cost 3000 more than estimated: 6000 - 4000 = 2000 left
        assert rl.tokens is not None and rl.tokens.level == pytest.approx(2000)
        permit = await rl.acquire(1000)
        rl.settle(permit, 100)  # 900 refunded
        assert rl.tokens.level == pytest.approx(1900)

    asyncio.run(go())
    assert clock.sleeps == []


def test_usage_beyond_the_reservation_is_a_debt_that_the_next_caller_waits_out() -> None:
    clock = FakeClock()
    rl = limiter(clock, tpm=600)  # 10 tokens per second

    async def go() -> None:
        permit = await rl.acquire(600)
        rl.settle(permit, 900)  # 300 tokens of debt
        await rl.acquire(100)  # needs 400 tokens of refill

    asyncio.run(go())
    assert clock.sleeps == pytest.approx([40.0])


def test_a_request_larger_than_a_minute_of_tokens_waits_for_a_full_bucket_not_forever() -> None:
    clock = FakeClock()
    rl = limiter(clock, tpm=600)

    async def go() -> None:
        await rl.acquire(100)
        await rl.acquire(10_000)

    asyncio.run(go())
    assert clock.sleeps == pytest.approx([10.0])  # back to 600 = the capacity, then it goes


def test_both_limits_apply_and_the_stricter_sets_the_wait() -> None:
    clock = FakeClock()
    rl = limiter(clock, rpm=2, tpm=60_000)  # 2 requests a minute; tokens are plentiful

    async def go() -> None:
        await rl.acquire(10)
        await rl.acquire(10)
        await rl.acquire(10)

    asyncio.run(go())
    assert clock.sleeps == pytest.approx([30.0])


def test_concurrent_callers_are_served_in_arrival_order() -> None:
    clock = FakeClock()
    rl = limiter(clock, rpm=60)
    order: list[int] = []

    async def caller(index: int) -> None:
        await rl.acquire(0)
        order.append(index)

    async def go() -> None:
        for _ in range(60):
            await rl.acquire(0)
        await asyncio.gather(*(caller(i) for i in range(5)))

    asyncio.run(go())
    assert order == [0, 1, 2, 3, 4]
    assert sum(clock.sleeps) == pytest.approx(5.0)


def test_no_limits_means_no_waiting_and_no_bookkeeping() -> None:
    clock = FakeClock()
    rl = limiter(clock)

    async def go() -> None:
        for _ in range(1000):
            permit = await rl.acquire(10_000)
            rl.settle(permit, 50_000)

    asyncio.run(go())
    assert not rl.active and clock.sleeps == []


def test_a_bucket_never_holds_more_than_a_minute_of_allowance() -> None:
    clock = FakeClock()
    bucket = TokenBucket(120, clock)
    bucket.take(120)
    clock.now += 3600
    assert bucket.level == pytest.approx(120)
    bucket.adjust(-500)  # a refund cannot overfill it either
    assert bucket.level == pytest.approx(120)


def test_a_non_positive_limit_is_refused_with_the_value() -> None:
    with pytest.raises(ValueError, match="-5"):
        TokenBucket(-5, FakeClock())


class Verdict(BaseModel):
    reasoning: str
    score: int


def test_the_estimate_grows_with_the_prompt_and_the_output_allowance_respects_max_tokens() -> None:
    def request(text: str, max_tokens: int = 1024) -> JudgeRequest:
        return JudgeRequest(
            metric="m",
            template_id="t",
            template_version="1",
            messages=(Message("system", "Grade."), Message("user", text)),
            response_model=Verdict,
            task=JudgeTask("t"),
            sampling=Sampling(max_tokens=max_tokens),
        )

    short, long = estimate_prompt_tokens(request("x" * 40)), estimate_prompt_tokens(request("x" * 4040))
    assert long - short == 1000  # four characters a token
    assert estimate_output_tokens(request("x")) == EXPECTED_OUTPUT_TOKENS
    assert estimate_output_tokens(request("x", max_tokens=50)) == 50


class CountingJudge:
    """A minimal remote-style judge: answers at once and reports a fixed usage."""

    offline = False
    cacheable = True

    def __init__(self) -> None:
        self.spec = JudgeSpec("openai", "gpt-4o-mini")
        self.calls = 0

    def identity(self) -> dict[str, str]:
        return {"provider": "openai", "model": "gpt-4o-mini"}

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        self.calls += 1
        return JudgeReply('{"reasoning": "ok", "score": 3}', input_tokens=700, output_tokens=50)

    async def aclose(self) -> None:
        return None


def test_the_engine_takes_a_permit_for_every_live_call_and_settles_it_with_the_usage(tmp_path: Path) -> None:
    clock = FakeClock()
    rl = limiter(clock, rpm=2, tpm=60_000)
    engine = JudgmentEngine(JudgmentCache(tmp_path / "c", "off"), limiter=rl)
    judge = CountingJudge()

    async def go() -> None:
        for i in range(3):
            request = JudgeRequest(
                metric="m",
                template_id="t",
                template_version="1",
                messages=(Message("user", f"question {i}"),),
                response_model=Verdict,
                task=JudgeTask("t"),
            )
            await engine.ask_graded(judge, request, Verdict, test_id="t", cache_only=False)

    asyncio.run(go())
    assert judge.calls == 3
    assert clock.sleeps == pytest.approx([30.0])  # the third request waited for the rpm refill
    assert rl.tokens is not None
    # each call is charged its reported 750 tokens, whatever was estimated: two calls, a 30 s refill back
    # to the full 60,000, then the third call
    assert rl.tokens.level == pytest.approx(60_000 - 750)
