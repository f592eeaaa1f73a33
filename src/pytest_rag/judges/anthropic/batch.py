"""Anthropic's Message Batches: ``POST /v1/messages/batches`` with ``{"custom_id", "params"}`` requests.

``params`` is the body the live Messages call sends (the forced verdict tool, the system prompt, the
temperature). A batch's results are a JSONL stream of ``{"custom_id", "result"}`` where the result
``type`` is ``succeeded`` (with the message), ``errored``, ``canceled`` or ``expired``. Custom ids
must be 1-64 characters of ``[A-Za-z0-9_-]``: a cache key (64 hex digits) is one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..batch_api import (
    UNREADABLE_LINE,
    BatchState,
    BatchTarget,
    Manifest,
    Outcome,
    ProviderBatches,
    QueuedRequest,
)
from ..openai.server import api_key_for
from ..protocol import Judge, JudgeReply
from ..request import JudgeRequest
from .messages import ANTHROPIC_DEFAULT_BASE_URL, AnthropicJudge

MESSAGES = "/v1/messages"
#: Error types worth asking again (the request itself was fine).
PASSING_ERRORS = frozenset({"api_error", "overloaded_error", "rate_limit_error", "timeout_error"})


class AnthropicBatches(ProviderBatches):
    name = "anthropic"
    max_requests = 100_000
    max_bytes = 250 * 1024 * 1024  # the API takes 256 MB per batch
    sdk, client_class, base_error = "anthropic", "Anthropic", "AnthropicError"
    batch_noun = "message batch"
    base_url_env = "ANTHROPIC_BASE_URL"

    def target(self, judge: Judge) -> BatchTarget | None:
        if not isinstance(judge, AnthropicJudge):
            return None
        return self._target(MESSAGES, judge, judge.spec.model, judge.spec.label)

    def body(self, judge: Judge, request: JudgeRequest) -> dict[str, Any]:
        assert isinstance(judge, AnthropicJudge)
        return judge.request_body(request)

    def api_key(self, target: BatchTarget) -> str | None:
        return api_key_for(target.key_env, target.base_url, ANTHROPIC_DEFAULT_BASE_URL)

    def submit(self, target: BatchTarget, requests: Sequence[QueuedRequest]) -> tuple[str, str | None]:
        with self.client(target, "submit a message batch") as client:
            batch = client.messages.batches.create(
                requests=[{"custom_id": r.key, "params": r.body} for r in requests]
            )
        return str(batch.id), None

    def _retrieve(self, client: Any, batch_id: str) -> Any:
        return client.messages.batches.retrieve(batch_id)

    def _cancel(self, client: Any, batch_id: str) -> Any:
        return client.messages.batches.cancel(batch_id)

    def _state(self, batch: Any, manifest: Manifest) -> BatchState:
        counts = batch.request_counts
        finished = counts.succeeded + counts.errored + counts.canceled + counts.expired
        status = str(batch.processing_status)
        if status == "ended" and counts.expired:
            status = "expired"
        elif status == "ended" and counts.canceled:
            status = "canceled"
        return BatchState(status, batch.processing_status == "ended", finished, finished + counts.processing)

    def _collect(self, client: Any, manifest: Manifest) -> Iterator[Outcome]:
        results = client.messages.batches.results(manifest.id)
        try:
            # line by line rather than through the SDK's decoder, which stops at the first line
            # that is not JSON: such a line leaves its request unanswered, not the whole batch
            yield from self._outcomes(results.http_response.iter_lines())
        finally:
            results.close()

    @staticmethod
    def _outcome(item: Any) -> Outcome:
        """One line of the results: ``{"custom_id", "result": {"type", "message" | "error"}}``."""
        key, result = str(item["custom_id"]), item["result"]
        kind = str(result["type"])
        message = result.get("message")
        envelope = result.get("error") or {}
        error = envelope.get("error") or {} if kind == "errored" else {}
        if kind == "succeeded" and isinstance(message, dict):
            return Outcome(key, body=message)
        if kind != "errored" or not isinstance(error, dict):
            # canceled or expired (or a result with no message): asked again in a later batch
            return Outcome(key, unanswered=kind if kind in ("canceled", "expired") else UNREADABLE_LINE)
        if error.get("type") in PASSING_ERRORS:
            return Outcome(key, unanswered=f"met {error['type']}")
        invalid = error.get("type") == "invalid_request_error"
        return Outcome.failed(
            key,
            f"{error.get('type', 'error')}: {error.get('message', '')}",
            envelope,
            error if invalid else None,
        )

    async def reply(self, judge: Judge, request: JudgeRequest, body: dict[str, Any]) -> JudgeReply:
        from anthropic.types import Message

        assert isinstance(judge, AnthropicJudge)
        return judge.reply_of(Message.model_validate(body))


ANTHROPIC_BATCHES = AnthropicBatches()
