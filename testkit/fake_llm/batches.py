"""Fake batch endpoints of both providers, answered by the same responder as live requests.

OpenAI: ``POST /v1/files`` (multipart upload, ``purpose=batch``), ``GET /v1/files/{id}/content``,
``POST /v1/batches``, ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``.
Anthropic: ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``,
``GET /v1/messages/batches/{id}/results``, ``POST /v1/messages/batches/{id}/cancel``.

Every request of a batch is answered when the batch is created, in order, exactly as the same request
sent live would be (scripted replies first, then the responder), without latency; the answers are
recorded in :attr:`FakeBatches.requests`, not in the server's live ``requests``. A
:class:`BatchScript` (queued with :meth:`FakeBatches.script`) decides how the next batch ends: after
how many status checks, whether it completes, expires part-way or is refused as a whole, and how many
lines of its results come out cut short (not JSON). :meth:`FakeBatches.refuse` answers the next
uploads or creations with HTTP errors. Cancelling a batch that has ended is refused with a 409, as
both APIs do.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Literal

from .recorded import RecordedRequest
from .wire import Answer, json_answer, new_id

if TYPE_CHECKING:
    from .server import FakeLLMServer

OPENAI_ENDPOINTS = ("/v1/chat/completions", "/v1/embeddings")
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ROUTE = re.compile(r"^/v1/(files|batches|messages/batches)(?:/([^/]+))?(?:/(content|cancel|results))?$")


@dataclass(frozen=True)
class BatchScript:
    """How one batch behaves: it reports ``polls`` status checks in progress, then ends as ``end``.

    ``end="expired"`` answers the first ``answered`` requests and lets the rest expire;
    ``end="failed"`` refuses the whole input with ``failure`` (OpenAI's validation failure; an empty
    ``failure`` gives ``errors: null``, as a failed batch may). The first ``malformed`` lines of the
    results (OpenAI: of the output file, then of the error file) are cut in half: not JSON.
    """

    polls: int = 1
    end: Literal["completed", "expired", "failed"] = "completed"
    answered: int = 0
    failure: str = "The batch input file is invalid."
    malformed: int = 0


@dataclass
class _Result:
    custom_id: str
    status: int
    body: Any


@dataclass
class _Batch:
    id: str
    api: Literal["openai", "anthropic"]
    endpoint: str
    script: BatchScript
    results: list[_Result]
    created_at: float
    input_file_id: str = ""
    metadata: dict[str, Any] | None = None
    polls_left: int = 0
    state: Literal["in_progress", "cancelling", "ended"] = "in_progress"
    cancelled: bool = False
    errors: list[dict[str, Any]] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None


class FakeBatches:
    """The batch state of one :class:`~fake_llm.server.FakeLLMServer`."""

    def __init__(self, server: FakeLLMServer) -> None:
        self.server = server
        self._lock = threading.Lock()
        self._files: dict[str, tuple[str, bytes]] = {}
        self._batches: dict[str, _Batch] = {}
        self._scripts: deque[BatchScript] = deque()
        self._refusals: deque[tuple[int, str]] = deque()
        self.requests: list[RecordedRequest] = []
        """Every request that arrived inside a batch, in order."""

    def script(self, *scripts: BatchScript) -> None:
        """How the next batches behave, one script per created batch (default: complete at once)."""
        with self._lock:
            self._scripts.extend(scripts)

    def refuse(self, *statuses: int, at: Literal["any", "upload", "create"] = "any") -> None:
        """Answer the next batch-creating requests with these HTTP error statuses: uploads and creations
        alike (``at="any"``), or only uploads of an input file, or only the creation of a batch."""
        with self._lock:
            self._refusals.extend((status, at) for status in statuses)

    @property
    def created(self) -> list[str]:
        """Ids of every batch created, in order."""
        with self._lock:
            return list(self._batches)

    def batch_status(self, batch_id: str) -> str:
        with self._lock:
            return self._status(self._batches[batch_id])

    @staticmethod
    def handles(request: RecordedRequest) -> bool:
        return _ROUTE.match(request.path) is not None

    # -- routing ----------------------------------------------------------------------------

    def answer(self, request: RecordedRequest) -> Answer:
        match = _ROUTE.match(request.path)
        assert match is not None
        kind, ident, action = match.groups()
        route = (request.method, kind, ident is not None, action)
        with self._lock:
            step = "upload" if kind == "files" else "create"
            if (
                request.method == "POST"
                and ident is None
                and self._refusals
                and self._refusals[0][1] in (step, "any")
            ):
                status = self._refusals.popleft()[0]
                refusal = f"Refused by the test script (HTTP {status})."
                if kind == "messages/batches":
                    return _anthropic_error(status, refusal, "api_error")
                return _openai_error(status, refusal, None)
            if route == ("POST", "files", False, None):
                return self._upload(request)
            if route == ("GET", "files", True, "content"):
                return self._content(ident)
            if route == ("POST", "batches", False, None):
                return self._create_openai(request.json_body)
            if route == ("POST", "messages/batches", False, None):
                return self._create_anthropic(request.json_body)
            batch = self._batches.get(ident or "")
            if batch is None or batch.api != ("openai" if kind == "batches" else "anthropic"):
                return _not_found(request, f"No batch found with id '{ident}'.")
            if request.method == "GET" and action is None:
                self._poll(batch)
                return self._view(batch)
            if request.method == "POST" and action == "cancel":
                if batch.state == "ended":  # both APIs refuse to cancel a batch that is over
                    refusal = f"Cannot cancel a batch with status '{self._status(batch)}'."
                    if batch.api == "anthropic":
                        return _anthropic_error(409, refusal)
                    return _openai_error(409, refusal, None)
                if batch.state == "in_progress":
                    batch.state, batch.cancelled = "cancelling", True
                return self._view(batch)
            if route == ("GET", "messages/batches", True, "results") and batch.state == "ended":
                lines = [
                    json.dumps(_anthropic_line(result, self._answered(batch, i), batch))
                    for i, result in enumerate(batch.results)
                ]
                return Answer(200, _jsonl(lines, batch.script.malformed), {}, "application/binary")
        return _not_found(request, f"Invalid URL ({request.method} {request.path})")

    # -- OpenAI -----------------------------------------------------------------------------

    def _upload(self, request: RecordedRequest) -> Answer:
        fields = _multipart(request)
        if fields.get("purpose", (None, b""))[1] != b"batch" or "file" not in fields:
            return _openai_error(400, "Uploads here need purpose=batch and a file.", "purpose")
        name, data = fields["file"]
        file_id = new_id("file-")
        self._files[file_id] = (name or "upload.jsonl", data)
        payload = {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": name or "upload.jsonl",
            "purpose": "batch",
            "status": "processed",
        }
        return json_answer(200, payload)

    def _content(self, file_id: str | None) -> Answer:
        found = self._files.get(file_id or "")
        if found is None:
            return _openai_error(404, f"No such File object: {file_id}", "id")
        return Answer(200, found[1], {}, "application/octet-stream")

    def _create_openai(self, body: dict[str, Any]) -> Answer:
        found = self._files.get(str(body.get("input_file_id")))
        if found is None:
            return _openai_error(
                400, f"Invalid 'input_file_id': {body.get('input_file_id')!r}.", "input_file_id"
            )
        endpoint = body.get("endpoint")
        if endpoint not in OPENAI_ENDPOINTS or body.get("completion_window") != "24h":
            return _openai_error(400, "Unsupported endpoint or completion_window.", "endpoint")
        batch = self._new("openai", str(endpoint), new_id("batch_"))
        batch.input_file_id, batch.metadata = str(body["input_file_id"]), body.get("metadata")
        lines = [line for line in found[1].decode("utf-8").splitlines() if line.strip()]
        items: list[dict[str, Any]] = []
        models: set[Any] = set()
        for number, line in enumerate(lines, start=1):
            item = json.loads(line)
            problem = _line_problem(item, endpoint, {i["custom_id"] for i in items})
            if problem:
                batch.errors.append(
                    {"code": "invalid_request", "message": problem, "param": None, "line": number}
                )
            items.append(item)
            models.add(item.get("body", {}).get("model"))
        if len(models) > 1:
            batch.errors.append({"code": "mixed_models", "message": "A batch takes one model.", "line": None})
        if batch.script.end == "failed" or batch.errors or not items:
            # an empty ``failure`` refuses the batch without listing errors (the API's errors: null)
            batch.errors = batch.errors or (
                [{"code": "invalid", "message": batch.script.failure, "line": None}]
                if batch.script.failure
                else []
            )
            batch.state = "ended"
        else:
            batch.results = [self._run(str(i["custom_id"]), str(endpoint), i["body"]) for i in items]
        return self._view(batch)

    # -- Anthropic --------------------------------------------------------------------------

    def _create_anthropic(self, body: dict[str, Any]) -> Answer:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            return _anthropic_error(400, "requests: Field required")
        seen: set[str] = set()
        for request in requests:
            custom_id = str(request.get("custom_id", ""))
            if not _CUSTOM_ID.match(custom_id) or custom_id in seen:
                return _anthropic_error(400, f"requests: invalid or repeated custom_id {custom_id!r}")
            seen.add(custom_id)
            params = request.get("params")
            if not isinstance(params, dict) or not {"model", "messages", "max_tokens"} <= set(params):
                return _anthropic_error(
                    400, f"requests.{custom_id}.params: model, messages and max_tokens required"
                )
        batch = self._new("anthropic", "/v1/messages", new_id("msgbatch_"))
        batch.results = [self._run(r["custom_id"], "/v1/messages", r["params"]) for r in requests]
        return self._view(batch)

    # -- shared -----------------------------------------------------------------------------

    def _new(self, api: Literal["openai", "anthropic"], endpoint: str, batch_id: str) -> _Batch:
        script = self._scripts.popleft() if self._scripts else BatchScript()
        batch = _Batch(batch_id, api, endpoint, script, [], time.time(), polls_left=script.polls)
        self._batches[batch_id] = batch
        return batch

    def _run(self, custom_id: str, path: str, body: dict[str, Any]) -> _Result:
        headers = {"anthropic-version": "2023-06-01"} if path == "/v1/messages" else {}
        request = RecordedRequest("POST", path, headers, body, time.monotonic())
        self.requests.append(request)
        answer = self.server.answer_now(request)
        return _Result(custom_id, answer.status, json.loads(answer.body) if answer.body else None)

    def _poll(self, batch: _Batch) -> None:
        """A status check: the batch moves one step towards its end."""
        if batch.state == "cancelling":
            batch.state = "ended"
        elif batch.state == "in_progress":
            batch.polls_left -= 1
            if batch.polls_left <= 0:
                batch.state = "ended"
        if (
            batch.state == "ended"
            and batch.api == "openai"
            and not batch.errors
            and batch.output_file_id is None
        ):
            self._write_files(batch)

    def _answered(self, batch: _Batch, index: int) -> bool:
        if batch.cancelled or batch.script.end == "expired":
            return index < batch.script.answered
        return True

    def _write_files(self, batch: _Batch) -> None:
        done: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        for index, result in enumerate(batch.results):
            line: dict[str, Any] = {"id": new_id("batch_req_"), "custom_id": result.custom_id}
            if not self._answered(batch, index):
                code = "batch_cancelled" if batch.cancelled else "batch_expired"
                line.update(response=None, error={"code": code, "message": "The request was not executed."})
                failed.append(line)
                continue
            line.update(
                response={"status_code": result.status, "request_id": new_id("req_"), "body": result.body}
            )
            line["error"] = None
            (done if result.status == 200 else failed).append(line)
        cut = batch.script.malformed
        for lines, attribute in ((done, "output_file_id"), (failed, "error_file_id")):
            if lines:
                file_id = new_id("file-")
                self._files[file_id] = ("results.jsonl", _jsonl([json.dumps(x) for x in lines], cut))
                setattr(batch, attribute, file_id)
                cut = max(0, cut - len(lines))

    def _status(self, batch: _Batch) -> str:
        if batch.api == "anthropic":
            return {"in_progress": "in_progress", "cancelling": "canceling", "ended": "ended"}[batch.state]
        if batch.state != "ended":
            return batch.state
        if batch.errors:
            return "failed"
        return "cancelled" if batch.cancelled else batch.script.end

    def _view(self, batch: _Batch) -> Answer:
        status = self._status(batch)
        total = len(batch.results)
        finished = [self._answered(batch, i) for i in range(total)] if batch.state == "ended" else []
        ok = sum(1 for i, r in enumerate(batch.results) if finished and finished[i] and r.status == 200)
        if batch.api == "openai":
            return json_answer(200, _openai_view(batch, status, total, ok, sum(finished) - ok))
        return json_answer(200, self._anthropic_view(batch, status, total, finished))

    def _anthropic_view(self, batch: _Batch, status: str, total: int, finished: list[bool]) -> dict[str, Any]:
        counts = {"processing": total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if finished:
            for result, answered in zip(batch.results, finished, strict=True):
                kind = _anthropic_kind(result, answered, batch)
                counts[kind] += 1
            counts["processing"] = 0
        created = datetime.fromtimestamp(batch.created_at, timezone.utc)
        base = self.server.anthropic_base_url
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "created_at": created.isoformat().replace("+00:00", "Z"),
            "expires_at": (created + timedelta(hours=24)).isoformat().replace("+00:00", "Z"),
            "ended_at": created.isoformat().replace("+00:00", "Z") if batch.state == "ended" else None,
            "cancel_initiated_at": created.isoformat().replace("+00:00", "Z") if batch.cancelled else None,
            "archived_at": None,
            "results_url": f"{base}/v1/messages/batches/{batch.id}/results"
            if batch.state == "ended"
            else None,
        }


def _openai_view(batch: _Batch, status: str, total: int, completed: int, failed: int) -> dict[str, Any]:
    now = int(time.time())
    ended = batch.state == "ended"
    return {
        "id": batch.id,
        "object": "batch",
        "endpoint": batch.endpoint,
        "model": None,
        "errors": {"object": "list", "data": batch.errors} if batch.errors else None,
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": status,
        "output_file_id": batch.output_file_id,
        "error_file_id": batch.error_file_id,
        "created_at": int(batch.created_at),
        "in_progress_at": int(batch.created_at),
        "expires_at": int(batch.created_at) + 86400,
        "completed_at": now if ended and status == "completed" else None,
        "failed_at": now if status == "failed" else None,
        "expired_at": now if status == "expired" else None,
        "cancelling_at": now if batch.cancelled else None,
        "cancelled_at": now if status == "cancelled" else None,
        "finalizing_at": None,
        "request_counts": {"total": total, "completed": completed, "failed": failed},
        "metadata": batch.metadata,
    }


def _anthropic_kind(result: _Result, answered: bool, batch: _Batch) -> str:
    if not answered:
        return "canceled" if batch.cancelled else "expired"
    return "succeeded" if result.status == 200 else "errored"


def _anthropic_line(result: _Result, answered: bool, batch: _Batch) -> dict[str, Any]:
    kind = _anthropic_kind(result, answered, batch)
    if kind == "succeeded":
        return {"custom_id": result.custom_id, "result": {"type": "succeeded", "message": result.body}}
    if kind == "errored":
        error = (
            result.body
            if isinstance(result.body, dict)
            else {"type": "error", "error": {"type": "api_error"}}
        )
        return {"custom_id": result.custom_id, "result": {"type": "errored", "error": error}}
    return {"custom_id": result.custom_id, "result": {"type": kind}}


def _jsonl(lines: list[str], malformed: int) -> bytes:
    """JSON lines, the first ``malformed`` of them cut in half (a download or a writer that broke)."""
    kept = [line[: len(line) // 2] if i < malformed else line for i, line in enumerate(lines)]
    return ("\n".join(kept) + "\n").encode()


def _line_problem(item: Any, endpoint: str, seen: set[str]) -> str | None:
    if not isinstance(item, dict) or not isinstance(item.get("body"), dict):
        return "each line needs custom_id, method, url and body"
    if item.get("custom_id") in seen:
        return f"custom_id {item.get('custom_id')!r} is repeated"
    if item.get("method") != "POST" or item.get("url") != endpoint:
        return f"each line must POST to the batch's endpoint {endpoint}"
    return None


def _multipart(request: RecordedRequest) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (file name, bytes)."""
    head = f"Content-Type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.raw)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts() if message.is_multipart() else ():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = (part.get_filename(), payload)
    return fields


def _openai_error(status: int, message: str, param: str | None) -> Answer:
    payload = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}
    return json_answer(status, payload, {"x-request-id": new_id("req_")})


def _anthropic_error(status: int, message: str, kind: str = "invalid_request_error") -> Answer:
    payload = {"type": "error", "error": {"type": kind, "message": message}, "request_id": new_id("req_")}
    return json_answer(status, payload, {"request-id": str(payload["request_id"])})


def _not_found(request: RecordedRequest, message: str) -> Answer:
    if request.api == "anthropic":
        return _anthropic_error(404, message, "not_found_error")
    return _openai_error(404, message, None)
