"""Running the async core from sync tests without touching anyone else's event loop.

The judge clients live on one event loop in a background thread, owned by pytest-rag. Sync helpers
hand it a coroutine and wait; async helpers await a wrapped future on their own loop. Neither calls
``asyncio.run`` inside a running loop, so pytest-asyncio, anyio and notebooks are unaffected.

Before any of that, :func:`run_fast` tries the evaluation synchronously with cache-only judging:
when every judgment is cached (or the judge is offline) the coroutine finishes on its first step, with
no thread hop and no loop at all. The first miss raises :class:`~pytest_rag.engine.judgment.NeedsLiveCall`
and the evaluation is run again, for real, on the loop (metrics are pure, so rerunning is safe).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from .judgment import NeedsLiveCall

T = TypeVar("T")


class _Unfinished:
    pass


UNFINISHED = _Unfinished()


def run_fast(coro: Coroutine[Any, Any, T]) -> T | _Unfinished:
    """Drive ``coro`` one step without a loop; UNFINISHED when it needs a live call or a real await."""
    try:
        coro.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result
    except NeedsLiveCall:
        return UNFINISHED
    coro.close()
    return UNFINISHED


async def gather_all(cache_only: bool, awaitables: list[Awaitable[T]]) -> list[T]:
    """Await all; sequentially on the fast path (no loop exists there), concurrently otherwise.
    Every awaitable runs to completion before the first exception is raised, so finished judgments
    are cached and counted even when a sibling fails."""
    if cache_only:
        done: list[T] = []
        failure: Exception | None = None
        for at, awaitable in enumerate(awaitables):
            try:
                done.append(await awaitable)
            except Exception as exc:
                if isinstance(exc, NeedsLiveCall):
                    # The evaluation goes live and starts again: close the siblings not reached, or
                    # each would warn "coroutine ... was never awaited" when collected.
                    for rest in awaitables[at + 1 :]:
                        if asyncio.iscoroutine(rest):
                            rest.close()
                    raise
                failure = failure or exc  # as on the loop: the siblings still run, then it is raised
        if failure is not None:
            raise failure
        return done
    outcomes = await asyncio.gather(*awaitables, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return list(outcomes)  # type: ignore[arg-type]


async def gather_window(jobs: Sequence[Callable[[], Awaitable[T]]], window: int) -> list[T]:
    """Run ``jobs`` (each a function returning an awaitable) with at most ``window`` running at once;
    the results in job order. A job that raises stops its worker's queue no sooner than the others:
    every job runs, and the first exception is raised once all are done.

    A batch of ten thousand checks started at once keeps ten thousand rendered prompts and coroutine
    frames alive while all but a few wait for a slot; a window a few times the concurrency limit keeps
    the judge just as busy with memory that does not grow with the batch."""
    results: list[T | None] = [None] * len(jobs)
    failures: list[BaseException] = []
    queue = iter(enumerate(jobs))

    async def worker() -> None:
        for index, job in queue:
            try:
                results[index] = await job()
            except Exception as exc:
                failures.append(exc)

    await asyncio.gather(*(worker() for _ in range(max(1, min(window, len(jobs))))))
    if failures:
        raise failures[0]
    return results  # type: ignore[return-value]


class LoopThread:
    """A daemon thread running one event loop for the whole session, started on first need."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._loop is not None

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                self._thread = threading.Thread(target=serve, name="pytest-rag-judges", daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self._ensure())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._thread is not None and threading.current_thread() is self._thread:
            raise RuntimeError("pytest-rag's sync helpers cannot be called from its own judge loop")
        return self.submit(coro).result()

    async def run_async(self, coro: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(self.submit(coro))

    def stop(self, final: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        if self._loop is None:
            return
        loop = self._loop
        if final is not None:
            with contextlib.suppress(Exception):  # closing clients must never fail the session
                asyncio.run_coroutine_threadsafe(final(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        loop.close()
        self._loop = None
        self._thread = None
