"""What every provider batch API offers pytest-rag, and which one serves a judge.

A :class:`BatchAPI` knows one provider's batch endpoints and nothing of the engine: it says whether a
judge can be batched (its :class:`~.records.BatchTarget`), builds the body a request carries (the
judge's own live request body), submits requests, reports a batch's state, lists its outcomes, cancels
it, and turns a collected response body back into a :class:`~pytest_rag.judges.protocol.JudgeReply`
with the judge's own parsing, so a batched reply is read exactly as a live one.

Batch management (submit, check, collect, cancel) happens at the start and end of a run and on the
command line, outside pytest-rag's event loop, so it uses the SDKs' synchronous clients, built per
operation from the target (base URL, and the API key read from the environment variable the target
names). The judges' own clients live on the judge loop and are left alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace
from typing import Any, Protocol

from ...errors import RAW_REPLY_LIMIT, RagError, cut_text
from ...judges.faults import rejected_param, translate
from ...judges.openai_chat import api_key_for
from ...judges.protocol import Judge, JudgeReply, TransientFault
from ...judges.request import JudgeRequest
from .records import BatchTarget, Manifest, QueuedRequest


class BatchProblem(RagError):
    """A batch could not be submitted, checked, collected or cancelled. ``transient`` problems (a dropped
    connection, a 5xx) are worth trying again later; the others (no batch API, bad credentials) are not."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class BatchState:
    """A batch as the provider reports it."""

    status: str
    ended: bool
    done: int
    total: int


@dataclass(frozen=True)
class Outcome:
    """One request of a finished batch: a response ``body``, or an ``error``; neither means the batch
    did not answer it (expired, cancelled, or a fault that may pass), so it is asked again later."""

    key: str
    body: dict[str, Any] | None = None
    error: str | None = None
    raw: str | None = None
    rejected_param: str | None = None


class BatchAPI(Protocol):
    name: str
    max_requests: int
    max_bytes: int

    def target(self, judge: Judge) -> BatchTarget | None:
        """Where ``judge``'s requests go in a batch; None when this API cannot batch the judge."""
        ...

    def body(self, judge: Judge, request: JudgeRequest) -> dict[str, Any]:
        """The request body a live call of ``judge`` would send for ``request``."""
        ...

    def submit(self, target: BatchTarget, requests: Sequence[QueuedRequest]) -> tuple[str, str | None]:
        """Create the batch; returns its id and the id of an uploaded input file (if any)."""
        ...

    def state(self, manifest: Manifest) -> BatchState: ...

    def outcomes(self, manifest: Manifest) -> Iterator[Outcome]:
        """Every answered or failed request of an ended batch (unanswered ones may be left out)."""
        ...

    def cancel(self, manifest: Manifest) -> BatchState: ...

    async def reply(self, judge: Judge, request: JudgeRequest, body: dict[str, Any]) -> JudgeReply:
        """The judge's reply in a collected response body, read by the judge's own parsing."""
        ...


def api_key(target: BatchTarget) -> str:
    """The key for ``target`` from its environment variable (self-hosted OpenAI servers take any)."""
    key = (
        api_key_for(target.key_env, target.base_url)
        if target.api == "openai"
        else os.environ.get(target.key_env)
    )
    if key:
        return key
    raise BatchProblem(
        f"{target.key_env} is not set, so the batches of {target.judge} cannot be reached; export it "
        "(the key itself is never stored with a batch)"
    )


def target_of(api: str, endpoint: str, owner: Any, model: str, label: str) -> BatchTarget:
    """The target of a judge (or embedder) ``owner``: its base URL, key variable and timeout."""
    return BatchTarget.model_validate(
        {
            "api": api,
            "endpoint": endpoint,
            "base_url": owner.base_url,
            "model": model,
            "judge": label,
            "key_env": owner.key_env,
            "timeout_s": owner.timeout_s,
        }
    )


@contextmanager
def sdk_client(
    sdk: ModuleType, client: str, base_error: str, target: BatchTarget, doing: str
) -> Iterator[Any]:
    """A synchronous client of ``sdk`` for ``target`` while ``doing`` something; an SDK error inside
    becomes a one-line :class:`BatchProblem`. Management calls are few: the SDK retries them twice."""
    opened = getattr(sdk, client)(
        api_key=api_key(target), base_url=target.base_url, timeout=max(target.timeout_s, 60.0), max_retries=2
    )
    try:
        yield opened
    except getattr(sdk, base_error) as exc:
        raise problem(exc, sdk, target, doing) from None
    finally:
        opened.close()


def problem(exc: BaseException, sdk: ModuleType, target: BatchTarget, doing: str) -> BatchProblem:
    """An SDK exception met while ``doing`` something with a batch, as a one-line :class:`BatchProblem`."""
    status = getattr(exc, "status_code", None)
    if status in (404, 405):
        return BatchProblem(
            f"could not {doing} for {target.judge}: the server at {target.base_url} answered HTTP {status}; "
            "it does not seem to offer the batch API (run without --rag-batch)"
        )
    translated = translate(exc, sdk, judge=target.judge, key_env=target.key_env, base_url=target.base_url)
    reason = getattr(translated, "reason", None) or str(translated)
    return BatchProblem(
        f"could not {doing} for {target.judge}: {reason}", transient=isinstance(translated, TransientFault)
    )


def capped(text: str) -> str:
    """A failed request's error body, cut to what pytest-rag keeps of any raw reply."""
    return cut_text(text, RAW_REPLY_LIMIT)


def refused_param(error: dict[str, Any]) -> str | None:
    """The request parameter a provider's error body says the model refused, if it names one."""
    return rejected_param(SimpleNamespace(body={"error": error}))


def every_api() -> tuple[BatchAPI, ...]:
    from .anthropic_api import ANTHROPIC_BATCHES
    from .openai_api import OPENAI_BATCHES

    return (OPENAI_BATCHES, ANTHROPIC_BATCHES)


def api_for_judge(judge: Judge) -> tuple[BatchAPI, BatchTarget] | None:
    """The batch API that can take ``judge``'s requests, with their target; None when none can."""
    for api in every_api():
        target = api.target(judge)
        if target is not None:
            return api, target
    return None


def api_for_target(target: BatchTarget) -> BatchAPI:
    for api in every_api():
        if api.name == target.api:
            return api
    raise BatchProblem(f"no batch API named {target.api!r} (a manifest written by another version?)")
