"""Options, ini keys and environment variables: where the judge, its URL and the thresholds come from.

The order is command line, then environment, then ini, then the default; bad values are usage errors
that name the option and the fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FAITHFUL_TEST, rag_args, relevancy_verdict, verdict
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from pytest_rag.errors import ConfigError
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.judges.spec import parse_judge_specs
from pytest_rag.metrics.catalog import metric_names

KNOWN = {"openai", "anthropic", "ollama", "local"}

SHOW_JUDGES = """
def test_show(rag_judge):
    print("JUDGES=" + "|".join(rag_judge.judges))
"""

OPTIONS = (
    "--rag-judge",
    "--rag-judge-base-url",
    "--rag-judge-repeat",
    "--rag-cache",
    "--rag-cache-dir",
    "--rag-concurrency",
    "--rag-timeout",
    "--rag-deadline",
    "--rag-max-attempts",
    "--rag-max-tokens",
    "--rag-no-summary",
    "--rag-batch",
    "--rag-batch-poll",
    "--rag-batch-timeout",
)


# -- judge specs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("openai:gpt-4o", [JudgeSpec("openai", "gpt-4o")]),
        ("anthropic:claude-sonnet-4-5", [JudgeSpec("anthropic", "claude-sonnet-4-5")]),
        ("ollama:llama3.1:8b", [JudgeSpec("ollama", "llama3.1:8b")]),
        ("local", [JudgeSpec("local", "")]),
        ("OpenAI:gpt-4o", [JudgeSpec("openai", "gpt-4o")]),
        (
            " openai:gpt-4o , anthropic:claude-haiku-4-5 ,local",
            [
                JudgeSpec("openai", "gpt-4o"),
                JudgeSpec("anthropic", "claude-haiku-4-5"),
                JudgeSpec("local", ""),
            ],
        ),
    ],
)
def test_judge_specs_parse(text: str, expected: list[JudgeSpec]) -> None:
    assert parse_judge_specs(text, known_providers=KNOWN) == expected


def test_the_base_url_is_attached_to_every_spec() -> None:
    specs = parse_judge_specs("openai:a,openai:b", known_providers=KNOWN, base_url="http://h/v1")
    assert {s.base_url for s in specs} == {"http://h/v1"}


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        parse_judge_specs("openai:gpt-4o,gemini:pro", known_providers=KNOWN)
    message = str(info.value)
    assert "unknown judge provider 'gemini'" in message
    assert "anthropic, local, ollama, openai" in message


@pytest.mark.parametrize(("text", "problem"), [(" , ", "names no judge"), ("local,local", "listed twice")])
def test_empty_and_duplicate_specs_are_refused(text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        parse_judge_specs(text, known_providers=KNOWN)


# -- help -------------------------------------------------------------------------------------------


def help_entries(lines: list[str]) -> dict[str, str]:
    """The pytest-rag group of ``--help``: option name -> its help text, wrapped lines joined."""
    start = next(i for i, ln in enumerate(lines) if ln.startswith("pytest-rag:"))
    entries: dict[str, str] = {}
    current = ""
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        if line.startswith("  --"):
            head, _, rest = line.strip().partition(" ")
            current = head.split("=")[0]
            entries[current] = rest.strip()
        else:
            entries[current] = (entries[current] + " " + line.strip()).strip()
    return entries


def test_help_lists_every_option_with_its_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    assert result.ret == 0
    entries = help_entries(result.stdout.lines)
    assert set(OPTIONS) <= set(entries)
    for option, text in entries.items():
        assert len(text.split()) >= 4, f"{option} has no real help: {text!r}"
    for option, text in entries.items():  # every option of the group, those of later issues included
        assert len(text) <= 110, f"{option} help is longer than a line's worth: {text!r}"
    text = result.stdout.str()
    assert "rag_judge (string)" in text and "rag_threshold_faithfulness" in text
    assert "PYTEST_RAG_JUDGE" in entries["--rag-judge"]  # the README names it: so does --help


def test_the_command_tells_its_version() -> None:
    import subprocess
    import sys
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-m", "pytest_rag.cli", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"pytest-rag {version('pytest-rag')}"


# -- where the judge comes from ---------------------------------------------------------------------


def judges_shown(result: pytest.RunResult) -> str:
    (line,) = [ln for ln in result.stdout.lines if "JUDGES=" in ln]
    return line.split("JUDGES=", 1)[1].split()[0]


def test_the_default_judge_is_local(pytester: pytest.Pytester, judge_env: None) -> None:
    pytester.makepyfile(SHOW_JUDGES)
    result = pytester.runpytest("-s", "-p", "no:cacheprovider")
    assert judges_shown(result) == "local"


def test_ini_then_env_then_command_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, judge_env: None
) -> None:
    pytester.makeini("[pytest]\nrag_judge = openai:from-ini\n")
    pytester.makepyfile(SHOW_JUDGES)
    assert judges_shown(pytester.runpytest("-s")) == "openai:from-ini"
    monkeypatch.setenv("PYTEST_RAG_JUDGE", "anthropic:from-env")
    assert judges_shown(pytester.runpytest("-s")) == "anthropic:from-env"
    result = pytester.runpytest("-s", "--rag-judge=ollama:from-cli,local")
    assert judges_shown(result) == "ollama:from-cli|local"


@pytest.mark.parametrize("given", ["--rag-judge=", "--rag-judge= "])
def test_an_empty_judge_option_is_a_usage_error_not_the_default_judge(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, judge_env: None, given: str
) -> None:
    monkeypatch.setenv("PYTEST_RAG_JUDGE", "anthropic:from-env")  # not used either: the option was given
    pytester.makepyfile(SHOW_JUDGES)
    result = pytester.runpytest(given)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: pytest-rag: --rag-judge (command line) is empty; name a judge (local, openai:gpt-4o, ...)*"]
    )


def test_an_unknown_provider_is_a_usage_error_that_says_where_it_came_from(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, judge_env: None
) -> None:
    monkeypatch.setenv("PYTEST_RAG_JUDGE", "gemini:pro")
    pytester.makepyfile(SHOW_JUDGES)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-rag: PYTEST_RAG_JUDGE (environment): unknown judge provider 'gemini'*"
            "known providers: anthropic, local, *ollama, openai*"
        ]
    )


# -- base URL ---------------------------------------------------------------------------------------


def test_base_url_from_openai_base_url(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.openai_base_url)
    fake_llm.script(verdict(5))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest("--rag-judge=openai:fake-gpt", f"--rag-cache-dir={tmp_path / 'c'}")
    assert result.ret == 0
    assert fake_llm.request_count == 1


def test_the_base_url_option_wins_over_the_environment(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    fake_llm.script(verdict(5))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(
        "--rag-judge=openai:fake-gpt",
        f"--rag-judge-base-url={fake_llm.openai_base_url}",
        f"--rag-cache-dir={tmp_path / 'c'}",
    )
    assert result.ret == 0
    assert fake_llm.request_count == 1


def test_an_anthropic_judge_reaches_the_server_of_the_base_url_option(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, judge_env: None, tmp_path: Path
) -> None:
    fake_llm.script(verdict(5))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(
        "--rag-judge=anthropic:fake-claude",
        f"--rag-judge-base-url={fake_llm.anthropic_base_url}",
        f"--rag-cache-dir={tmp_path / 'c'}",
        "--rag-timeout=5",
    )
    assert result.ret == 0, result.stdout.str()
    assert [r.api for r in fake_llm.requests] == ["anthropic"]


def test_openai_base_url_from_the_environment_does_not_reach_anthropic_judges(
    pytester: pytest.Pytester, judge_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    config = pytester.parseconfigure("--rag-judge=anthropic:claude-x,openai:gpt-x")
    from pytest_rag.plugin import rag_session

    anthropic_judge, openai_judge = rag_session(config).judges()
    assert anthropic_judge.identity()["base_url"] == "https://api.anthropic.com"
    assert openai_judge.identity()["base_url"] == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("openai:llama3@http://gpu:8000/v1/", [JudgeSpec("openai", "llama3", "http://gpu:8000/v1")]),
        (
            "openai:m@HTTPS://h/v1,anthropic:claude-3-5-sonnet@20240620",
            [JudgeSpec("openai", "m", "HTTPS://h/v1"), JudgeSpec("anthropic", "claude-3-5-sonnet@20240620")],
        ),
    ],
)
def test_a_spec_can_carry_its_own_url(text: str, expected: list[JudgeSpec]) -> None:
    assert parse_judge_specs(text, known_providers=KNOWN) == expected


def test_a_judge_url_beats_the_run_wide_one() -> None:
    specs = parse_judge_specs(
        "openai:a@http://mine/v1,openai:b", known_providers=KNOWN, base_url="http://all/v1"
    )
    assert [s.base_url for s in specs] == ["http://mine/v1", "http://all/v1"]


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("--rag-judge=local@http://h:1/v1",), "runs in-process and talks to no server"),
        (
            ("--rag-judge=local", "--rag-judge-base-url=http://h:1/v1"),
            "no judge of this run talks to a server",
        ),
        (
            ("--rag-judge=openai:a@http://h:2/v1,local", "--rag-judge-base-url=http://h:1/v1"),
            "every judge of this run that talks to a server names its own URL (openai:a)",
        ),
        (
            ("--rag-judge=openai:a,anthropic:b", "--rag-judge-base-url=http://h:1/v1"),
            "judges of different providers (anthropic, openai)",
        ),
    ],
)
def test_a_base_url_no_judge_can_use_is_a_start_up_error(
    pytester: pytest.Pytester, judge_env: None, args: tuple[str, ...], problem: str
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert problem in result.stderr.str()
    assert "--rag-judge-base-url" in result.stderr.str() or "remove the @URL" in result.stderr.str()


def test_a_run_wide_url_serves_the_remote_judges_of_an_ensemble_with_the_offline_one(
    pytester: pytest.Pytester, judge_env: None
) -> None:
    config = pytester.parseconfigure("--rag-judge=local,openai:m", "--rag-judge-base-url=http://h:1/v1/")
    from pytest_rag.plugin import rag_session

    local, remote = rag_session(config).judges()
    assert local.offline
    assert remote.identity()["base_url"] == "http://h:1/v1"


# -- ensembles --------------------------------------------------------------------------------------


def by_provider(request: RecordedRequest) -> Reply:
    """OpenAI judges say 2, Anthropic judges say 4."""
    score = 4 if request.api == "anthropic" else 2
    return Reply.json({"reasoning": request.api, "unsupported_statements": [], "score": score})


def test_an_ensemble_asks_every_judge_and_reports_the_median(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_llm.responder = by_provider  # each judge reaches the fake server by its own @URL (rag_args)
    pytester.makepyfile(
        """
        def test_both(rag_judge):
            result = rag_judge.faithfulness("Paris.", ["Paris is the capital."])
            print("RESULT", result.judge, result.score, [(j.judge, j.score) for j in result.judges])
        """
    )
    result = pytester.runpytest(
        "-s", *rag_args(fake_llm, tmp_path / "c", judge="openai:fake-gpt,anthropic:fake-claude")
    )
    assert result.ret == 0
    expected = (
        "RESULT ensemble(openai:fake-gpt,anthropic:fake-claude) 3.0 "
        "[('openai:fake-gpt', 2.0), ('anthropic:fake-claude', 4.0)]"
    )
    assert expected in result.stdout.str()
    assert "never awaited" not in result.stdout.str()
    assert sorted(r.api for r in fake_llm.requests) == ["anthropic", "openai"]


# -- thresholds -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ini", "expected_outcome"), [("4", "failed"), ("2", "passed")])
def test_ini_threshold_of_a_metric(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, ini: str, expected_outcome: str
) -> None:
    pytester.makeini(f"[pytest]\nrag_threshold_faithfulness = {ini}\n")
    fake_llm.script(verdict(3))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(**{expected_outcome: 1})


def test_a_threshold_per_call_wins_over_the_ini(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makeini("[pytest]\nrag_threshold_faithfulness = 2\nrag_thresholds =\n    answer_relevancy = 5\n")
    fake_llm.script(verdict(3), relevancy_verdict(4), relevancy_verdict(4))
    pytester.makepyfile(
        """
        def test_per_call(rag_judge):
            rag_judge.assert_faithful("Paris.", ["Paris is the capital."], threshold=4)

        def test_lines_form(rag_judge):
            rag_judge.assert_relevant("Paris.", "What is the capital?")

        def test_lines_form_overridden(rag_judge):
            rag_judge.assert_relevant("Paris.", "What is the capital?", threshold=4)
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(["*faithfulness: score 3 on the 1-5 scale is below the threshold 4*"])
    result.stdout.fnmatch_lines(["*answer_relevancy: score 4 on the 1-5 scale is below the threshold 5*"])


