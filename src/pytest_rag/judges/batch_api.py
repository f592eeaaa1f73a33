"""What a provider batch API offers pytest-rag, and what the batch machinery keeps of its batches.

A :class:`BatchAPI` knows one provider's batch endpoints and nothing of the engine: it says whether a
judge can be batched (its :class:`BatchTarget`), builds the body a request carries (the judge's own
live request body), submits requests, reports a batch's state, lists its outcomes, cancels it, and
turns a collected response body back into a :class:`~pytest_rag.judges.protocol.JudgeReply` with the
judge's own parsing, so a batched reply is read exactly as a live one. Each provider's implementation
lives in its folder (``judges/openai/batch.py``, ``judges/anthropic/batch.py``) as a
:class:`ProviderBatches`, which takes the steps both providers take alike (a client per operation,
state and cancel, reading result lines, a failed request's outcome), so a provider module holds only
what its API does differently; which one serves a judge is the engine's lookup
(:mod:`pytest_rag.engine.batch.providers`), so no provider module imports this one back.

Batch management (submit, check, collect, cancel) happens at the start and end of a run and on the
command line, outside pytest-rag's event loop, so it uses the SDKs' synchronous clients, built per
operation from the target (base URL, and the API key read from the environment variable the target
names). The judges' own clients live on the judge loop and are left alone. This module names the SDK
(:attr:`ProviderBatches.sdk`) and imports it only when a batch is managed, never at import time.

The records (:class:`BatchTarget`, :class:`QueuedRequest`, :class:`Manifest`,
:class:`CollectedReply`) are what is kept on disk. All are JSON (pydantic models) so that several
processes (pytest-xdist workers, the command line) read what another wrote. None holds a credential:
a target names the environment variable that holds the API key (``key_env``), never the key, keeps
a base URL only in its public form (a user name, password or query in it is left out and taken again
from the judge this process configured, or from the provider's base-URL variable: ``private``), and
request bodies are what the judge is sent.
"""

from __future__ import annotations

import importlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..errors import RAW_REPLY_LIMIT, RagError, cut_text
from ..ground.redaction import full_url, public_url, stored_url
from .faults import rejected_param, translate
from .protocol import Judge, JudgeReply, TransientFault
from .request import JudgeRequest

ManifestState = Literal["submitting", "pending", "collected"]


class BatchTarget(BaseModel):
    """Where a request goes: one provider endpoint and model, so one batch per judge."""

    model_config = ConfigDict(frozen=True)

    api: Literal["openai", "anthropic"]
    endpoint: str
    """``/v1/chat/completions``, ``/v1/embeddings`` (OpenAI) or ``/v1/messages`` (Anthropic)."""
    base_url: str
    """The public form of the base URL (:func:`~pytest_rag.ground.redaction.public_url`)."""
    model: str
    judge: str
    """The judge's label, as the summary shows it (``openai:gpt-4o-mini``)."""
    key_env: str
    """The name of the environment variable holding the API key (the key itself is never kept)."""
    timeout_s: float = 60.0
    private: bool = False
    """The judge's base URL had a user name, password or query, left out of :attr:`base_url`."""

    @property
    def group(self) -> tuple[str, str, str, str]:
        """Requests with the same group go into the same batch."""
        return (self.api, self.endpoint, self.base_url, self.model)


class RequestOrigin(BaseModel):
    """Which check asked for a request: for status lines and for a repair's original request."""

    key: str
    """The cache key of the request, which is also its ``custom_id`` in the batch."""
    metric: str = ""
    template: str = ""
    test: str = ""
    parent: str | None = None
    """For a repair request: the key of the request whose reply it repairs."""


class QueuedRequest(RequestOrigin):
    """A request waiting for the end of the run, with the body the batch will carry."""

    target: BatchTarget
    body: dict[str, Any]
    est_cost_usd: float = 0.0
    """Estimated cost at batch prices."""
    est_live_usd: float = 0.0
    """Estimated cost of the same request at live prices (the saving is the difference)."""
    queued_at: float = 0.0


