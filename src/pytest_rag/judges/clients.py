"""One SDK client per judge and event loop.

Building an ``openai.AsyncOpenAI`` or ``anthropic.AsyncAnthropic`` client costs milliseconds of CPU
(an SSL context with the system's certificates, a connection pool); sending a request through a
client that exists costs far less and reuses its open connections. A client must not outlive the
event loop it first used, though: its pooled connections belong to that loop. So a judge (and the
embedder that shares its server) keeps one client per loop, built on first use there and closed on
that loop by :meth:`LoopClients.aclose`. In a pytest run every live call happens on pytest-rag's own
loop, so that is one client per judge for the whole session.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

C = TypeVar("C")


class LoopClients(Generic[C]):
    """The client of the running event loop, built by ``build`` the first time that loop asks."""

    def __init__(self, build: Callable[[], C]) -> None:
        self._build = build
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, C] = weakref.WeakKeyDictionary()

    def get(self) -> C:
        """The running loop's client (must be called from a coroutine on that loop)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._build()  # may raise (a missing API key): nothing is kept then
            self._clients[loop] = client
        return client

    def __len__(self) -> int:
        return len(self._clients)

    async def aclose(self) -> None:
        """Close the running loop's client, and forget those of loops already closed (they cannot be
        closed any more, and a client can keep its loop alive). A client of another loop that still
        runs is left for that loop to close."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        for loop in [loop for loop in self._clients if loop.is_closed()]:
            del self._clients[loop]
        close = getattr(client, "close", None)
        if close is not None:
            await close()


class HasClients(Protocol):
    """A judge or an embedder that keeps its SDK clients in :class:`LoopClients`."""

    @property
    def clients(self) -> LoopClients[Any]: ...


def prepare_clients(judge: HasClients) -> None:
    """The ``prepare()`` of a judge or embedder with an SDK client: build the running loop's client,
    which imports the SDK (a second for ``openai``, three for ``anthropic``, types included), before
    the engine starts timing the first call."""
    judge.clients.get()
