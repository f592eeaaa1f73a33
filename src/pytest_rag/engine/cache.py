"""The on-disk judgment cache: one entry per judge call, keyed by the hash of the full request.

Backed by diskcache (SQLite underneath), which is safe with several pytest-xdist workers writing at
once. Entries hold the reply text and its usage, never credentials: the key material is built from
the judge's identity (provider, model, base URL), which excludes API keys by construction.

Modes:
``rw``       read, and write what was judged live (default)
``ro``       read, never write
``replay``   read only, and a miss is a failure: no judge is ever called
``refresh``  never read, always judge live and overwrite
``off``      no cache at all
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..ground.command_options import ValueOption

CACHE_MODES = ("rw", "ro", "replay", "refresh", "off")
DEFAULT_CACHE_DIR = ".rag_cache"
"""The cache directory's name under the rootdir (the ``pytest-rag`` commands: under the working directory)."""


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


def check_mode(mode: str) -> str:
    if mode not in CACHE_MODES:
        raise ConfigError(f"unknown cache mode {mode!r}; use one of {', '.join(CACHE_MODES)} (--rag-cache)")
    return mode


class JudgmentCache:
    """Lazy: the directory is created and diskcache imported on the first read or write."""

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

    def _open(self) -> Any:
        if self._store is not None:
            return self._store
        with self._lock:
            if self._store is None:
                import diskcache

                os.makedirs(self.directory, exist_ok=True)
                self._store = diskcache.Cache(str(self.directory), size_limit=2**34, eviction_policy="none")
        return self._store

    def get(self, key: str) -> CachedReply | None:
        if not self.reads:
            return None
        if self._store is None and not self.directory.exists():
            return None
        value = self._open().get(key)
        if not isinstance(value, dict) or "text" not in value:
            return None
        return CachedReply.from_dict(value)

    def stored_at(self, key: str) -> float | None:
        """When the entry of ``key`` was stored (None when there is none, or it does not say)."""
        if self._store is None and not self.directory.exists():
            return None
        value = self._open().get(key)
        stamp = value.get("stored_at") if isinstance(value, dict) else None
        return float(stamp) if isinstance(stamp, (int, float)) else None

    def put(self, key: str, reply: CachedReply, meta: dict[str, Any] | None = None) -> None:
        if not self.writes:
            return
        entry = reply.to_dict()
        entry["stored_at"] = round(time.time(), 3)
        if meta:
            entry["meta"] = meta
        self._open().set(key, entry)

    def raw_set(self, key: str, entry: dict[str, Any]) -> None:
        """Store an entry as given (used by import); ignores the mode on purpose."""
        self._open().set(key, entry)

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every entry, in key order (used by export)."""
        if not self.directory.exists():
            return
        store = self._open()
        for key in sorted(store.iterkeys()):
            value = store.get(key)
            if isinstance(value, dict):
                yield str(key), value

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
