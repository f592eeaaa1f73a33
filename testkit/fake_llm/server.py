"""A local HTTP server that speaks the OpenAI and Anthropic wire protocols.

Judge providers are tested through the real `openai` / `anthropic` SDKs pointed at this server, so
retries, timeouts, error classes and response parsing are exercised exactly as in production,
without a network or an API key. Tests script what the "model" does next with `Reply` values;
when nothing is scripted a responder (by default `schema_responder`) answers.

The command line front end lives in ``__main__`` (``cd tests && python -m fake_llm``).
"""

from __future__ import annotations

import contextlib
import json
import math
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast

from . import anthropic_wire, openai_wire
from .batches import FakeBatches
from .recorded import RecordedRequest
from .replies import CutReply, DelayReply, RawReply, RejectParamReply, Reply, ResetReply, StatusReply
from .schema_instance import SchemaInstanceError
from .schema_responder import schema_responder
from .wire import Answer, ScriptMisuseError

Responder = Callable[[RecordedRequest], Reply]
"""Decides the reply to a request when no scripted reply is queued."""

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
MESSAGES_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"

_ROUTES: dict[tuple[str, str], tuple[str, ...]] = {
    ("POST", CHAT_PATH): ("model", "messages"),
    ("POST", EMBEDDINGS_PATH): ("model", "input"),
    ("POST", MESSAGES_PATH): ("model", "messages", "max_tokens"),
    ("GET", MODELS_PATH): (),
}
"""Known routes and the top-level fields each requires (missing ones get the API's 400)."""