class Manifest(BaseModel):
    """One submitted batch: enough to check it, collect it and cancel it from any process."""

    local_id: str
    id: str = ""
    """The provider's batch id; empty while the batch is being submitted."""
    target: BatchTarget
    requests: list[RequestOrigin]
    submitted_at: float
    state: ManifestState = "submitting"
    status: str = ""
    """The provider's status as last seen (``in_progress``, ``completed``, ``expired`` ...)."""
    done: int = 0
    """Requests the provider had finished when last checked."""
    checked_at: float | None = None
    input_file_id: str | None = None
    est_cost_usd: float = 0.0
    est_live_usd: float = 0.0
    collected_at: float | None = None
    answered: int = 0
    failed: int = 0
    unanswered: int = 0
    """Requests the batch did not answer (expired, cancelled, a transient failure): asked again."""
    not_answered: dict[str, int] = Field(default_factory=dict)
    """Why those requests were not answered, each reason with its count (``expired``, ``met HTTP 500``,
    ``unreadable in the output`` ...)."""
    ended: bool = False
    """The provider said the batch has ended: it is collected, never waited for."""
    problem: str = ""
    """Why the last attempt to check or collect the batch failed, if it did."""
    cancel_requested: bool = False

    @property
    def label(self) -> str:
        return self.id or f"(unsubmitted {self.local_id})"

    def request_keys(self) -> list[str]:
        return [origin.key for origin in self.requests]

    def not_answered_text(self) -> str:
        """Why requests were not answered, most frequent first: ``2 expired, 1 HTTP 500``."""
        reasons = sorted(self.not_answered.items(), key=lambda item: (-item[1], item[0]))
        return ", ".join(f"{count} {reason}" for reason, count in reasons) or self.problem or self.status


