"""Anthropic's Message Batches: ``POST /v1/messages/batches`` with ``{"custom_id", "params"}`` requests.

``params`` is the body the live Messages call sends (the forced verdict tool, the system prompt, the
temperature). A batch's results are a JSONL stream of ``{"custom_id", "result"}`` where the result
``type`` is ``succeeded`` (with the message), ``errored``, ``canceled`` or ``expired``. Custom ids
must be 1-64 characters of ``[A-Za-z0-9_-]``: a cache key (64 hex digits) is one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ..batch_api import (
    BatchState,
    BatchTarget,
    Manifest,
    Outcome,
    QueuedRequest,
    capped,
    refused_param,
    sdk_client,
    target_of,
)
from ..protocol import Judge, JudgeReply
from ..request import JudgeRequest
from .messages import AnthropicJudge

MESSAGES = "/v1/messages"
#: Error types worth asking again (the request itself was fine).
PASSING_ERRORS = frozenset({"api_error", "overloaded_error", "rate_limit_error", "timeout_error"})


class AnthropicBatches:
    name = "anthropic"
    max_requests = 100_000
    max_bytes = 250 * 1024 * 1024  # the API takes 256 MB per batch

    def target(self, judge: Judge) -> BatchTarget | None:
        if not isinstance(judge, AnthropicJudge):
            return None
        return target_of("anthropic", MESSAGES, judge, judge.spec.model, judge.spec.label)

    def body(self, judge: Judge, request: JudgeRequest) -> dict[str, Any]:
        assert isinstance(judge, AnthropicJudge)
        return judge.request_body(request)

    def _client(self, target: BatchTarget, doing: str) -> Any:
        import anthropic

        key = os.environ.get(target.key_env)
        return sdk_client(anthropic, "Anthropic", "AnthropicError", target, doing, api_key=key)

    def submit(self, target: BatchTarget, requests: Sequence[QueuedRequest]) -> tuple[str, str | None]:
        with self._client(target, "submit a message batch") as client:
            batch = client.messages.batches.create(
                requests=[{"custom_id": r.key, "params": r.body} for r in requests]
            )
        return str(batch.id), None

    def _state(self, batch: Any) -> BatchState:
        counts = batch.request_counts
        finished = counts.succeeded + counts.errored + counts.canceled + counts.expired
        status = str(batch.processing_status)
        if status == "ended" and counts.expired:
            status = "expired"
        elif status == "ended" and counts.canceled:
            status = "canceled"
        return BatchState(status, batch.processing_status == "ended", finished, finished + counts.processing)

    def state(self, manifest: Manifest) -> BatchState:
        with self._client(manifest.target, f"check message batch {manifest.id}") as client:
            return self._state(client.messages.batches.retrieve(manifest.id))

    def outcomes(self, manifest: Manifest) -> Iterator[Outcome]:
        with self._client(manifest.target, f"collect message batch {manifest.id}") as client:
            yield from (_outcome(item) for item in client.messages.batches.results(manifest.id))

    def cancel(self, manifest: Manifest) -> BatchState:
        with self._client(manifest.target, f"cancel message batch {manifest.id}") as client:
            return self._state(client.messages.batches.cancel(manifest.id))

    async def reply(self, judge: Judge, request: JudgeRequest, body: dict[str, Any]) -> JudgeReply:
        from anthropic.types import Message

        assert isinstance(judge, AnthropicJudge)
        return judge.reply_of(Message.model_validate(body))


def _outcome(item: Any) -> Outcome:
    key = str(item.custom_id)
    result = item.result
    if result.type == "succeeded":
        return Outcome(key, body=result.message.model_dump(mode="json"))
    if result.type != "errored":
        return Outcome(key)  # canceled or expired: asked again in a later batch
    error = result.error.error.model_dump(mode="json")
    if error.get("type") in PASSING_ERRORS:
        return Outcome(key)
    return Outcome(
        key,
        error=f"{error.get('type', 'error')}: {error.get('message', '')}",
        raw=capped(json.dumps(result.error.model_dump(mode="json"))),
        rejected_param=refused_param(error) if error.get("type") == "invalid_request_error" else None,
    )


ANTHROPIC_BATCHES = AnthropicBatches()