class FakeLLMServer:
    """OpenAI + Anthropic compatible server on 127.0.0.1, one thread per connection.

    Use as ``with FakeLLMServer() as srv:`` or via `start()` / `stop()`. Point SDK clients at
    `openai_base_url` / `anthropic_base_url`. `script()` queues replies that the next POST requests
    consume in arrival order; otherwise `responder` decides. Every request waits `latency` seconds
    (concurrently) before its answer. All requests are recorded in `requests`. With `context_window`
    the chat endpoint behaves like Ollama's OpenAI endpoint with that ``num_ctx``: a longer prompt is
    silently cut, and its usage reports the tokens it kept.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        port: int = 0,
        models: Sequence[str] = ("fake-gpt", "fake-claude"),
        context_window: int | None = None,
    ) -> None:
        if isinstance(latency, bool) or not math.isfinite(latency) or latency < 0:
            raise ValueError(f"latency must be a finite number of seconds >= 0, got {latency!r}")
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be 0 (pick a free one) or 1-65535, got {port}")
        self.responder: Responder = responder if responder is not None else schema_responder
        self.latency = float(latency)
        if context_window is not None and context_window < 1:
            raise ValueError(f"context_window must be a number of tokens >= 1, got {context_window}")
        self.context_window = context_window
        """Tokens of prompt a chat completion reads, like an Ollama model's ``num_ctx``: a longer prompt
        is cut from the front without a word, and ``usage.prompt_tokens`` counts what was read."""
        self.models = tuple(models)
        self._wanted_port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._path_queues: dict[str, deque[Reply]] = {}
        self._requests: list[RecordedRequest] = []
        self._errors: list[str] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self.batches = FakeBatches(self)
        """The batch endpoints' state: script how batches end, inspect what they were asked."""

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        """Bind and serve in a daemon thread; returns self."""
        if self._httpd is not None:
            raise RuntimeError("FakeLLMServer is already running; call stop() first")
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", self._wanted_port), self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-llm-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake delayed handlers and drop open keep-alive connections."""
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port (only while running)."""
        if self._httpd is None:
            raise RuntimeError("FakeLLMServer is not running; use start() or a with-block")
        return int(self._httpd.server_address[1])

    @property
    def openai_base_url(self) -> str:
        """`base_url` for `openai.OpenAI` (includes the /v1 prefix)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """`base_url` for `anthropic.Anthropic` (the SDK adds /v1 itself)."""
        return f"http://127.0.0.1:{self.port}"

    # -- scripting ---------------------------------------------------------------------------

    def script(self, *replies: Reply, path: str | None = None) -> None:
        """Queue replies for the next requests, in order.

        Without `path` they are consumed by the next POST requests on any endpoint; with `path`
        (e.g. "/v1/embeddings" or "/v1/models") only by requests to that path, which take them
        before the shared queue.
        """
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(
                    f"script() takes Reply values, got {type(reply).__name__}; "
                    "build them with Reply.json(...), Reply.status(429) ..."
                )
        if path is not None and ("GET", path) not in _ROUTES and ("POST", path) not in _ROUTES:
            known = ", ".join(sorted({p for _, p in _ROUTES}))
            raise ValueError(f"script(path={path!r}) is not a served path; use one of {known}")
        with self._lock:
            queue = self._queue if path is None else self._path_queues.setdefault(path, deque())
            queue.extend(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been consumed yet."""
        with self._lock:
            return len(self._queue) + sum(len(q) for q in self._path_queues.values())

    # -- recording ---------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def request_count(self) -> int:
        """How many requests were received."""
        with self._lock:
            return len(self._requests)

    @property
    def errors(self) -> list[str]:
        """Problems inside the server (script misuse, responder exceptions), newest last."""
        with self._lock:
            return list(self._errors)

    @property
    def max_in_flight(self) -> int:
        """The most requests that were being handled at the same moment."""
        with self._lock:
            return self._max_in_flight

    def clear(self) -> None:
        """Forget recorded requests, errors and the in-flight high-water mark (not the script)."""
        with self._lock:
            self._requests.clear()
            self._errors.clear()
            self._max_in_flight = self._in_flight

    # -- request handling (called from handler threads) ----------------------------------

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _track(self, connection: socket.socket, alive: bool) -> None:
        with self._lock:
            if alive:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _note_error(self, message: str) -> None:
        with self._lock:
            self._errors.append(message)

    def _next_scripted(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            own = self._path_queues.get(request.path)
            if own:
                return own.popleft()
            if request.method == "POST" and self._queue:
                return self._queue.popleft()
        return None

    def answer_now(self, request: RecordedRequest) -> Answer:
        """What a request inside a batch gets: the live answer, without latency or delays (a dropped
        connection becomes the 500 a batch reports for it)."""
        answer = self._respond(request, None, wait=False)
        if answer is None:
            wire: Any = anthropic_wire if request.api == "anthropic" else openai_wire
            return cast(
                Answer, wire.error_answer(500, "The server dropped the request.", error_type="api_error")
            )
        return answer

    def _respond(
        self, request: RecordedRequest, parse_error: str | None, *, wait: bool = True
    ) -> Answer | None:
        """The answer to send, or None to drop the connection."""
        wire: Any = anthropic_wire if request.api == "anthropic" else openai_wire
        if self.batches.handles(request):
            return self.batches.answer(request)
        required = _ROUTES.get((request.method, request.path))
        if required is None:
            return cast(Answer, wire.not_found_answer(request.method, request.path))
        if parse_error is not None:
            return cast(Answer, wire.error_answer(400, parse_error))
        body = request.json_body
        invalid = wire.missing_field_answer(body, required) if request.method == "POST" else None
        if invalid is None and request.path == MESSAGES_PATH:
            invalid = anthropic_wire.unknown_tool_answer(body) or anthropic_wire.schema_refusal_answer(body)
        if invalid is None and request.path == CHAT_PATH:
            invalid = openai_wire.schema_refusal_answer(body)
        if invalid is not None:
            return cast(Answer, invalid)

        reply = self._next_scripted(request)
        if reply is None and request.path != MODELS_PATH:
            try:
                reply = self.responder(request)
            except Exception as exc:
                return self._misuse(wire, f"responder raised {type(exc).__name__}: {exc}")
            if not isinstance(reply, Reply):
                return self._misuse(wire, f"responder returned {type(reply).__name__}, not a Reply")

        if wait and self.latency and self._stopping.wait(self.latency):
            return None
        while isinstance(reply, DelayReply):
            if wait and self._stopping.wait(reply.seconds):
                return None
            reply = reply.then
        if isinstance(reply, ResetReply):
            return None
        try:
            return self._render(wire, request, reply)
        except (ScriptMisuseError, SchemaInstanceError) as exc:
            return self._misuse(wire, str(exc))

    def _render(self, wire: Any, request: RecordedRequest, reply: Reply | None) -> Answer:
        if isinstance(reply, RawReply):
            return Answer(reply.code, reply.body.encode("utf-8"), {}, reply.content_type)
        if isinstance(reply, CutReply):
            body = reply.body.encode("utf-8")
            return Answer(200, body, {}, reply.content_type, declared_length=2 * len(body) + 64)
        if isinstance(reply, StatusReply):
            return cast(Answer, wire.status_answer(reply))
        if isinstance(reply, RejectParamReply):
            return cast(Answer, wire.reject_param_answer(request.json_body, reply))
        if request.path == MODELS_PATH:
            if reply is not None:
                raise ScriptMisuseError(
                    f"{type(reply).__name__} cannot answer GET /v1/models; script "
                    "Reply.status/delay/reset there"
                )
            return cast(Answer, wire.models_answer(self.models))
        assert reply is not None
        if request.path == CHAT_PATH:
            return openai_wire.chat_completion_answer(request.json_body, reply, self.context_window)
        if request.path == EMBEDDINGS_PATH:
            return openai_wire.embeddings_answer(request.json_body, reply)
        return anthropic_wire.message_answer(request.json_body, reply)

    def _misuse(self, wire: Any, problem: str) -> Answer:
        """A 500 the SDKs will not retry, carrying the server-side problem for the test to see."""
        message = f"FakeLLMServer: {problem}"
        self._note_error(message)
        return cast(
            Answer,
            wire.error_answer(500, message, error_type="api_error", headers={"x-should-retry": "false"}),
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 256  # benchmarks open dozens of connections at once

    def __init__(self, address: tuple[str, int], fake: FakeLLMServer) -> None:
        self.fake = fake
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host's FQDN, which can stall on a sandbox's DNS.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            return  # the client went away; that is its business
        self.fake._note_error("handler crashed:\n" + traceback.format_exc())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as separate writes; without this, Nagle plus the client's
        # delayed ACK stalls every keep-alive response by ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.fake._track(self.connection, alive=True)

    def finish(self) -> None:
        self.server.fake._track(self.connection, alive=False)
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet; tests inspect `FakeLLMServer.requests` instead."""

    def _serve(self) -> None:
        fake = self.server.fake
        received_at = time.monotonic()
        fake._enter()
        try:
            raw = self._read_body()
            path, _, query = self.path.partition("?")
            headers: dict[str, str] = {}
            for name, value in self.headers.items():
                key = name.lower()
                headers[key] = f"{headers[key]}, {value}" if key in headers else value
            body, parse_error = _parse_json(raw)
            raw_kept = raw if parse_error is not None else b""  # e.g. a multipart file upload
            request = RecordedRequest(self.command, path, headers, body, received_at, query, raw_kept)
            fake._record(request)
            answer = fake._respond(request, parse_error)
            if answer is None:
                self._drop_connection()
            else:
                self._write(answer)
        finally:
            fake._leave()

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _write(self, answer: Answer) -> None:
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(answer.declared_length or len(answer.body)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(answer.body)
            if answer.declared_length is not None:
                self.wfile.flush()
                self._drop_connection()
        except OSError:
            self.close_connection = True

    def _drop_connection(self) -> None:
        """Close with RST (linger 0) so the client sees a reset, not a clean end of stream."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass


def _parse_json(raw: bytes) -> tuple[Any, str | None]:
    """The decoded body, and the API-style complaint if it is not valid JSON."""
    if not raw.strip():
        return None, None
    try:
        return json.loads(raw), None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"We could not parse the JSON body of your request. ({exc})"