def test_every_threshold_metric_has_an_ini_key(pytester: pytest.Pytester) -> None:
    text = pytester.runpytest("--help").stdout.str()
    missing = [name for name in metric_names() if f"rag_threshold_{name}" not in text]
    assert not missing
    assert "rag_threshold_overall_score" in text  # computed, not judged, but it takes a threshold


PLUGIN_METRIC = """
from pydantic import BaseModel

from pytest_rag.metrics.base import Metric, Scale, Scored


class Brevity(Metric):
    name = "brevity"
    scale = Scale(0, 1)
    default_threshold = 0.2
    required = ("answer",)

    async def score(self, ask, sample, options):
        return Scored(score=1.0 if len(sample.answer.split()) <= 5 else 0.0)


def pytest_rag_metrics():
    return [Brevity]
"""


def test_a_plugin_metric_gets_its_own_threshold_ini_key(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PLUGIN_METRIC)
    pytester.makeini("[pytest]\nrag_threshold_brevity = 0.9\nrag_thresholds =\n    overall_score = 0.1\n")
    pytester.makepyfile(
        """
        def test_long(rag_judge):
            result = rag_judge.score("brevity", answer="This answer goes on for far too many words.")
            assert result.threshold == 0.9 and result.passed is False

        def test_overall(rag_judge):
            result = rag_judge.overall_score([rag_judge.score("brevity", answer="Short.")])
            assert result.threshold == 0.1
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-W", "error::pytest.PytestConfigWarning")
    result.assert_outcomes(passed=2)
    assert "rag_threshold_brevity" in pytester.runpytest("--help").stdout.str()


# -- bad values are usage errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ini", "args", "expected"),
    [
        (
            "rag_concurrency = zero",
            (),
            "*rag_concurrency (ini file tox.ini) must be a whole number, got 'zero'*",
        ),
        ("rag_timeout = 0", (), "*rag_timeout (ini file tox.ini) must be at least 0.001*"),
        (
            "rag_cache = sometimes",
            (),
            "*unknown cache mode 'sometimes'*use one of rw, ro, replay, refresh, off*",
        ),
        (
            "rag_thresholds =\n    faithfulness 4",
            (),
            "*rag_thresholds (ini file tox.ini): the line 'faithfulness 4' is malformed*",
        ),
        ("", ("--rag-judge-repeat=0",), "*--rag-judge-repeat (command line) must be at least 1*"),
        ("", ("--rag-cache=sometimes",), "*invalid choice: 'sometimes'*"),
    ],
)
def test_bad_values_are_usage_errors(
    pytester: pytest.Pytester, judge_env: None, ini: str, args: tuple[str, ...], expected: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(SHOW_JUDGES)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])


# -- repeats, the offline default and ollama --------------------------------------------------------


def test_repeats_are_separate_judgments_scored_by_their_median(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(verdict(2), verdict(5), verdict(4))
    pytester.makepyfile(
        """
        def test_repeated(rag_judge):
            result = rag_judge.faithfulness("Paris.", ["Paris is the capital."])
            print("REPEATS", result.score, sorted(result.judges[0].repeats), result.spread)
        """
    )
    args = ["-s", *rag_args(fake_llm, tmp_path / "c", "--rag-judge-repeat=3")]
    pytester.runpytest(*args).stdout.fnmatch_lines(["*REPEATS 4.0 [[]2.0, 4.0, 5.0] 3.0*"])
    assert fake_llm.request_count == 3
    pytester.runpytest(*args).stdout.fnmatch_lines(["*REPEATS 4.0 [[]2.0, 4.0, 5.0] 3.0*"])
    assert fake_llm.request_count == 3  # each repeat has its own cache entry


def test_the_offline_default_needs_no_key_and_writes_no_cache(
    pytester: pytest.Pytester, judge_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    pytester.makepyfile(
        """
        def test_offline(rag_judge):
            result = rag_judge.faithfulness(
                "Refunds take five business days.", ["Refunds are processed within five business days."]
            )
            assert result.judge == "local" and result.calls.offline == 1 and 1 <= result.score <= 5
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'c'}")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["judge calls: 0 live, 0 cached, 1 offline*"])
    assert not (tmp_path / "c").exists()


