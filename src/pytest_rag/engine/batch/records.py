"""What the batch machinery keeps on disk: queued requests, batch manifests and collected replies.

All three are JSON (pydantic models) so that several processes (pytest-xdist workers, the command line)
read what another wrote. None holds a credential: a target names the environment variable that holds
the API key (``key_env``), never the key, and request bodies are what the judge is sent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ManifestState = Literal["submitting", "pending", "collected"]


class BatchTarget(BaseModel):
    """Where a request goes: one provider endpoint and model, so one batch per judge."""

    model_config = ConfigDict(frozen=True)

    api: Literal["openai", "anthropic"]
    endpoint: str
    """``/v1/chat/completions``, ``/v1/embeddings`` (OpenAI) or ``/v1/messages`` (Anthropic)."""
    base_url: str
    model: str
    judge: str
    """The judge's label, as the summary shows it (``openai:gpt-4o-mini``)."""
    key_env: str
    """The name of the environment variable holding the API key (the key itself is never kept)."""
    timeout_s: float = 60.0

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
    problem: str = ""
    """Why the last attempt to check or collect the batch failed, if it did."""
    cancel_requested: bool = False

    @property
    def label(self) -> str:
        return self.id or f"(unsubmitted {self.local_id})"

    def request_keys(self) -> list[str]:
        return [origin.key for origin in self.requests]


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
    counted: bool = False
    collected_at: float = Field(default=0.0)
