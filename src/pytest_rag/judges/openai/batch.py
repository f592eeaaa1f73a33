"""OpenAI's Batch API: a JSONL file of requests (``purpose="batch"``), then ``/v1/batches``.

Each line is ``{"custom_id": KEY, "method": "POST", "url": ENDPOINT, "body": BODY}`` with the body the
live call sends (the chat judge's request body, or ``{"model", "input"}`` for embeddings). A finished
batch has an output file (answered requests) and an error file (failed, expired and cancelled ones);
both are JSONL lines ``{"custom_id", "response": {"status_code", "body"}, "error"}``. One batch carries
one model and one endpoint, hence one batch per judge (chat) and per embeddings model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import JudgeError
from ..batch_api import BatchState, BatchTarget, Manifest, Outcome, ProviderBatches, QueuedRequest
from ..embeddings import EmbeddingBatch, EmbeddingJudge
from ..faults import RETRYABLE_STATUS
from ..protocol import Judge, JudgeReply
from ..request import JudgeRequest
from .chat import OpenAIChatJudge
from .embeddings import OpenAIEmbedder
from .server import api_key_for

CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
NOT_ANSWERED = {"batch_expired": "expired", "batch_cancelled": "cancelled"}
"""Error codes of requests the batch never ran, and how a status line says it."""


@dataclass(frozen=True)
class _CollectedVectors:
    """An embedder whose vectors already came back in a batch, so that :class:`EmbeddingJudge` turns
    them into the very reply (and cache entry) a live embeddings call makes."""

    embedder: OpenAIEmbedder
    batch: EmbeddingBatch
    offline = False

    @property
    def label(self) -> str:
        return self.embedder.label

    def identity(self) -> Any:
        return self.embedder.identity()

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        return self.batch


class OpenAIBatches(ProviderBatches):
    name = "openai"
    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024  # the API takes files up to 200 MB
    sdk, client_class, base_error = "openai", "OpenAI", "OpenAIError"
    batch_noun = "batch"
    base_url_env = "OPENAI_BASE_URL"

    def target(self, judge: Judge) -> BatchTarget | None:
        if isinstance(judge, OpenAIChatJudge) and judge.spec.provider == "openai":
            return self._target(CHAT, judge, judge.spec.model, judge.spec.label)
        if isinstance(judge, EmbeddingJudge) and isinstance(judge.embedder, OpenAIEmbedder):
            embedder = judge.embedder
            return self._target(EMBEDDINGS, embedder, embedder.model, embedder.label)
        return None

    def body(self, judge: Judge, request: JudgeRequest) -> dict[str, Any]:
        if isinstance(judge, OpenAIChatJudge):
            return judge.request_body(request)
        assert isinstance(judge, EmbeddingJudge) and isinstance(judge.embedder, OpenAIEmbedder)
        return {"model": judge.embedder.model, "input": [str(t) for t in request.task.inputs["texts"]]}

    def api_key(self, target: BatchTarget) -> str | None:
        return api_key_for(target.key_env, target.base_url)

    def submit(self, target: BatchTarget, requests: Sequence[QueuedRequest]) -> tuple[str, str | None]:
        lines = [
            json.dumps({"custom_id": r.key, "method": "POST", "url": target.endpoint, "body": r.body})
            for r in requests
        ]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        with self.client(target, "submit a batch") as client:
            uploaded = client.files.create(
                file=("pytest-rag-batch.jsonl", data, "application/jsonl"), purpose="batch"
            )
            batch = client.batches.create(
                input_file_id=uploaded.id,
                endpoint=target.endpoint,
                completion_window="24h",
                metadata={"created_by": "pytest-rag", "judge": target.judge[:500]},
            )
        return str(batch.id), str(uploaded.id)

    def _state(self, batch: Any, manifest: Manifest) -> BatchState:
        counts = batch.request_counts
        done = (counts.completed + counts.failed) if counts is not None else 0
        total = counts.total if counts is not None and counts.total else len(manifest.requests)
        return BatchState(str(batch.status), batch.status in ENDED, done, total)

    def _retrieve(self, client: Any, batch_id: str) -> Any:
        return client.batches.retrieve(batch_id)

    def _cancel(self, client: Any, batch_id: str) -> Any:
        return client.batches.cancel(batch_id)

    def _collect(self, client: Any, manifest: Manifest) -> Iterator[Outcome]:
        batch = self._retrieve(client, manifest.id)
        if batch.status == "failed":  # the whole input was refused: every request failed with it
            errors = [
                f"{e.message} (line {e.line})" if e.line else str(e.message)
                for e in ((batch.errors.data if batch.errors else None) or [])
            ]
            reason = "the batch was refused: " + ("; ".join(errors) or "no reason given")
            yield from (Outcome(key, error=reason, sent=False) for key in manifest.request_keys())
            return
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                yield from self._outcomes(client.files.content(file_id).text.splitlines())

    @staticmethod
    def _outcome(item: Any) -> Outcome:
        """One line of an output or error file: ``{"custom_id", "response": {"status_code", "body"}, "error"}``."""
        key = str(item["custom_id"])
        response = item.get("response") or {}
        status = response.get("status_code")
        body = response.get("body")
        if status == 200 and isinstance(body, dict):
            return Outcome(key, body=body)
        error = item.get("error") or (body.get("error") if isinstance(body, dict) else None) or {}
        code = error.get("code") if isinstance(error, dict) else None
        if code in NOT_ANSWERED:
            return Outcome(key, unanswered=NOT_ANSWERED[code])
        if status in RETRYABLE_STATUS:  # rate-limited or a server fault: asked again later
            return Outcome(key, unanswered=f"met HTTP {status}")
        message = error.get("message") if isinstance(error, dict) else None
        detail = f"HTTP {status}: {message}" if status else str(message or code or "failed")
        invalid = isinstance(error, dict) and status == 400
        return Outcome.failed(key, detail, body if body is not None else error, error if invalid else None)

    async def reply(self, judge: Judge, request: JudgeRequest, body: dict[str, Any]) -> JudgeReply:
        if isinstance(judge, OpenAIChatJudge):
            from openai.types.chat import ChatCompletion

            return judge.reply_of(ChatCompletion.model_validate(body))
        assert isinstance(judge, EmbeddingJudge) and isinstance(judge.embedder, OpenAIEmbedder)
        from openai.types import CreateEmbeddingResponse

        response = CreateEmbeddingResponse.model_validate(body)
        rows = sorted(response.data, key=lambda item: item.index)
        vectors = [[float(x) for x in row.embedding] for row in rows]
        texts = request.task.inputs["texts"]
        if len(vectors) != len(texts):
            raise JudgeError(
                f"the batch returned {len(vectors)} vectors for {len(texts)} texts", judge=judge.spec.label
            )
        collected = _CollectedVectors(
            judge.embedder, EmbeddingBatch(vectors, int(response.usage.prompt_tokens or 0))
        )
        return await EmbeddingJudge(collected).complete(request)


OPENAI_BATCHES = OpenAIBatches()
