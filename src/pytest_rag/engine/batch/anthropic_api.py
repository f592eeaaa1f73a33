"""Anthropic's Message Batches: ``POST /v1/messages/batches`` with ``{"custom_id", "params"}`` requests.

``params`` is the body the live Messages call sends (the forced verdict tool, the system prompt, the
temperature). A batch's results are a JSONL stream of ``{"custom_id", "result"}`` where the result
``type`` is ``succeeded`` (with the message), ``errored``, ``canceled`` or ``expired``. Custom ids
must be 1-64 characters of ``[A-Za-z0-9_-]``: a cache key (64 hex digits) is one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from ...judges.anthropic_messages import AnthropicJudge
from ...judges.protocol import Judge, JudgeReply
from ...judges.request import JudgeRequest
from .apis import BatchState, Outcome, api_key, capped, problem, refused_param
from .records import BatchTarget, Manifest, QueuedRequest

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
        return BatchTarget(
            api="anthropic",
            endpoint=MESSAGES,
            base_url=judge.base_url,
            model=judge.spec.model,
            judge=judge.spec.label,
            key_env=judge.key_env,
            timeout_s=judge.timeout_s,
        )

    def body(self, judge: Judge, request: JudgeRequest) -> dict[str, Any]:
        assert isinstance(judge, AnthropicJudge)
        return judge.request_body(request)

    def _client(self, target: BatchTarget) -> Any:
        import anthropic

        return anthropic.Anthropic(
            api_key=api_key(target),
            base_url=target.base_url,
            timeout=max(target.timeout_s, 60.0),
            max_retries=2,
        )

    def submit(self, target: BatchTarget, requests: Sequence[QueuedRequest]) -> tuple[str, str | None]:
        import anthropic

        client = self._client(target)
        try:
            batch = client.messages.batches.create(
                requests=[{"custom_id": r.key, "params": r.body} for r in requests]
            )
        except anthropic.AnthropicError as exc:
            raise problem(exc, anthropic, target, "submit a message batch") from None
        finally:
            client.close()
        return str(batch.id), None

    def _state(self, batch: Any) -> BatchState:
        counts = batch.request_counts
        finished = counts.succeeded + counts.errored + counts.canceled + counts.expired
        total = finished + counts.processing
        status = str(batch.processing_status)
        if status == "ended" and counts.expired:
            status = "expired"
        elif status == "ended" and counts.canceled:
            status = "canceled"
        ended = batch.processing_status == "ended"
        return BatchState(status, ended, total - counts.processing, total)

    def state(self, manifest: Manifest) -> BatchState:
        import anthropic

        client = self._client(manifest.target)
        try:
            return self._state(client.messages.batches.retrieve(manifest.id))
        except anthropic.AnthropicError as exc:
            raise problem(exc, anthropic, manifest.target, f"check message batch {manifest.id}") from None
        finally:
            client.close()

    def outcomes(self, manifest: Manifest) -> Iterator[Outcome]:
        import anthropic

        client = self._client(manifest.target)
        try:
            for item in client.messages.batches.results(manifest.id):
                yield _outcome(item)
        except anthropic.AnthropicError as exc:
            raise problem(exc, anthropic, manifest.target, f"download the results of {manifest.id}") from None
        finally:
            client.close()

    def cancel(self, manifest: Manifest) -> BatchState:
        import anthropic

        client = self._client(manifest.target)
        try:
            return self._state(client.messages.batches.cancel(manifest.id))
        except anthropic.AnthropicError as exc:
            raise problem(exc, anthropic, manifest.target, f"cancel message batch {manifest.id}") from None
        finally:
            client.close()

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
