"""Export and import of the judgment store as a JSONL file that lives in git beside the tests.

This is how CI runs without API keys: a job with a key records the judgments and exports them, the
file is committed, and every other job imports it and runs with ``--rag-cache=replay``. The file is
made to be reviewed in a pull request:

* the first line names the format, then one judgment per line, sorted by cache key, so re-exporting
  an unchanged store gives the same bytes and a re-recorded judgment shows as a one-line diff;
* nothing that changes between identical runs is written (no storage timestamps);
* nothing secret is written: entries never hold credentials by construction, and as a second line of
  defence an export that contains the value of any ``*_API_KEY``/``*_TOKEN``/``*_SECRET`` environment
  variable is refused before a byte reaches the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.cache import STORE_FILE, JudgmentCache
from ..errors import RagError
from ..ground.redaction import secret_values
from ..report.files import write_atomically

FORMAT = "pytest-rag-judgments"
VERSION = 1
KEY_PATTERN = re.compile(r"^[0-9a-f]{64}$")
#: Fields of a stored entry that are written, in this order (``stored_at`` is left out on purpose).
#: ``score_logprobs`` (the judge's odds of each grade, when it gave them) is written only by the
#: entries that hold it, so a replay gives the expected score and pass probability the live run had.
ENTRY_FIELDS = ("model", "input_tokens", "output_tokens", "text", "score_logprobs")


class StoreFileError(RagError):
    """A judgment file that cannot be read or written; the message names the line and the fix."""


@dataclass(frozen=True)
class ImportSummary:
    added: int
    replaced: int
    unchanged: int

    @property
    def total(self) -> int:
        return self.added + self.replaced + self.unchanged

    def __str__(self) -> str:
        return (
            f"{self.total} judgment(s): {self.added} added, {self.replaced} replaced, "
            f"{self.unchanged} already present"
        )


def _header() -> str:
    return json.dumps({"format": FORMAT, "version": VERSION}, sort_keys=True)


def entry_line(key: str, entry: dict[str, Any]) -> str:
    """One judgment as a JSON line with a fixed field order."""
    record: dict[str, Any] = {"key": key}
    meta = entry.get("meta")
    if isinstance(meta, dict) and meta:
        record["meta"] = {k: meta[k] for k in sorted(meta)}
    for name in ENTRY_FIELDS:
        if name in entry:
            record[name] = entry[name]
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "))


def export_lines(cache: JudgmentCache) -> Iterator[str]:
    """The file's lines (without newlines): header, then entries in key order, checked for secrets."""
    secrets = secret_values()
    yield _header()
    for key, entry in cache.items():
        line = entry_line(key, entry)
        for name, value in secrets:
            if value in line:
                raise StoreFileError(
                    f"refusing to export: the stored judgment {key} contains the value of the environment "
                    f"variable {name}. Clear that entry (or the cache directory) and record it again"
                )
        yield line


def export_store(cache_dir: Path, target: Path) -> int:
    """Write every judgment of ``cache_dir`` to ``target`` atomically; returns how many. A directory
    without a store is refused, not exported as an empty file over ``target`` (a committed file of
    judgments replaced by its header line)."""
    if not (cache_dir / STORE_FILE).is_file():
        there = "no judgment cache" if not cache_dir.is_dir() else f"no judgment store ({STORE_FILE})"
        raise StoreFileError(
            f"{there} at {cache_dir}; run the tests with a judge first, or pass the "
            "directory that holds it (--cache-dir / --rag-cache-dir)"
        )
    cache = JudgmentCache(cache_dir, "ro")
    try:
        lines = list(export_lines(cache))
    finally:
        cache.close()
    write_atomically(target, "\n".join(lines) + "\n", "the judgment export")
    return len(lines) - 1


