"""The judgment cache seen from pytest runs: reruns are free and identical, and every mode does what it says.

Also: API keys never reach the cache directory or the run's output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ANTHROPIC_KEY, OPENAI_KEY, rag_args, verdict
from fake_llm import FakeLLMServer, Reply
from pytest_rag.engine.cache import JudgmentCache

THREE_CHECKS = """
import pytest

@pytest.mark.parametrize("answer", ["Refunds take five days.", "Refunds are instant.", "Shipping is free."])
def test_grounded(rag_judge, answer):
    result = rag_judge.faithfulness(answer, ["Refunds are processed within five business days."])
    print(f"SCORE {answer!r} {result.score} cached={result.cached}")
"""


def scores(result: pytest.RunResult) -> list[str]:
    return sorted(
        re.sub(r" cached=\w+", "", ln[ln.index("SCORE") :]) for ln in result.stdout.lines if "SCORE " in ln
    )


def summary(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    start = next(i for i, ln in enumerate(lines) if "pytest-rag summary" in ln)
    return lines[start + 1 : start + 3]


def stored_entries(directory: Path) -> dict[str, float]:
    """Key -> the time it was stored, for every entry of a cache directory."""
    cache = JudgmentCache(directory, "ro")
    try:
        return {key: entry["stored_at"] for key, entry in cache.items()}
    finally:
        cache.close()


def test_a_second_run_makes_no_requests_and_prints_identical_scores(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(verdict(5), verdict(2), verdict(3))
    pytester.makepyfile(THREE_CHECKS)
    args = ["-s", *rag_args(fake_llm, tmp_path / "c")]
    first = pytester.runpytest(*args)
    assert first.ret == 0
    assert fake_llm.request_count == 3
    first.stdout.fnmatch_lines(["judge calls: 3 live, 0 cached*"])

    second = pytester.runpytest(*args)
    assert second.ret == 0
    assert fake_llm.request_count == 3  # nothing new reached the server
    assert scores(second) == scores(first) and len(scores(first)) == 3
    assert summary(second) == summary(first)
    assert second.stdout.str().count("cached=True") == 3
    second.stdout.fnmatch_lines(["judge calls: 0 live, 3 cached, 0 offline; tokens: 0 in, 0 out*"])


def test_replay_miss_fails_naming_the_test_and_key_without_calling(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=replay"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "E*CacheMissError:*--rag-cache=replay: no stored judgment for test "
            "'test_replay_miss_fails_naming_the_test_and_key_without_calling.py::test_grounded?Refunds take five "
            "days.?'*"
        ]
    )
    assert re.search(r"key [0-9a-f]{64}", result.stdout.str())
    result.stdout.fnmatch_lines(["*judge errors: 3 (3 CacheMissError)*"])
    assert fake_llm.request_count == 0
    assert not (tmp_path / "c").exists()


def failure_sections(result: pytest.RunResult, section: str = "FAILURES") -> dict[str, list[str]]:
    """The lines of each test's part of a report section (FAILURES or ERRORS), by its heading."""
    lines = result.stdout.lines
    start = next(i for i, ln in enumerate(lines) if f"= {section} =" in ln) + 1
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in lines[start:]:
        heading = re.fullmatch(r"_+ (?:ERROR at \w+ of )?(.+?) _+", line)
        if heading:
            current = sections.setdefault(heading.group(1), [])
        elif line.startswith("="):
            break
        elif line.strip():
            current.append(line)
    return sections


TWELVE_CHECKS = """
import pytest

@pytest.mark.parametrize("n", range(12))
def test_grounded(rag_judge, n):
    rag_judge.assert_faithful(f"Refunds take {n} days.", ["Refunds take five business days."], threshold=1)
"""


def test_replaying_an_empty_store_explains_once_then_errs_each_check_in_one_line(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(TWELVE_CHECKS)
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "c", "--rag-cache=replay", "-p", "no:randomly")
    )
    result.assert_outcomes(errors=12)  # a miss is no verdict: an error, never a failure or a pass
    sections = failure_sections(result, "ERRORS")
    first, *later = sections.values()
    assert len(sections) == 12
    assert any(f"the store at {tmp_path / 'c'} holds no judgment" in line for line in first)
    assert any("Record it with a judge and --rag-cache=rw" in line for line in first)
    first_test = next(iter(sections))
    for lines in later:  # one line each, pointing at the miss that explained it
        assert len(lines) == 1
        assert lines[0].startswith("CacheMissError: [faithfulness by openai:fake-gpt] --rag-cache=replay: ")
        assert "holds no judgment (as for test_replaying_an_empty_store_explains_once" in lines[0]
        assert first_test in lines[0]
    assert fake_llm.request_count == 0