def test_ollama_judges_talk_to_the_local_ollama_server_without_a_key(
    pytester: pytest.Pytester, judge_env: None
) -> None:
    config = pytester.parseconfigure("--rag-judge=ollama:llama3.1")
    from pytest_rag.plugin import rag_session

    (judge,) = rag_session(config).judges()
    assert judge.spec.label == "ollama:llama3.1"
    assert judge.identity() == {
        "provider": "ollama",
        "model": "llama3.1",
        "base_url": "http://localhost:11434/v1",
    }


@pytest.mark.parametrize(
    ("host", "args", "expected"),
    [
        ("gpu-box:11434", (), "http://gpu-box:11434/v1"),
        # Ollama's own reading: no scheme means http, and no port its port 11434 (0.0.0.0 is what its
        # FAQ tells a server to bind, so the variable often holds just that)
        ("0.0.0.0", (), "http://0.0.0.0:11434/v1"),
        ("gpu-box/", (), "http://gpu-box:11434/v1"),
        (":8080", (), "http://127.0.0.1:8080/v1"),
        ("[::1]", (), "http://[::1]:11434/v1"),
        ("http://gpu-box", (), "http://gpu-box/v1"),
        ("https://ollama.internal/", (), "https://ollama.internal/v1"),
        ("", ("--rag-judge-base-url=http://ollama.example:11434/v1",), "http://ollama.example:11434/v1"),
    ],
)
def test_a_remote_ollama_is_reached_through_ollama_host_or_the_base_url(
    pytester: pytest.Pytester,
    judge_env: None,
    monkeypatch: pytest.MonkeyPatch,
    host: str,
    args: tuple[str, ...],
    expected: str,
) -> None:
    if host:
        monkeypatch.setenv("OLLAMA_HOST", host)
    config = pytester.parseconfigure("--rag-judge=ollama:llama3.1", *args)
    from pytest_rag.plugin import rag_session

    (judge,) = rag_session(config).judges()
    assert judge.identity()["base_url"] == expected


def test_the_readme_option_table_names_every_ini_key(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    keys = {
        line.split()[0]
        for line in result.stdout.lines
        if line.strip().startswith("rag_") and not line.strip().startswith("rag_threshold_")
    }
    assert {"rag_judge", "rag_thresholds", "rag_snapshot_default"} <= keys
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    table = [line for line in readme.splitlines() if line.startswith("|")]
    missing = sorted(key for key in keys if not any(f"`{key}`" in row for row in table))
    assert missing == []