def _check_entry(record: Any, where: str) -> tuple[str, dict[str, Any]]:
    if not isinstance(record, dict):
        raise StoreFileError(f"{where}: expected a JSON object per line")
    key = record.get("key")
    if not isinstance(key, str) or not KEY_PATTERN.match(key):
        raise StoreFileError(f"{where}: 'key' must be the 64-character hex cache key, got {key!r}")
    if not isinstance(record.get("text"), str):
        raise StoreFileError(f"{where}: 'text' (the judge's reply) is missing or not a string")
    entry: dict[str, Any] = {
        "text": record["text"],
        "input_tokens": _count(record, "input_tokens", where),
        "output_tokens": _count(record, "output_tokens", where),
        "model": str(record.get("model") or ""),
    }
    if record.get("score_logprobs") is not None:
        entry["score_logprobs"] = _odds(record["score_logprobs"], where)
    if isinstance(record.get("meta"), dict):
        entry["meta"] = dict(record["meta"])
    return key, entry


def _count(record: dict[str, Any], name: str, where: str) -> int:
    """A token count of an entry: a whole number of at least 0 (absent or null: 0)."""
    value = record.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StoreFileError(f"{where}: {name!r} must be a whole number of tokens (0 or more), got {value!r}")
    return value


def _odds(value: Any, where: str) -> list[list[Any]]:
    """The grade odds of an entry: a list of ``[token, log-probability]`` pairs."""
    pairs = value if isinstance(value, list) else None
    if pairs is None or not all(
        isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], (int, float))
        and not isinstance(pair[1], bool)
        for pair in pairs
    ):
        raise StoreFileError(
            f"{where}: 'score_logprobs' must be a list of [token, log-probability] pairs, got {value!r:.80}"
        )
    return [[token, float(logprob)] for token, logprob in pairs]


def read_entries(source: Path) -> list[tuple[str, dict[str, Any]]]:
    """Parse and validate a judgment file; any problem names the file and line."""
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreFileError(
            f"judgment file {source} does not exist; export one with `pytest-rag cache export {source}` "
            "or --rag-cache-export"
        ) from None
    except IsADirectoryError:
        raise StoreFileError(
            f"{source} is a directory; give the judgment file (NAME.jsonl) written by `pytest-rag cache "
            "export` or --rag-cache-export"
        ) from None
    except UnicodeDecodeError as exc:
        raise StoreFileError(
            f"{source} is not UTF-8 text (byte {exc.start}); a judgment file is the JSON lines written by "
            "`pytest-rag cache export`"
        ) from None
    except OSError as exc:
        raise StoreFileError(f"cannot read the judgment file {source}: {exc.strerror or exc}") from None
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise StoreFileError(f"{source} is empty; it should start with the line {_header()}")
    entries: list[tuple[str, dict[str, Any]]] = []
    for number, line in lines:
        where = f"{source}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StoreFileError(f"{where}: not valid JSON ({exc.msg})") from None
        if number == lines[0][0]:
            if not isinstance(record, dict) or record.get("format") != FORMAT:
                raise StoreFileError(
                    f"{where}: not a pytest-rag judgment file (the first line should be {_header()})"
                )
            if record.get("version") != VERSION:
                raise StoreFileError(
                    f"{where}: format version {record.get('version')!r} is not supported (this pytest-rag "
                    f"reads version {VERSION}); export it again with this version"
                )
            continue
        entries.append(_check_entry(record, where))
    return entries


def import_entries(cache_dir: Path, entries: Iterable[tuple[str, dict[str, Any]]]) -> ImportSummary:
    cache = JudgmentCache(cache_dir, "rw")
    added = replaced = unchanged = 0
    try:
        existing = dict(cache.items())
        for key, entry in entries:
            before = existing.get(key)
            if before is None:
                added += 1
            elif entry_line(key, before) == entry_line(key, entry):
                unchanged += 1
                continue
            else:
                replaced += 1
            cache.raw_set(key, entry)
    finally:
        cache.close()
    return ImportSummary(added, replaced, unchanged)


def import_store(source: Path, cache_dir: Path) -> ImportSummary:
    """Load a judgment file into ``cache_dir`` (the file wins over an existing entry with the same key)."""
    return import_entries(cache_dir, read_entries(source))
