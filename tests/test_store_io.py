"""Export/import of the judgment store, the ``pytest-rag cache`` command, and CI replay end to end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pytest_rag.cli import main
from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.regression.store_io import StoreFileError, export_store, import_store, read_entries
from regression_support import faithful_tests, judge_env, marker_server, run_args

KEYS = ["c" * 64, "a" * 64, "b" * 64]
HEADER = '{"format": "pytest-rag-judgments", "version": 1}\n'


def _one_entry(**fields: object) -> str:
    """A judgment file of one entry with ``fields`` besides its key and text."""
    return HEADER + json.dumps({"key": KEYS[0], "text": "x", **fields}) + "\n"


def _fill(directory: Path, texts: dict[str, str]) -> None:
    cache = JudgmentCache(directory, "rw")
    for key, text in texts.items():
        cache.raw_set(
            key,
            {
                "text": text,
                "input_tokens": 10,
                "output_tokens": 2,
                "model": "m",
                "stored_at": 123.4,
                "meta": {"test": "t.py::test", "metric": "faithfulness"},
            },
        )
    cache.close()


def test_export_is_sorted_stable_and_free_of_timestamps(tmp_path: Path) -> None:
    _fill(tmp_path / "c", {k: f'{{"score": {i}}}' for i, k in enumerate(KEYS)})
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert export_store(tmp_path / "c", first) == 3
    export_store(tmp_path / "c", second)
    assert first.read_bytes() == second.read_bytes()
    lines = first.read_text().splitlines()
    assert json.loads(lines[0]) == {"format": "pytest-rag-judgments", "version": 1}
    assert [json.loads(line)["key"] for line in lines[1:]] == sorted(KEYS)
    assert "stored_at" not in first.read_text()


def test_import_round_trips_and_counts_what_changed(tmp_path: Path) -> None:
    _fill(tmp_path / "src", {k: "x" for k in KEYS})
    exported = tmp_path / "store.jsonl"
    export_store(tmp_path / "src", exported)
    summary = import_store(exported, tmp_path / "dst")
    assert (summary.added, summary.replaced, summary.unchanged) == (3, 0, 0)
    again = tmp_path / "again.jsonl"
    export_store(tmp_path / "dst", again)
    assert again.read_bytes() == exported.read_bytes()
    _fill(tmp_path / "dst", {KEYS[0]: "changed"})
    summary = import_store(exported, tmp_path / "dst")
    assert (summary.added, summary.replaced, summary.unchanged) == (0, 1, 2)
    assert JudgmentCache(tmp_path / "dst").get(KEYS[0]).text == "x"  # type: ignore[union-attr]


def test_export_refuses_an_entry_holding_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROVIDER_API_KEY", "sk-live-supersecret-123")
    _fill(tmp_path / "c", {KEYS[0]: "the key is sk-live-supersecret-123"})
    target = tmp_path / "out.jsonl"
    with pytest.raises(StoreFileError, match="MY_PROVIDER_API_KEY") as info:
        export_store(tmp_path / "c", target)
    assert "supersecret" not in str(info.value)
    assert not target.exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"format": "something-else", "version": 1}\n', "not a pytest-rag judgment file"),
        ('{"format": "pytest-rag-judgments", "version": 9}\n', "version 9 is not supported"),
        ('{"format": "pytest-rag-judgments", "version": 1}\n{"key": "short", "text": "x"}\n', ":2: 'key'"),
        ('{"format": "pytest-rag-judgments", "version": 1}\n{oops\n', ":2: not valid JSON"),
        ("", "is empty"),
        (
            _one_entry(input_tokens="many"),
            ":2: 'input_tokens' must be",
        ),
        (
            _one_entry(output_tokens=-3),
            ":2: 'output_tokens' must be",
        ),
        (
            _one_entry(score_logprobs=[["4", "low"]]),
            ":2: 'score_logprobs'",
        ),
    ],
)
def test_bad_judgment_files_name_the_line(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(StoreFileError, match=problem):
        read_entries(path)


def test_grade_odds_travel_through_the_file(tmp_path: Path) -> None:
    odds = [["4", -0.1], ["5", -2.4]]
    cache = JudgmentCache(tmp_path / "src", "rw")
    cache.raw_set(
        KEYS[0],
        {"text": '{"score": 4}', "input_tokens": 3, "output_tokens": 1, "model": "m", "score_logprobs": odds},
    )
    cache.close()
    exported = tmp_path / "store.jsonl"
    export_store(tmp_path / "src", exported)
    import_store(exported, tmp_path / "dst")
    replayed = JudgmentCache(tmp_path / "dst").get(KEYS[0])
    assert replayed is not None and replayed.score_logprobs == (("4", -0.1), ("5", -2.4))


@pytest.mark.parametrize("kind", ["is not UTF-8 text", "is a directory"])
def test_an_unreadable_judgment_file_is_one_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "judgments.jsonl"
    if kind == "is a directory":
        path.mkdir()
    else:
        path.write_bytes(HEADER.encode() + b"\xff\xfe broken\n")
    with pytest.raises(StoreFileError, match=kind):
        read_entries(path)


def test_export_of_a_directory_without_a_store_keeps_the_target(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    target = tmp_path / "judgments.jsonl"
    target.write_text("the committed judgments\n")
    with pytest.raises(StoreFileError, match="no judgment store"):
        export_store(tmp_path / "notes", target)
    assert target.read_text() == "the committed judgments\n"
    assert not (tmp_path / "notes" / "cache.db").exists()


def test_cli_exports_and_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(tmp_path / "c", {k: "x" for k in KEYS})
    out = tmp_path / "j.jsonl"
    assert main(["cache", "export", str(out), "--cache-dir", str(tmp_path / "c")]) == 0
    assert "exported 3 judgment(s)" in capsys.readouterr().out
    assert main(["cache", "import", str(out), "--cache-dir", str(tmp_path / "d")]) == 0
    assert "3 added" in capsys.readouterr().out
    assert main(["cache", "export", str(out), "--cache-dir", str(tmp_path / "missing")]) == 1
    assert "no judgment cache at" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["cache"])
    assert info.value.code == 2


@pytest.mark.parametrize("action", ["export", "import"])
def test_cli_names_a_damaged_store_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str
) -> None:
    good = tmp_path / "j.jsonl"
    _fill(tmp_path / "c", {KEYS[0]: "x"})
    assert main(["cache", "export", str(good), "--cache-dir", str(tmp_path / "c")]) == 0
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "cache.db").write_bytes(b"\0garbage" * 500)
    capsys.readouterr()
    target = tmp_path / "out.jsonl" if action == "export" else good
    assert main(["cache", action, str(target), "--cache-dir", str(damaged)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pytest-rag: error: the judgment cache cannot be used: ")
    assert "cache.db is not a SQLite database" in err and err.count("\n") == 1
    assert not (tmp_path / "out.jsonl").exists()


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_replay_ci_runs_from_the_committed_file_alone(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record with a key against the fake server and export; commit; replay with no server and no key."""
    judge_env(monkeypatch)
    pytester.makepyfile(test_bot=faithful_tests(["5", "4", "2"]))
    repo = pytester.path
    _git(repo, "init", "-q")
    store = repo / "tests_judgments.jsonl"
    with marker_server() as server:
        base_url = server.openai_base_url
        recorded = pytester.runpytest(*run_args(base_url, repo / "rec_cache", f"--rag-cache-export={store}"))
        assert server.request_count == 3
    recorded.assert_outcomes(passed=3)
    _git(repo, "add", store.name)
    _git(repo, "commit", "-q", "-m", "record judgments")
    assert _git(repo, "ls-files").split() == [store.name]

    judge_env(monkeypatch, key=None)  # the replay job has no API key, and the server is gone
    fresh = repo / "ci_cache"
    without_import = pytester.runpytest(*run_args(base_url, fresh, "--rag-cache=replay"))
    without_import.assert_outcomes(errors=3)
    replayed = pytester.runpytest(
        *run_args(base_url, repo / "ci_cache2", "--rag-cache=replay", f"--rag-cache-import={store}")
    )
    replayed.assert_outcomes(passed=3)
    replayed.stdout.fnmatch_lines(["*3 cached*", "*imported 3 judgment(s): 3 added*"])
    assert _git(repo, "status", "--porcelain", "--untracked-files=no") == ""


def test_exporting_after_a_run_that_stored_nothing_notes_it_and_keeps_the_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The offline judge is computed, never cached: an export after its run has nothing to write,
    which is no fault of the tests, so the run passes and the committed file is left as it was."""
    judge_env(monkeypatch)
    pytester.makepyfile(
        test_offline="""
def test_grounded(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds take five days."])
"""
    )
    committed = pytester.path / "judgments.jsonl"
    committed.write_text(_one_entry())
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--rag-judge=local", f"--rag-cache-export={committed}"
    )
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["nothing to export: this run stored no judgment (the offline judge is computed, never cached*"]
    )
    assert "gate" not in result.stdout.str()
    assert f"{committed} was left as it was" in result.stdout.str()
    assert committed.read_text() == _one_entry()
