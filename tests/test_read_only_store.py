"""``--rag-cache=ro``, ``--rag-cache=replay`` and ``pytest-rag cache export`` never write the store.

A store committed to a read-only checkout or volume is a normal CI set-up, so these run on a store
whose directory and files are made read-only. Tests often run as root, for whom a file's mode stops
no write; so every test also takes the store's bytes, modification times and file names before and
after, and requires them unchanged: no write was made, none attempted (SQLite creates its -wal and
-shm files on a read of a store in WAL mode, and diskcache writes its settings on every open).
"""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import rag_args, verdict
from fake_llm import FakeLLMServer
from pytest_rag.cli import main
from pytest_rag.engine.cache import STORE_FILE, CachedReply, JudgmentCache, check_store, unusable_store
from pytest_rag.errors import ConfigError

CHECKS = """
import pytest

@pytest.mark.parametrize("answer", ["Refunds take five days.", "Refunds are instant."])
def test_grounded(rag_judge, answer):
    result = rag_judge.faithfulness(answer, ["Refunds are processed within five business days."])
    print(f"SCORE {answer!r} {result.score}")
"""

Files = dict[str, tuple[bytes, int]]


def files_of(directory: Path) -> Files:
    """Every file and directory under ``directory``: its bytes and modification time."""
    found: Files = {}
    for path in sorted(directory.rglob("*")):
        name = path.relative_to(directory).as_posix()
        found[name] = (path.read_bytes() if path.is_file() else b"", path.stat().st_mtime_ns)
    return found


