"""Where batches live between runs: ``<cache dir>/batches/``.

``manifests/``  one JSON file per submitted batch (:class:`~pytest_rag.judges.batch_api.Manifest`)
``queue/``      requests waiting for the end of the run, keyed by cache key (diskcache)
``replies/``    outcomes of finished batches not yet used by a run, keyed by cache key (diskcache)
``adaptations.json``  request parameters a model refused in a batch, per judge, so later bodies omit them

diskcache (SQLite underneath) makes the queue and the replies safe for several pytest-xdist workers at
once, and its ``add`` makes queueing a key twice a no-op. Submitting and collecting take one lock
(:meth:`BatchStore.lock`) so that two processes never submit or collect the same requests.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...judges.batch_api import CollectedReply, Manifest, QueuedRequest
from . import BATCHES_DIR, has_batches

#: Longest a process may hold the lock before another takes it over (a crashed holder).
LOCK_EXPIRE_S = 900.0


class BatchStore:
    """The batches of one cache directory; opened lazily, cheap to create."""

    def __init__(self, cache_dir: Path) -> None:
        self.root = Path(cache_dir) / BATCHES_DIR
        self._queue: Any = None
        self._replies: Any = None
        self._opening = threading.Lock()

    @staticmethod
    def exists(cache_dir: Path) -> bool:
        return has_batches(cache_dir)

    # -- diskcache handles ----------------------------------------------------------------------

    def _cache(self, name: str) -> Any:
        with self._opening:
            handle = getattr(self, f"_{name}")
            if handle is None:
                import diskcache

                os.makedirs(self.root / name, exist_ok=True)
                handle = diskcache.Cache(str(self.root / name), size_limit=2**34, eviction_policy="none")
                setattr(self, f"_{name}", handle)
            return handle

    def close(self) -> None:
        with self._opening:
            for name in ("_queue", "_replies"):
                handle = getattr(self, name)
                if handle is not None:
                    handle.close()
                    setattr(self, name, None)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """One process at a time submits or collects (a lock that expires if its holder died)."""
        import diskcache

        lock = diskcache.Lock(self._cache("queue"), "pytest-rag:batch-lock", expire=LOCK_EXPIRE_S)
        with lock:
            yield

    # -- manifests ------------------------------------------------------------------------------

    @property
    def _manifest_dir(self) -> Path:
        return self.root / "manifests"

    def manifests(self) -> list[Manifest]:
        """Every manifest, oldest first; an unreadable file is skipped (and left for a person to see)."""
        found: list[Manifest] = []
        if not self._manifest_dir.is_dir():
            return found
        for path in sorted(self._manifest_dir.glob("*.json")):
            try:
                found.append(Manifest.model_validate_json(path.read_text(encoding="utf-8")))
            except (OSError, ValidationError, ValueError):
                continue
        return sorted(found, key=lambda m: (m.submitted_at, m.local_id))

    def pending(self) -> list[Manifest]:
        return [m for m in self.manifests() if m.state != "collected"]

    def pending_keys(self) -> set[str]:
        """Keys of requests in batches not collected yet: never submitted again meanwhile."""
        return {key for manifest in self.pending() for key in manifest.request_keys()}

    def save(self, manifest: Manifest) -> None:
        """Write a manifest atomically (a reader never sees half a file)."""
        os.makedirs(self._manifest_dir, exist_ok=True)
        text = manifest.model_dump_json(indent=1)
        fd, tmp = tempfile.mkstemp(dir=self._manifest_dir, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, self._manifest_dir / f"{manifest.local_id}.json")

    def forget(self, manifest: Manifest) -> None:
        (self._manifest_dir / f"{manifest.local_id}.json").unlink(missing_ok=True)

    def find(self, batch_id: str) -> Manifest | None:
        return next((m for m in self.manifests() if batch_id in (m.id, m.local_id)), None)

    # -- the queue ------------------------------------------------------------------------------

    def enqueue(self, request: QueuedRequest) -> bool:
        """Queue a request; False when its key is already queued (by this or another process)."""
        added: bool = self._cache("queue").add(request.key, request.model_dump(mode="json"))
        return added

    def queued(self) -> list[QueuedRequest]:
        if not (self.root / "queue").is_dir():
            return []
        queue = self._cache("queue")
        found: list[QueuedRequest] = []
        for key in list(queue.iterkeys()):
            value = queue.get(key)
            if isinstance(value, dict):
                try:
                    found.append(QueuedRequest.model_validate(value))
                except ValidationError:
                    queue.delete(key)  # written by an older, incompatible version: ask again
        return sorted(found, key=lambda r: (r.queued_at, r.key))

    def unqueue(self, keys: Iterable[str]) -> None:
        queue = self._cache("queue")
        for key in keys:
            queue.delete(key)

    # -- collected replies ----------------------------------------------------------------------

    def deliver(self, key: str, reply: CollectedReply) -> None:
        """Keep a request's outcome; one kept already stays (collecting a batch a second time, after an
        interrupted collection, must not reset what a run counted)."""
        self._cache("replies").add(key, reply.model_dump(mode="json"))

    def reply(self, key: str) -> CollectedReply | None:
        if self._replies is None and not (self.root / "replies").is_dir():
            return None
        value = self._cache("replies").get(key)
        if not isinstance(value, dict):
            return None
        try:
            return CollectedReply.model_validate(value)
        except ValidationError:
            return None

    def claim(self, key: str) -> bool:
        """Mark a collected reply as counted; True for the one caller (of all processes) that did."""
        replies = self._cache("replies")
        with replies.transact():
            value = replies.get(key)
            if not isinstance(value, dict) or value.get("counted"):
                return False
            replies.set(key, {**value, "counted": True})
        return True

    def discard(self, key: str) -> None:
        if self._replies is not None or (self.root / "replies").is_dir():
            self._cache("replies").delete(key)

    def reply_keys(self) -> list[str]:
        if not (self.root / "replies").is_dir():
            return []
        return [str(key) for key in self._cache("replies").iterkeys()]

    def reply_count(self) -> int:
        if not (self.root / "replies").is_dir():
            return 0
        return len(self._cache("replies"))

    # -- parameters a model refused -------------------------------------------------------------

    def adaptations(self) -> dict[str, list[str]]:
        path = self.root / "adaptations.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): [str(p) for p in v] for k, v in data.items() if isinstance(v, list)}

    def remember_adaptation(self, judge: str, param: str) -> None:
        known = self.adaptations()
        params = known.setdefault(judge, [])
        if param not in params:
            params.append(param)
            os.makedirs(self.root, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(known, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.root / "adaptations.json")
