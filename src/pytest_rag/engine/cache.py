"""The on-disk judgment cache: one entry per judge call, keyed by the hash of the full request.

Backed by diskcache (SQLite underneath), which is safe with several pytest-xdist workers writing at
once. Entries hold the reply text and its usage, never credentials: the key material is built from
the judge's identity (provider, model, base URL), which excludes API keys by construction, and a
base URL enters it without its user name, password and query (:func:`judgment_key`).

Modes:
``rw``       read, and write what was judged live (default)
``ro``       read, never write
``replay``   read only, and a miss is a failure: no judge is ever called
``refresh``  never read, always judge live and overwrite
``off``      no cache at all

The modes that never write (``ro``, ``replay``, and the export) open the store read-only
(:mod:`.read_only_store`), so they work on a store the process may not write.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..ground.command_options import ValueOption
from ..ground.redaction import without_credentials

if TYPE_CHECKING:
    from ..judges.protocol import Judge
    from ..judges.request import JudgeRequest

CACHE_MODES = ("rw", "ro", "replay", "refresh", "off")
DEFAULT_CACHE_DIR = ".rag_cache"
"""The cache directory's name under the rootdir (the ``pytest-rag`` commands: under the working directory)."""
STORE_FILE = "cache.db"
"""The database diskcache keeps in the cache directory (``diskcache.core.DBNAME``): a directory
without it holds no judgment."""


@dataclass(frozen=True)
class CachedReply:
    """A stored reply. ``score_logprobs`` keeps the alternatives the model weighed at the token of
    its grade (:mod:`.grade_tokens`), so a cached verdict has the same odds as the live one; entries
    stored without them (by a provider that reports none, or before they were kept) have none."""

    text: str
    input_tokens: int
    output_tokens: int
    model: str
    score_logprobs: tuple[tuple[str, float], ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "text": self.text,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "model": self.model,
        }
        if self.score_logprobs is not None:
            entry["score_logprobs"] = [[token, logprob] for token, logprob in self.score_logprobs]
        return entry

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CachedReply:
        return cls(
            text=str(data["text"]),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            model=str(data.get("model", "")),
            score_logprobs=_pairs(data.get("score_logprobs")),
        )


def _pairs(value: Any) -> tuple[tuple[str, float], ...] | None:
    """Stored ``[token, log-probability]`` pairs; None for an entry without them or a malformed one
    (a hand-edited entry loses its odds, never its verdict)."""
    if not isinstance(value, list):
        return None
    try:
        return tuple((str(token), float(logprob)) for token, logprob in value)
    except (TypeError, ValueError):
        return None


CACHE_DIR_OPTION = ValueOption(
    "--cache-dir",
    "DIR",
    f"the judgment cache directory (default {DEFAULT_CACHE_DIR}, as --rag-cache-dir)",
    default=DEFAULT_CACHE_DIR,
)
"""The ``--cache-dir`` option of the ``pytest-rag`` commands that work on a cache directory."""


def judgment_key(judge: Judge, request: JudgeRequest) -> str:
    """The key of ``request`` asked of ``judge``. The judge enters it by what names it, never by what
    opens it: a base URL's user name, password and query (where a proxy may take its key) are left
    out, so a rotated password still finds the recording, and a key that cannot be in the key
    cannot be read back from it. A URL without them enters as given, so its keys are unchanged."""
    identity: Mapping[str, Any] = judge.identity()
    url = identity.get("base_url")
    if isinstance(url, str):
        named = without_credentials(url)
        if named != url:
            identity = {**identity, "base_url": named}
    return request.cache_key(identity)


def check_mode(mode: str) -> str:
    if mode not in CACHE_MODES:
        raise ConfigError(f"unknown cache mode {mode!r}; use one of {', '.join(CACHE_MODES)} (--rag-cache)")
    return mode


def unusable_store(directory: Path, exc: OSError | sqlite3.Error, reads_only: bool = False) -> ConfigError:
    """Why the store at ``directory`` cannot be used, and what to do: a file in its place, a database
    that is not one (a truncated copy, a file of another program), or a directory the run may not
    read (or, in a mode that writes, write). A cache is an option of the run, so its fault is a
    configuration error, never a judgment of the check. ``reads_only``: the mode only reads (``ro``,
    ``replay``, the export), so the store needs no write access, and recording it again is no fix."""
    elsewhere = "point --rag-cache-dir (or --cache-dir of the pytest-rag commands) at another directory"
    advice = (
        f"{elsewhere}, or move this one away and record again or load the committed judgments "
        "(pytest-rag cache import FILE)"
    )
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    wal = directory / f"{STORE_FILE}-wal"
    if directory.exists() and not directory.is_dir():
        problem = f"{directory} is a file, not a directory"
    elif isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        problem = f"{directory / STORE_FILE} is not a SQLite database, or a damaged one ({exc})"
    elif reads_only and wal.exists():
        problem = (
            f"{directory} holds judgments not yet written into {STORE_FILE} ({wal.name}: a run is "
            f"writing the store, or one was stopped), which SQLite reads only with write access ({reason})"
        )
        advice = (
            "let the run that writes it end, or open the store once with write access (a run with "
            f"--rag-cache=rw merges {wal.name} when it ends), or {elsewhere}"
        )
    elif reads_only:
        problem = f"{directory} cannot be read ({reason})"
        advice = (
            "--rag-cache=ro, --rag-cache=replay and pytest-rag cache export only read the store, so read "
            f"access is all they need: give it to this process, or {elsewhere}"
        )
    else:
        problem = f"{directory} cannot be read or written ({reason})"
    return ConfigError(f"the judgment cache cannot be used: {problem}. {advice[0].upper()}{advice[1:]}")


