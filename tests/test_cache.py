"""The on-disk judgment store: lazy, mode-respecting, shared safely between processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judge_requests import ClaimsVerdict, grading_request
from pytest_rag.engine.cache import CACHE_MODES, CachedReply, JudgmentCache, check_mode, judgment_key
from pytest_rag.errors import ConfigError
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec

REPLY = CachedReply(text='{"score": 4}', input_tokens=120, output_tokens=9, model="gpt-4o-2024-08-06")


def test_a_reply_survives_a_round_trip_across_instances(tmp_path: Path) -> None:
    writer = JudgmentCache(tmp_path / "c", "rw")
    writer.put("k1", REPLY, meta={"metric": "faithfulness", "test": "t.py::t"})
    writer.close()
    reader = JudgmentCache(tmp_path / "c", "ro")
    assert reader.get("k1") == REPLY
    ((key, entry),) = list(reader.items())
    assert key == "k1"
    assert entry["meta"] == {"metric": "faithfulness", "test": "t.py::t"}
    assert entry["stored_at"] > 0
    reader.close()


@pytest.mark.parametrize(
    ("mode", "reads", "writes"),
    [
        ("rw", True, True),
        ("ro", True, False),
        ("replay", True, False),
        ("refresh", False, True),
        ("off", False, False),
    ],
)
def test_each_mode_reads_and_writes_as_documented(
    tmp_path: Path, mode: str, reads: bool, writes: bool
) -> None:
    seeded = JudgmentCache(tmp_path / "c", "rw")
    seeded.put("old", REPLY)
    seeded.close()
    cache = JudgmentCache(tmp_path / "c", mode)
    assert (cache.get("old") is not None) == reads
    cache.put("new", REPLY)
    cache.close()
    check = JudgmentCache(tmp_path / "c", "ro")
    assert (check.get("new") is not None) == writes
    check.close()


@pytest.mark.parametrize("mode", ["rw", "ro", "replay", "refresh", "off"])
def test_nothing_is_created_until_something_is_written(tmp_path: Path, mode: str) -> None:
    cache = JudgmentCache(tmp_path / "c", mode)
    assert cache.get("missing") is None
    assert list(cache.items()) == []
    cache.close()
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("mode", ["rw", "ro", "replay", "refresh", "off"])
def test_reading_a_directory_without_a_store_leaves_it_as_it_was(tmp_path: Path, mode: str) -> None:
    """``--rag-cache-dir`` (or ``pytest-rag cache export --cache-dir``) pointed at a directory of other
    files: reading finds nothing there, and puts no database beside them."""
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "notes.txt").write_text("mine")
    cache = JudgmentCache(tmp_path / "c", mode)
    assert cache.get("missing") is None and cache.stored_at("missing") is None
    assert list(cache.items()) == []
    cache.close()
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["notes.txt"]


def test_foreign_values_are_misses(tmp_path: Path) -> None:
    cache = JudgmentCache(tmp_path / "c", "rw")
    cache.raw_set("weird", {"no_text": True})
    assert cache.get("weird") is None
    cache.close()


def test_an_unknown_mode_names_the_valid_ones() -> None:
    with pytest.raises(
        ConfigError, match="unknown cache mode 'readonly'; use one of rw, ro, replay, refresh, off"
    ):
        check_mode("readonly")
    assert all(check_mode(mode) == mode for mode in CACHE_MODES)


WRITER = """
import sys
from pytest_rag.engine.cache import CachedReply, JudgmentCache
cache = JudgmentCache(__import__("pathlib").Path(sys.argv[1]), "rw")
for i in range(50):
    cache.put(f"{sys.argv[2]}-{i}", CachedReply(f"reply {i}", i, 1, "m"))
cache.close()
"""


def test_two_processes_write_one_store_at_once(tmp_path: Path) -> None:
    store = tmp_path / "shared"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(store), name]) for name in ("a", "b")]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    cache = JudgmentCache(store, "ro")
    keys = [key for key, _ in cache.items()]
    assert len(keys) == 100 and keys == sorted(keys)
    assert cache.get("b-49") == CachedReply("reply 49", 49, 1, "m")
    cache.close()


def test_a_corrupt_store_is_a_config_error_naming_the_directory_and_the_way_out(tmp_path: Path) -> None:
    store = tmp_path / "c"
    store.mkdir()
    (store / "cache.db").write_bytes(b"not a database, just bytes " * 200)
    cache = JudgmentCache(store, "rw")
    for use in (lambda: cache.get("k"), lambda: cache.put("k", REPLY), lambda: list(cache.items())):
        with pytest.raises(ConfigError) as raised:
            use()
        message = str(raised.value)
        assert str(store) in message and "is not a SQLite database" in message
        assert "--rag-cache-dir" in message and "pytest-rag cache import" in message


def test_a_file_where_the_store_should_be_is_a_config_error(tmp_path: Path) -> None:
    taken = tmp_path / "notes.txt"
    taken.write_text("mine")
    cache = JudgmentCache(taken, "rw")
    with pytest.raises(ConfigError, match=r"notes\.txt is a file, not a directory.*--rag-cache-dir"):
        cache.put("k", REPLY)
    assert taken.read_text() == "mine"


def test_a_judgment_key_covers_the_server_and_model_never_the_credentials_of_the_base_url() -> None:
    asked = grading_request(ClaimsVerdict, "Paris is in France.", template_id="t", system="Grade.", inputs={})

    def key_at(url: str, model: str = "m") -> str:
        return judgment_key(OpenAIChatJudge(JudgeSpec("openai", model, url)), asked)

    plain = key_at("https://proxy.example:8443/v1")
    for dressed in (
        "https://bob:first-pw@proxy.example:8443/v1",
        "https://proxy.example:8443/v1?api_key=first-qk",
        "https://bob:rotated-pw@proxy.example:8443/v1?api_key=rotated-qk#frag",
    ):
        assert key_at(dressed) == plain
    # what names the judge still counts
    assert len({plain, key_at("http://proxy.example:8443/v1"), key_at("https://other.example:8443/v1")}) == 3
    assert len({plain, key_at("https://proxy.example:9443/v1"), key_at("https://proxy.example:8443/v2")}) == 3
    assert key_at("https://proxy.example:8443/v1", model="n") != plain
    # a URL without credentials is keyed as written, as before
    assert plain == asked.cache_key(
        {"provider": "openai", "model": "m", "base_url": "https://proxy.example:8443/v1"}
    )
