"""The judgment store read without writing a byte: what ``--rag-cache=ro``, ``--rag-cache=replay``
and ``pytest-rag cache export`` open.

``diskcache.Cache(directory)`` writes as it opens, even to read: it stores its settings (``INSERT OR
REPLACE INTO Settings``), creates its tables, indexes and triggers if missing, and sets the journal
mode; SQLite then creates ``cache.db-wal`` and ``cache.db-shm`` beside the database for the first
read of a store in WAL mode, which diskcache's are. On a store the process may not write (a store
committed to a read-only checkout or volume, a normal CI set-up) every check failed with "attempt to
write a readonly database". So the modes that never write read the database themselves, through the
store's own ``diskcache.Disk`` (the documented serialisation interface, so a value stored as a file
beside the database reads as diskcache reads it), with the query diskcache's ``Cache.get`` runs,
and SQLite opens the file read-only:

* a closed store (no ``-wal``, no ``-shm`` file: no connection is open on it, and every write is in
  the database file) opens as ``immutable=1``: no lock, no journal, no file created or touched;
* a store with a ``-wal`` or ``-shm`` file (a process has it open, or one that wrote to it was
  killed, leaving writes in the ``-wal`` file that the database file does not hold yet) opens as
  ``mode=ro``, sharing the writer's locks so that it reads every committed judgment. SQLite needs
  write access to the ``-shm`` file for that; where it has none, the read is refused with a message
  saying to let a writer close the store (or open it once with write access) first.

An immutable read assumes that no process starts writing the store while it is read: ro, replay and
export are for stores that are not being recorded into.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def open_mode(database: Path) -> str:
    """The SQLite URI parameter that reads ``database`` without writing (see the module's doc)."""
    open_now = any(database.with_name(database.name + end).exists() for end in ("-wal", "-shm"))
    return "mode=ro" if open_now else "immutable=1"


class ReadOnlyStore:
    """The part of ``diskcache.Cache`` the reading modes use (``get``, ``iterkeys``, ``close``),
    over a read-only SQLite connection. One connection, shared by the run's threads under a lock."""

    def __init__(self, directory: Path, database: Path) -> None:
        import diskcache

        uri = f"{database.resolve().as_uri()}?{open_mode(database)}"
        self._con = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        try:
            tables = {name for (name,) in self._con.execute("SELECT name FROM sqlite_master")}
            stored = self._con.execute("SELECT key, value FROM Settings") if "Settings" in tables else []
            settings = {**diskcache.DEFAULT_SETTINGS, **dict(stored)}
        except BaseException:
            self._con.close()
            raise
        self._empty = "Cache" not in tables  # an empty file: diskcache would create the tables
        self._disk = diskcache.Disk(
            str(directory),
            min_file_size=settings["disk_min_file_size"],
            pickle_protocol=settings["disk_pickle_protocol"],
        )

    def get(self, key: str) -> Any:
        """The value stored under ``key`` (None when there is none, or it has expired), read as
        ``diskcache.Cache.get`` reads it."""
        if self._empty:
            return None
        db_key, raw = self._disk.put(key)
        with self._lock:
            row = self._con.execute(
                "SELECT mode, filename, value FROM Cache"
                " WHERE key = ? AND raw = ? AND (expire_time IS NULL OR expire_time > ?)",
                (db_key, raw, time.time()),
            ).fetchone()
        if row is None:
            return None
        mode, filename, value = row
        try:
            return self._disk.fetch(mode, filename, value, False)
        except OSError:  # as diskcache: the value's file went before it could be read
            return None

    def iterkeys(self) -> Iterator[Any]:
        """Every key of the store."""
        if self._empty:
            return
        with self._lock:
            rows = self._con.execute("SELECT key, raw FROM Cache").fetchall()
        for db_key, raw in rows:
            yield self._disk.get(db_key, raw)

    def close(self) -> None:
        self._con.close()
