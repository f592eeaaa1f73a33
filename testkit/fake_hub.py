"""A local stand-in for the Hugging Face hub, enough for ``huggingface_hub`` to download a model.

The ``nli:ORG/NAME`` judge is tested through the real ``huggingface_hub`` library pointed at this
server with ``HF_ENDPOINT=http://127.0.0.1:PORT``, so the cache layout, the revision refs, the
offline mode and the token handling are the library's own, not a mock of them. The server speaks
the routes the library uses to resolve a revision and download files:

* ``GET /api/models/ORG/NAME[/revision/REV]``: the model's info (commit ``sha``, ``siblings``);
* ``GET /api/models/ORG/NAME/tree/REV[/PATH]``: the file listing, ``?recursive=true`` for all of it;
* ``HEAD``/``GET /ORG/NAME/resolve/REV/PATH``: a file, with ``X-Repo-Commit`` and ``ETag`` (a git
  blob id). Weights (``.onnx``, ``.safetensors``, ``.bin``) are served as the hub serves large files:
  a redirect whose ``Location`` is a content-addressed URL, with ``X-Linked-Etag`` (their sha256) and
  ``X-Linked-Size``;
* ``GET /blobs/SHA256`` on a second port (another origin, as the hub's CDN is): such a large file.
  The library sends no token there.

Errors carry the hub's ``X-Error-Code`` (``RepoNotFound``, ``RevisionNotFound``, ``EntryNotFound``,
``GatedRepo``) so the library raises its own error classes. A private or gated repository answers
only requests whose ``Authorization`` header carries its token. Every request is recorded (method,
path, whether it was authorised), never the token itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import socketserver
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, unquote

__all__ = ["FakeHub", "HubRequest"]

#: Files the hub keeps in large-file storage (served through a redirect), by suffix.
LARGE_FILE_SUFFIXES = (".onnx", ".safetensors", ".bin", ".onnx_data")


@dataclass(frozen=True)
class HubRequest:
    """One request as the fake hub saw it: ``authorised`` says a token came with it (not which)."""

    method: str
    path: str
    query: str
    authorised: bool


@dataclass
class _Repo:
    token: str | None
    gated: bool
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Answer:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


def git_blob_id(content: bytes) -> str:
    """The id git gives a file's content, which the hub sends as a small file's ETag."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def _is_large(path: str) -> bool:
    return path.endswith(LARGE_FILE_SUFFIXES)


def _error(status: int, code: str, message: str, **headers: str) -> _Answer:
    body = json.dumps({"error": message}).encode()
    return _Answer(status, body, {"X-Error-Code": code, "X-Error-Message": message, **headers})


def _json(data: Any) -> _Answer:
    return _Answer(200, json.dumps(data).encode())