class CollectedReply(BaseModel):
    """One request's outcome in a finished batch, kept until a run uses it.

    ``body`` is the provider's response (a chat completion, a message, an embeddings list) when the
    request succeeded; ``error`` says why it failed otherwise (the provider's words, with ``raw``
    holding its error body, size-capped). ``counted`` is set once a run has counted its cost.
    """

    batch: str
    parent: str | None = None
    body: dict[str, Any] | None = None
    error: str | None = None
    raw: str | None = None
    rejected_param: str | None = None
    """The request parameter the model refused (``temperature`` ...), which the judge can stop sending."""
    sent: bool = True
    """False when the request never reached the model (the batch was refused as a whole): its check
    is a judge error, but no request counts as sent or failed."""
    counted: bool = False
    collected_at: float = Field(default=0.0)


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
    did not answer it (expired, cancelled, a fault that may pass, a line of the output that cannot be
    read), so it is asked again later, and ``unanswered`` says why."""

    key: str
    body: dict[str, Any] | None = None
    error: str | None = None
    raw: str | None = None
    rejected_param: str | None = None
    unanswered: str | None = None
    sent: bool = True
    """False for a request of a batch refused as a whole (nothing reached the model)."""

    @classmethod
    def failed(cls, key: str, error: str, body: Any, refusal: dict[str, Any] | None = None) -> Outcome:
        """A request the provider answered with an ``error``: its error ``body`` kept size-capped (as
        any raw reply is), and the request parameter the model refused when ``refusal`` (the error
        of an invalid request) names one, so the judge can stop sending it."""
        return cls(
            key,
            error=error,
            raw=cut_text(json.dumps(body), RAW_REPLY_LIMIT),
            rejected_param=rejected_param(SimpleNamespace(body={"error": refusal})) if refusal else None,
        )


UNREADABLE_LINE = "unreadable in the output"
"""Why a request whose result line cannot be read was not answered (it is asked again)."""

_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"([A-Za-z0-9_-]{1,64})"')


def unreadable(line: str) -> Outcome:
    """The outcome of a result line that is not JSON (cut short, say): not answered. The request's
    key is read from the line where it still can be; otherwise the request simply has no outcome."""
    found = _CUSTOM_ID.search(line)
    return Outcome(found.group(1) if found else "", unanswered=UNREADABLE_LINE)


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


@contextmanager
def sdk_client(
    sdk: ModuleType,
    client: str,
    base_error: str,
    target: BatchTarget,
    doing: str,
    *,
    api_key: str | None,
    base_url: str,
) -> Iterator[Any]:
    """A synchronous client of ``sdk`` for ``target`` at ``base_url`` (the target's, with any
    credentials it left out) while ``doing`` something; an SDK error inside becomes a one-line
    :class:`BatchProblem`. Management calls are few: the SDK retries them twice.

    ``api_key`` is what the provider's own rule finds in the variable the target names (a
    self-hosted OpenAI-compatible server takes any key); None when it is not set."""
    if not api_key:
        raise BatchProblem(
            f"{target.key_env} is not set, so the batches of {target.judge} cannot be reached; export it "
            "(the key itself is never stored with a batch)"
        )
    opened = getattr(sdk, client)(
        api_key=api_key, base_url=base_url, timeout=max(target.timeout_s, 60.0), max_retries=2
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
            f"could not {doing} for {target.judge}: the server at {public_url(target.base_url)} answered HTTP {status}; "
            "it does not seem to offer the batch API (run without --rag-batch)"
        )
    translated = translate(exc, sdk, judge=target.judge, key_env=target.key_env, base_url=target.base_url)
    reason = getattr(translated, "reason", None) or str(translated)
    return BatchProblem(
        f"could not {doing} for {target.judge}: {reason}", transient=isinstance(translated, TransientFault)
    )


def outcomes_of(lines: Iterable[str], read: Callable[[Any], Outcome]) -> Iterator[Outcome]:
    """The outcome of each result line, as ``read`` finds it in the line's JSON. A line that cannot
    be read (not JSON, cut short, without a field ``read`` needs) leaves its own request unanswered
    (asked again), never the whole batch uncollected; blank lines are no requests."""
    for line in lines:
        if not line.strip():
            continue
        try:
            outcome = read(json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError):
            outcome = unreadable(line)
        yield outcome


class ProviderBatches(ABC):
    """What every provider's :class:`BatchAPI` does alike: it builds a judge's target, opens its SDK's
    synchronous client for each operation (:func:`sdk_client`), checks and cancels a batch by reading
    the batch object the provider returns, collects inside one client and reads result lines one by
    one. A provider names its SDK and batch, and fills in the calls that differ: its key, retrieving,
    cancelling, reading a batch object's state, listing the outcomes of an ended batch, and what one
    result line says."""

    name: str
    """The provider's name, as a :class:`BatchTarget`'s ``api``."""
    sdk: str
    """The SDK's module name (``openai``), imported when a batch is managed."""
    client_class: str
    base_error: str
    """The SDK's client class and the base class of its errors, by name."""
    batch_noun: str
    """What the provider calls one batch, for problems: ``batch``, ``message batch``."""
    base_url_env: str
    """The variable the provider's SDK reads a base URL from (``OPENAI_BASE_URL``): where the command
    line finds a private base URL again."""

    def _target(self, endpoint: str, owner: Any, model: str, label: str) -> BatchTarget:
        """The target of a judge (or embedder) ``owner`` at this provider's ``endpoint``: its base
        URL (its public form), key variable and timeout."""
        base_url, private = stored_url(owner.base_url)
        return BatchTarget.model_validate(
            {
                "api": self.name,
                "endpoint": endpoint,
                "base_url": base_url,
                "private": private,
                "model": model,
                "judge": label,
                "key_env": owner.key_env,
                "timeout_s": owner.timeout_s,
            }
        )

    @abstractmethod
    def api_key(self, target: BatchTarget) -> str | None:
        """The API key the provider's own rule finds for ``target`` (None when there is none)."""

    def base_url(self, target: BatchTarget, doing: str) -> str:
        """The URL ``target``'s batches are reached at: its own, or the full one of a private target,
        which this process's judges or :attr:`base_url_env` must give back."""
        if not target.private:
            return target.base_url
        found = full_url(target.base_url, self.base_url_env)
        if found is None:
            raise BatchProblem(
                f"could not {doing} for {target.judge}: its base URL {target.base_url} carried a user name, "
                "password or query, which is never stored with a batch; run pytest with the same "
                f"--rag-judge, or set {self.base_url_env} to the full URL"
            )
        return found

    def client(self, target: BatchTarget, doing: str) -> AbstractContextManager[Any]:
        sdk = importlib.import_module(self.sdk)
        return sdk_client(
            sdk,
            self.client_class,
            self.base_error,
            target,
            doing,
            api_key=self.api_key(target),
            base_url=self.base_url(target, doing),
        )

    @abstractmethod
    def _retrieve(self, client: Any, batch_id: str) -> Any:
        """The provider's batch object of ``batch_id``."""

    @abstractmethod
    def _cancel(self, client: Any, batch_id: str) -> Any:
        """Cancel ``batch_id``; the provider's batch object as the cancel left it."""

    @abstractmethod
    def _state(self, batch: Any, manifest: Manifest) -> BatchState:
        """The state in a batch object the provider returned."""

    @abstractmethod
    def _collect(self, client: Any, manifest: Manifest) -> Iterator[Outcome]:
        """The outcomes of the ended batch of ``manifest``, read with ``client`` (mostly result lines,
        through :meth:`_outcomes`)."""

    @abstractmethod
    def _outcome(self, item: Any) -> Outcome:
        """The outcome in one result line's JSON, ``item``, as the provider writes it."""

    def _outcomes(self, lines: Iterable[str]) -> Iterator[Outcome]:
        """The outcome of each result line (see :func:`outcomes_of`)."""
        return outcomes_of(lines, self._outcome)

    def state(self, manifest: Manifest) -> BatchState:
        with self.client(manifest.target, f"check {self.batch_noun} {manifest.id}") as client:
            return self._state(self._retrieve(client, manifest.id), manifest)

    def cancel(self, manifest: Manifest) -> BatchState:
        with self.client(manifest.target, f"cancel {self.batch_noun} {manifest.id}") as client:
            return self._state(self._cancel(client, manifest.id), manifest)

    def outcomes(self, manifest: Manifest) -> Iterator[Outcome]:
        with self.client(manifest.target, f"collect {self.batch_noun} {manifest.id}") as client:
            yield from self._collect(client, manifest)