@pytest.mark.parametrize(
    ("recorded", "replayed", "says"),
    [
        (
            "openai:fake-gpt-2",
            "openai:fake-gpt",
            "the store has this request for model fake-gpt-2, not fake-gpt",
        ),
        (
            "openai:fake-gpt",
            "openai:fake-gpt@http://judges.example:8080/v1",
            "the store has this request for base URL http://127.0.0.1:{port}/v1, not http://judges.example:8080/v1",
        ),
    ],
    ids=["model", "base-url"],
)
def test_a_replay_miss_names_the_one_part_the_stored_request_differs_in(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    tmp_path: Path,
    recorded: str,
    replayed: str,
    says: str,
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", judge=recorded)).assert_outcomes(passed=3)
    args = rag_args(fake_llm, tmp_path / "c", "--rag-cache=replay", judge=replayed)
    if "@" in replayed:  # a base URL of its own: the fake server's is not added
        args = [a if not a.startswith("--rag-judge=") else f"--rag-judge={replayed}" for a in args]
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=3)
    output = result.stdout.str()
    assert says.format(port=fake_llm.port) in output
    model = replayed.split("@")[0].split(":")[1]
    url = replayed.split("@")[1] if "@" in replayed else fake_llm.openai_base_url
    assert f"asked of model {model} at base URL {url}, template faithfulness.single v2" in output


def test_replay_serves_a_recording_made_with_another_password_in_the_base_url(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """The key covers the server and model, not the credentials: rotating them keeps the entries (a
    key in the URL's query is dropped the same way, see test_cache)."""
    pytester.makepyfile(THREE_CHECKS)

    def judged_with(credentials: str, *extra: str) -> list[str]:
        url = fake_llm.openai_base_url.replace("://", f"://{credentials}@")
        args = rag_args(fake_llm, tmp_path / "c", *extra)
        return [a if not a.startswith("--rag-judge=") else f"--rag-judge=openai:fake-gpt@{url}" for a in args]

    recorded = pytester.runpytest(*judged_with("bob:first-pw", "--rag-cache-export=j.jsonl"))
    recorded.assert_outcomes(passed=3)
    replayed = pytester.runpytest(*judged_with("bob:rotated-pw", "--rag-cache=replay"))
    replayed.assert_outcomes(passed=3)
    assert fake_llm.request_count == 3
    written = b"".join(
        path.read_bytes()
        for path in [*(tmp_path / "c").rglob("*"), pytester.path / "j.jsonl"]
        if path.is_file()
    )
    said = recorded.stdout.str() + replayed.stdout.str()
    for secret in ("first-pw", "rotated-pw"):
        assert secret.encode() not in written and secret not in said


def test_a_replay_of_an_entry_that_no_longer_reads_says_so_not_that_inputs_changed(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    pytester.runpytest(*rag_args(fake_llm, tmp_path / "c")).assert_outcomes(passed=3)
    cache = JudgmentCache(tmp_path / "c", "rw")
    key, entry = next(cache.items())  # edited by hand: a grade off the 1-5 scale
    cache.raw_set(key, {**entry, "text": entry["text"].replace('"score": 3', '"score": 9')})
    cache.close()
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=replay"))
    result.assert_outcomes(passed=2, errors=1)
    output = result.stdout.str()
    assert f"key {key}: the store holds this request, but its reply no longer reads as a verdict" in output
    assert "score: Input should be 1, 2, 3, 4 or 5" in output
    assert "none of these inputs" not in output
    assert fake_llm.request_count == 3


def test_replay_with_the_offline_judge_says_it_has_nothing_to_replay(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'c'}", "--rag-cache=replay"
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "replay: 3 check(s) of local computed as usual: the offline judge is computed, never cached, so "
            "--rag-cache=replay has nothing to replay for it"
        ]
    )
    plain = pytester.runpytest("-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'c'}")
    assert "nothing to replay" not in plain.stdout.str()


def test_replay_after_recording_needs_neither_a_key_nor_the_server(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_llm.script(verdict(5), verdict(2), verdict(3))
    pytester.makepyfile(THREE_CHECKS)
    args = ["-s", *rag_args(fake_llm, tmp_path / "c")]
    recorded = pytester.runpytest(*args)
    monkeypatch.delenv("OPENAI_API_KEY")
    fake_llm.script(Reply.status(500), Reply.status(500), Reply.status(500))  # would fail if asked
    replayed = pytester.runpytest(*args, "--rag-cache=replay")
    assert replayed.ret == 0
    assert scores(replayed) == scores(recorded)
    assert fake_llm.request_count == 3


def test_ro_reads_but_never_writes(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=ro"))
    assert result.ret == 0 and fake_llm.request_count == 3
    assert not (tmp_path / "c").exists()

    pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))  # rw records
    assert fake_llm.request_count == 6
    before = stored_entries(tmp_path / "c")
    again = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=ro"))
    again.stdout.fnmatch_lines(["judge calls: 0 live, 3 cached*"])
    assert fake_llm.request_count == 6
    assert stored_entries(tmp_path / "c") == before and len(before) == 3