class FakeHub:
    """The hub on 127.0.0.1: ``with FakeHub() as hub:``, then point ``HF_ENDPOINT`` at ``hub.url``.

    ``add_commit`` publishes files as a new commit of a repository and moves refs (branches or
    tags) to it; the commit id it returns is what ``X-Repo-Commit`` and the cache's snapshot folder
    name. ``requests`` lists what the library asked, in order.
    """

    def __init__(self) -> None:
        self._repos: dict[str, _Repo] = {}
        self._blobs: dict[str, bytes] = {}
        self._requests: list[HubRequest] = []
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._servers: list[tuple[_Server, threading.Thread]] = []

    # -- content -----------------------------------------------------------------------------

    def add_commit(
        self,
        repo_id: str,
        files: Mapping[str, bytes],
        *,
        refs: Sequence[str] = ("main",),
        token: str | None = None,
        gated: bool = False,
    ) -> str:
        """Publish ``files`` (path in the repo -> content) as a new commit; return its id.

        ``token`` makes the repository private (or, with ``gated``, gated): only requests that
        carry ``Authorization: Bearer TOKEN`` see it.
        """
        with self._lock:
            repo = self._repos.setdefault(repo_id, _Repo(token, gated))
            digest = hashlib.sha1(f"{repo_id}:{len(repo.commits)}".encode())
            for path in sorted(files):
                digest.update(f"{path}:{git_blob_id(files[path])};".encode())
            commit = digest.hexdigest()
            repo.commits[commit] = dict(files)
            for ref in refs:
                repo.refs[ref] = commit
            for path, content in files.items():
                if _is_large(path):
                    self._blobs[hashlib.sha256(content).hexdigest()] = content
            return commit

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeHub:
        """Bind free ports (the hub, then its CDN) and serve in daemon threads; returns self."""
        if self._servers:
            raise RuntimeError("FakeHub is already running; call stop() first")
        for _ in ("hub", "cdn"):
            server = _Server(("127.0.0.1", 0), self)
            thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            thread.start()
            self._servers.append((server, thread))
        return self

    def stop(self) -> None:
        """Stop serving and drop open keep-alive connections, so later requests are refused."""
        for server, _ in self._servers:
            server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for server, thread in self._servers:
            server.server_close()
            thread.join(timeout=5)
        self._servers = []

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The value for ``HF_ENDPOINT`` (only while running)."""
        return self._origin(0)

    def _origin(self, index: int) -> str:
        if not self._servers:
            raise RuntimeError("FakeHub is not running; use start() or a with-block")
        return f"http://127.0.0.1:{self._servers[index][0].server_address[1]}"

    @property
    def requests(self) -> list[HubRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    # -- answering (called from handler threads) ---------------------------------------------

    def answer(self, method: str, raw_path: str, authorization: str | None) -> _Answer:
        path, _, query = raw_path.partition("?")
        with self._lock:
            self._requests.append(HubRequest(method, path, query, authorization is not None))
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "models"] and len(parts) >= 4:
            return self._api(parts[2:], parse_qs(query), authorization)
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve(f"{parts[0]}/{parts[1]}", unquote(parts[3]), parts[4:], authorization)
        if len(parts) == 2 and parts[0] == "blobs" and parts[1] in self._blobs:
            return _Answer(200, self._blobs[parts[1]], content_type="application/octet-stream")
        return _error(404, "NotFound", f"no route for {method} {path}")

    def _repo(self, repo_id: str, authorization: str | None) -> _Repo | _Answer:
        repo = self._repos.get(repo_id)
        if repo is None:
            return _error(404, "RepoNotFound", "Repository not found")
        if repo.token is not None and authorization != f"Bearer {repo.token}":
            if repo.gated:
                status = 401 if authorization is None else 403
                return _error(status, "GatedRepo", "Access to this model is restricted")
            return _error(401, "RepoNotFound", "Repository not found")
        return repo

    def _commit(self, repo: _Repo, revision: str) -> str | _Answer:
        commit = repo.refs.get(revision, revision)
        if commit not in repo.commits:
            return _error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        return commit

    def _api(self, parts: list[str], query: dict[str, list[str]], authorization: str | None) -> _Answer:
        repo_id, rest = f"{parts[0]}/{parts[1]}", parts[2:]
        repo = self._repo(repo_id, authorization)
        if isinstance(repo, _Answer):
            return repo
        if rest and rest[0] not in ("revision", "tree"):
            return _error(404, "NotFound", f"no API route {'/'.join(rest)}")
        commit = self._commit(repo, unquote(rest[1]) if len(rest) >= 2 else "main")
        if isinstance(commit, _Answer):
            return commit
        files = repo.commits[commit]
        if not rest or rest[0] == "revision":
            return _json(
                {
                    "id": repo_id,
                    "modelId": repo_id,
                    "sha": commit,
                    "private": repo.token is not None,
                    "gated": "manual" if repo.gated else False,
                    "disabled": False,
                    "downloads": 0,
                    "likes": 0,
                    "tags": [],
                    "siblings": [{"rfilename": path} for path in sorted(files)],
                }
            )
        folder = unquote("/".join(rest[2:])).strip("/")
        recursive = query.get("recursive", ["false"])[0].lower() == "true"
        return _json(_tree(files, folder, recursive))

    def _resolve(
        self, repo_id: str, revision: str, path_parts: list[str], authorization: str | None
    ) -> _Answer:
        repo = self._repo(repo_id, authorization)
        if isinstance(repo, _Answer):
            return repo
        commit = self._commit(repo, revision)
        if isinstance(commit, _Answer):
            return commit
        path = unquote("/".join(path_parts))
        content = repo.commits[commit].get(path)
        if content is None:
            return _error(404, "EntryNotFound", f"{path} does not exist", **{"X-Repo-Commit": commit})
        headers = {"X-Repo-Commit": commit, "ETag": f'"{git_blob_id(content)}"'}
        if not _is_large(path):
            return _Answer(200, content, headers, "application/octet-stream")
        sha256 = hashlib.sha256(content).hexdigest()
        headers |= {
            "Location": f"{self._origin(1)}/blobs/{sha256}",
            "X-Linked-Etag": f'"{sha256}"',
            "X-Linked-Size": str(len(content)),
        }
        return _Answer(302, b"", headers)

    def _track(self, connection: socket.socket, alive: bool) -> None:
        with self._lock:
            (self._connections.add if alive else self._connections.discard)(connection)


def _tree(files: Mapping[str, bytes], folder: str, recursive: bool) -> list[dict[str, Any]]:
    """The hub's tree listing of ``folder``: files (with ``lfs`` for large ones) and folders."""
    prefix = f"{folder}/" if folder else ""
    entries: dict[str, dict[str, Any]] = {}
    for path in sorted(files):
        if not path.startswith(prefix):
            continue
        parts = path[len(prefix) :].split("/")
        for depth in range(1, len(parts)):
            if not recursive and depth > 1:
                break
            directory = prefix + "/".join(parts[:depth])
            entries.setdefault(directory, {"type": "directory", "oid": git_blob_id(b""), "size": 0})
        if not recursive and len(parts) > 1:
            continue
        content = files[path]
        entry: dict[str, Any] = {"type": "file", "oid": git_blob_id(content), "size": len(content)}
        if _is_large(path):
            entry["lfs"] = {
                "oid": hashlib.sha256(content).hexdigest(),
                "size": len(content),
                "pointerSize": 134,
            }
        entries[path] = entry
    return [{**entry, "path": path} for path, entry in entries.items()]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], hub: FakeHub) -> None:
        self.hub = hub
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks up the host's FQDN, which can stall without DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the library's HTTP client expects
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.hub._track(self.connection, alive=True)

    def finish(self) -> None:
        self.server.hub._track(self.connection, alive=False)
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self._serve(with_body=True)

    def do_HEAD(self) -> None:
        self._serve(with_body=False)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet; tests read ``FakeHub.requests`` instead."""

    def _serve(self, *, with_body: bool) -> None:
        answer = self.server.hub.answer(self.command, self.path, self.headers.get("Authorization"))
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if with_body and answer.body:
            self.wfile.write(answer.body)