SQLITE_HEADER = b"SQLite format 3\x00"
"""How every SQLite database file begins (an empty file is one too: SQLite fills it)."""


def check_store(directory: Path, mode: str) -> None:
    """Raise what :func:`unusable_store` says when the store at ``directory`` cannot serve ``mode``,
    before any check asks it: a fault of the cache is one of the run's configuration, found once at
    start-up, not the same error in every check that needs a judgment. Cheap and without side
    effects: no directory is created, diskcache is not imported. A store that breaks later (locked
    by another process, its disk gone) is still found by the read or write that meets it."""
    if mode == "off" or not os.path.lexists(directory):
        return
    if not directory.is_dir():
        raise unusable_store(directory, NotADirectoryError(20, "Not a directory"))
    database = directory / STORE_FILE
    try:
        with open(database, "rb") as handle:
            start = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        start = None
    except OSError as exc:
        raise unusable_store(directory, exc, reads_only=mode in ("ro", "replay")) from None
    if start and start != SQLITE_HEADER:
        raise unusable_store(directory, sqlite3.DatabaseError("file is not a database"))
    writes = mode in ("rw", "refresh")
    if writes and not os.access(directory, os.W_OK | os.X_OK):
        raise unusable_store(directory, PermissionError(13, "Permission denied"))


class JudgmentCache:
    """Lazy: the directory is created and diskcache imported on the first read or write. A store
    that cannot be opened, read or written raises :class:`~pytest_rag.errors.ConfigError` saying why
    (:func:`unusable_store`)."""

    def __init__(self, directory: Path, mode: str = "rw") -> None:
        self.directory = directory
        self.mode = check_mode(mode)
        self._store: Any = None
        self._lock = threading.Lock()  # threads that first use the cache together open one handle

    @property
    def reads(self) -> bool:
        return self.mode in ("rw", "ro", "replay")

    @property
    def writes(self) -> bool:
        return self.mode in ("rw", "refresh")

    @contextmanager
    def _using_store(self) -> Iterator[None]:
        """Faults of the directory or the database raised as what they mean (:func:`unusable_store`)."""
        try:
            yield
        except (OSError, sqlite3.Error) as exc:
            raise unusable_store(self.directory, exc, reads_only=not self.writes) from None

    def _holds_nothing(self) -> bool:
        """True before the store is opened when there is no database to read: reading never creates
        one, so a read of a directory of other files (a mistyped ``--cache-dir``) leaves it as it was."""
        return self._store is None and not (self.directory / STORE_FILE).is_file()

    def _open(self) -> Any:
        if self._store is not None:
            return self._store
        with self._lock, self._using_store():
            if self._store is None and not self.writes:  # reads only what exists (_holds_nothing)
                from .read_only_store import ReadOnlyStore

                self._store = ReadOnlyStore(self.directory, self.directory / STORE_FILE)
            elif self._store is None:
                import diskcache

                os.makedirs(self.directory, exist_ok=True)
                self._store = diskcache.Cache(str(self.directory), size_limit=2**34, eviction_policy="none")
        return self._store

    def get(self, key: str) -> CachedReply | None:
        if not self.reads:
            return None
        if self._holds_nothing():
            return None
        store = self._open()
        try:  # what _using_store does, without a generator per read: every cached judgment reads here
            value = store.get(key)
        except (OSError, sqlite3.Error) as exc:
            raise unusable_store(self.directory, exc, reads_only=not self.writes) from None
        if not isinstance(value, dict) or "text" not in value:
            return None
        return CachedReply.from_dict(value)

    def stored_at(self, key: str) -> float | None:
        """When the entry of ``key`` was stored (None when there is none, or it does not say)."""
        if self._holds_nothing():
            return None
        store = self._open()
        with self._using_store():
            value = store.get(key)
        stamp = value.get("stored_at") if isinstance(value, dict) else None
        return float(stamp) if isinstance(stamp, (int, float)) else None

    def put(self, key: str, reply: CachedReply, meta: dict[str, Any] | None = None) -> None:
        if not self.writes:
            return
        entry = reply.to_dict()
        entry["stored_at"] = round(time.time(), 3)
        if meta:
            entry["meta"] = meta
        self.raw_set(key, entry)

    def raw_set(self, key: str, entry: dict[str, Any]) -> None:
        """Store an entry as given (used by import); ignores the mode on purpose. A cache of a mode
        that only reads writes through a handle of its own, closed at once, and reopens its
        read-only one on the next read, so that it reads the entry."""
        if not self.writes:
            self.close()
            writer = JudgmentCache(self.directory, "rw")
            try:
                writer.raw_set(key, entry)
            finally:
                writer.close()
            return
        store = self._open()
        with self._using_store():
            store.set(key, entry)

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every entry, in key order (used by export)."""
        if self._holds_nothing():
            return
        store = self._open()
        with self._using_store():
            keys = sorted(store.iterkeys())
        for key in keys:
            with self._using_store():
                value = store.get(key)
            if isinstance(value, dict):
                yield str(key), value

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