def test_refresh_judges_again_and_overwrites(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_one(rag_judge):
            print("SCORE", rag_judge.faithfulness("Paris.", ["Paris is the capital."]).score)
        """
    )
    args = ["-s", *rag_args(fake_llm, tmp_path / "c")]
    fake_llm.script(verdict(2))
    pytester.runpytest(*args).stdout.fnmatch_lines(["*SCORE 2.0*"])
    fake_llm.script(verdict(5))
    pytester.runpytest(*args, "--rag-cache=refresh").stdout.fnmatch_lines(["*SCORE 5.0*"])
    assert fake_llm.request_count == 2
    pytester.runpytest(*args).stdout.fnmatch_lines(["*SCORE 5.0*"])  # the refreshed verdict is stored
    assert fake_llm.request_count == 2


def test_off_writes_no_directory_and_always_asks(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    for _ in range(2):
        assert pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=off")).ret == 0
    assert fake_llm.request_count == 6
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("--rag-cache-import={file}", "--rag-cache-import (command line)"),
        ("--rag-cache-export={file}", "--rag-cache-export (command line)"),
        ("-orag_cache_export={file}", "rag_cache_export (-o on the command line)"),
    ],
)
def test_off_refuses_a_judgment_file_it_would_not_use(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, given: str, named: str
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    judgments = tmp_path / "judgments.jsonl"
    judgments.write_text('{"format": "pytest-rag-judgments", "version": 1}\n')
    option = given.format(file=judgments)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=off", option))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    refusal = result.stderr.str()
    assert f"{named} cannot work with --rag-cache=off" in refusal and "--rag-cache=rw" in refusal
    assert fake_llm.request_count == 0 and not (tmp_path / "c").exists()


def test_the_default_cache_dir_is_under_the_rootdir(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    args = [a for a in rag_args(fake_llm, tmp_path / "unused") if not a.startswith("--rag-cache-dir")]
    pytester.runpytest(*args)
    assert (pytester.path / ".rag_cache").is_dir()
    assert not (tmp_path / "unused").exists()


@pytest.mark.parametrize("mode", ["rw", "replay"])
@pytest.mark.parametrize("damage", ["not a database", "a file in its place"])
def test_a_damaged_store_is_one_start_up_error_saying_what_to_do(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, mode: str, damage: str
) -> None:
    """A cache that cannot be used is the run's configuration: said once, before any test, with the
    way out; never counted as a judge error of each check."""
    store = tmp_path / "c"
    if damage == "not a database":
        store.mkdir()
        (store / "cache.db").write_bytes(b"half a download " * 300)
        says = f"{store / 'cache.db'} is not a SQLite database"
    else:
        store.write_text("not a directory")
        says = f"{store} is a file, not a directory"
    pytester.makepyfile(THREE_CHECKS)
    result = pytester.runpytest(*rag_args(fake_llm, store, f"--rag-cache={mode}"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert output.count("the judgment cache cannot be used") == 1
    assert says in output and "Point --rag-cache-dir" in output
    assert "judge error" not in output and "sqlite3.DatabaseError" not in output
    assert fake_llm.request_count == 0


def test_an_offline_run_does_not_look_at_the_cache(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """The offline judge is never cached: a damaged store is no reason to stop its run."""
    store = tmp_path / "c"
    store.write_text("not a directory")
    pytester.makepyfile(THREE_CHECKS)
    result = pytester.runpytest("-p", "no:cacheprovider", "--rag-judge=local", f"--rag-cache-dir={store}")
    result.assert_outcomes(passed=3)


def test_a_changed_model_is_not_served_the_old_models_verdicts(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_CHECKS)
    pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", judge="openai:fake-gpt"))
    pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", judge="openai:fake-gpt-2"))
    assert fake_llm.request_count == 6
    assert {r.json_body["model"] for r in fake_llm.requests} == {"fake-gpt", "fake-gpt-2"}


def test_api_keys_never_reach_the_cache_or_the_output(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.anthropic_base_url)
    pytester.makepyfile(
        THREE_CHECKS
        + """
def test_rejected_credentials(rag_judge):
    rag_judge.faithfulness("Refunds take five days.", ["unrelated"])
"""
    )
    fake_llm.script(*[verdict(4)] * 6, Reply.status(401), Reply.status(401))
    cache = tmp_path / "c"
    result = pytester.runpytest(
        "-s",
        "-v",
        "--log-level=DEBUG",
        "-rA",
        *rag_args(fake_llm, cache, judge="openai:fake-gpt,anthropic:fake-claude"),
    )
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["E*HTTP 401: the judge rejected the credentials; check *_API_KEY*"])
    output = result.stdout.str() + result.stderr.str()
    assert "Captured log call" in output and "Sending HTTP Request" in output  # SDK debug logs included
    stored = b"".join(p.read_bytes() for p in cache.rglob("*") if p.is_file())
    assert len(stored) > 0
    for key in (OPENAI_KEY, ANTHROPIC_KEY):
        assert key not in output
        assert key.encode() not in stored
        assert "DUMMYKEY" not in output and b"DUMMYKEY" not in stored