@pytest.fixture
def read_only() -> Iterator[list[Path]]:
    """Directories to make read-only (with everything in them); made writable again at the end, so
    that the temporary directory can be removed."""
    made: list[Path] = []
    yield made
    for directory in made:
        for path in [directory, *directory.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def make_read_only(directory: Path, made: list[Path]) -> None:
    made.append(directory)
    for path in [*directory.rglob("*"), directory]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def test_ro_replay_and_export_use_a_store_they_may_not_write(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    tmp_path: Path,
    read_only: list[Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "store"
    fake_llm.script(verdict(5), verdict(1))
    pytester.makepyfile(CHECKS)
    recorded = pytester.runpytest("-s", *rag_args(fake_llm, store))
    assert recorded.ret == 0 and fake_llm.request_count == 2
    expected = sorted(line for line in recorded.stdout.lines if line.startswith("SCORE"))
    gc.collect()  # the in-process run's last connection (its loop thread's) closes, as at a run's exit
    before = files_of(store)
    assert set(before) >= {STORE_FILE} and not any(name.endswith(("-wal", "-shm")) for name in before)
    make_read_only(store, read_only)

    for mode in ("ro", "replay"):
        result = pytester.runpytest("-s", *rag_args(fake_llm, store, f"--rag-cache={mode}"))
        output = result.stdout.str()
        assert result.ret == 0, output
        assert "readonly database" not in output
        assert sorted(line for line in result.stdout.lines if line.startswith("SCORE")) == expected
        assert fake_llm.request_count == 2  # every judgment came from the store
    exported = tmp_path / "judgments.jsonl"
    capsys.readouterr()
    assert main(["cache", "export", str(exported), "--cache-dir", str(store)]) == 0
    assert capsys.readouterr().out.startswith(f"exported 2 judgment(s) from {store}")
    assert files_of(store) == before  # not a byte, a time or a file name changed


def test_a_value_kept_in_a_file_beside_the_database_reads_back(tmp_path: Path, read_only: list[Path]) -> None:
    """diskcache keeps a large value in a file of its own; the read-only store reads it as diskcache does."""
    store = tmp_path / "store"
    writer = JudgmentCache(store, "rw")
    long_reply = CachedReply('{"score": 4, "reasoning": "' + "long " * 20_000 + '"}', 10, 2, "m")
    writer.put("k" * 64, long_reply)
    writer.put("s" * 64, CachedReply('{"score": 2}', 1, 1, "m"))
    writer.close()
    assert any(path.suffix == ".val" for path in store.rglob("*"))  # the long one is a file
    before = files_of(store)
    make_read_only(store, read_only)
    for mode in ("ro", "replay"):
        reader = JudgmentCache(store, mode)
        assert reader.get("k" * 64) == long_reply
        assert reader.get("s" * 64) == CachedReply('{"score": 2}', 1, 1, "m")
        assert reader.get("x" * 64) is None
        assert [key for key, _ in reader.items()] == ["k" * 64, "s" * 64]
        reader.close()
    assert files_of(store) == before


def test_a_store_open_in_a_writer_is_read_with_its_latest_judgments(tmp_path: Path) -> None:
    """A store whose writer is still open holds its newest judgments in cache.db-wal, not yet in
    cache.db: the reader shares the writer's locks and reads them, rather than the older file."""
    store = tmp_path / "store"
    first = JudgmentCache(store, "rw")
    first.put("a" * 64, CachedReply("old", 1, 1, "m"))
    first.close()
    writer = JudgmentCache(store, "rw")
    writer.put("b" * 64, CachedReply("new", 1, 1, "m"))
    try:
        assert (store / f"{STORE_FILE}-wal").stat().st_size > 0
        reader = JudgmentCache(store, "replay")
        assert reader.get("b" * 64) == CachedReply("new", 1, 1, "m")
        assert [key for key, _ in reader.items()] == ["a" * 64, "b" * 64]
        reader.close()
    finally:
        writer.close()


def test_an_empty_database_file_reads_as_an_empty_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / STORE_FILE).write_bytes(b"")
    before = files_of(store)
    reader = JudgmentCache(store, "ro")
    assert reader.get("a" * 64) is None and list(reader.items()) == []
    reader.close()
    assert files_of(store) == before


def test_the_start_up_check_asks_write_access_only_of_the_modes_that_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked with the permission test itself answering "no write" (root would be told yes)."""
    store = tmp_path / "store"
    JudgmentCache(store, "rw").put("a" * 64, CachedReply("x", 1, 1, "m"))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: not mode & os.W_OK and real_access(path, mode))
    for mode in ("ro", "replay", "off"):
        check_store(store, mode)
    for mode in ("rw", "refresh"):
        with pytest.raises(ConfigError, match="cannot be read or written"):
            check_store(store, mode)


def test_a_store_a_reading_mode_cannot_open_is_told_without_the_advice_to_record_again(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    denied = PermissionError(13, "Permission denied")
    message = str(unusable_store(store, denied, reads_only=True))
    assert f"{store} cannot be read (Permission denied)" in message
    assert "only read the store, so read access is all they need" in message
    assert "record again" not in message and "written" not in message
    (store / f"{STORE_FILE}-wal").write_bytes(b"frames")
    message = str(unusable_store(store, denied, reads_only=True))
    assert "holds judgments not yet written into cache.db (cache.db-wal: a run is writing" in message
    assert "a run with --rag-cache=rw merges cache.db-wal when it ends" in message
    assert "record again" not in message
    # a mode that writes keeps its advice
    assert "cannot be read or written" in str(unusable_store(store, denied))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_read_only_store_that_the_os_enforces_is_read(tmp_path: Path, read_only: list[Path]) -> None:
    """Where the process is not root, the mode bits hold, and the read succeeds only because
    nothing is written; as root this test adds nothing to the ones above, which compare the files."""
    store = tmp_path / "store"
    JudgmentCache(store, "rw").put("a" * 64, CachedReply("x", 1, 1, "m"))
    make_read_only(store, read_only)
    writable = os.access(store, os.W_OK)
    assert writable == (os.geteuid() == 0)
    reader = JudgmentCache(store, "ro")
    assert reader.get("a" * 64) == CachedReply("x", 1, 1, "m")
    reader.close()
