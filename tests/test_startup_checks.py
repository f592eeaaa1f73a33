"""Configuration is validated once, at start-up: a wrong setting is one usage-error line naming the
setting and where it came from (command line, environment, ini file), exit status 4, no test run.

Before, a judge spec without a model printed 510 lines and 9 tracebacks, an unknown provider or a
threshold typo printed its message once per test, and an unknown ``rag_threshold_*`` ini key only got
pytest's unknown-option warning while the default bar stayed in place.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from conftest import FAITHFUL_TEST

EXTENSION_CONFTEST = """
from pytest_rag.judges.protocol import JudgeReply

class MyJudge:
    offline = True
    cacheable = False

    def __init__(self, spec, options):
        self.spec = spec

    def identity(self):
        return {"provider": "mycorp"}

    async def complete(self, request):
        return JudgeReply(text='{"reasoning": "ok", "unsupported_statements": [], "score": 5}')

    async def aclose(self):
        pass

def pytest_rag_judge_providers():
    return {"mycorp": MyJudge}
"""


def only_usage_error(result: pytest.RunResult) -> str:
    """The one line of a usage error; nothing collected or run."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, result.stderr.lines
    assert "collected" not in result.stdout.str() and "Traceback" not in result.stderr.str()
    return errors[0]


@pytest.mark.parametrize(
    ("args", "env", "ini", "expected"),
    [
        (
            ["--rag-judge=openai"],
            {},
            "",
            "--rag-judge (command line): judge 'openai' names no model; write openai:MODEL, e.g. openai:gpt-4o",
        ),
        (
            ["--rag-judge=local,anthropic"],
            {},
            "",
            "*judge 'anthropic' names no model; write anthropic:MODEL*",
        ),
        (
            [],
            {},
            "rag_judge = ollama",
            "rag_judge (ini file tox.ini): judge 'ollama' names no model; write ollama:MODEL*",
        ),
        (
            [],
            {"PYTEST_RAG_JUDGE": "bogus"},
            "",
            "PYTEST_RAG_JUDGE (environment): unknown judge provider 'bogus'*known providers: *openai*",
        ),
        (["--rag-judge=foo:bar"], {}, "", "--rag-judge (command line): unknown judge provider 'foo'*"),
        (["--rag-judge=local:minilm"], {}, "", "*'local:minilm' names a model 'local' does not have*"),
        (
            ["--rag-judge=openai:m@ftp://user:hunter2@judges.example/v1"],
            {},
            "",
            "--rag-judge (command line): judge 'openai:m' is given the URL 'ftp://judges.example/v1'; "
            "a judge's base URL starts with http:// or https://*",
        ),
        (
            ["--rag-judge=openai:m", "--rag-judge-base-url=http://user:hunter2@judges.example:port/v1"],
            {},
            "",
            "--rag-judge-base-url (command line): the base URL's address 'judges.example:port' has a "
            "port that is not a number*",
        ),
        (["--rag-judge=openai:m@http:///v1"], {}, "", "*the base URL 'http:///v1' names no host*"),
        (
            ["--rag-judge=openai:m", "--rag-judge-base-url=ftp://user:hunter2@judges.example/v1"],
            {},
            "",
            "--rag-judge-base-url (command line): the base URL 'ftp://judges.example/v1' does not start "
            "with http:// or https://*",
        ),
        (
            ["--rag-judge=openai:m", "--rag-judge-base-url=http://[::1/v1"],
            {},
            "",
            "--rag-judge-base-url (command line): the base URL 'http://[[]::1/v1' cannot be read (*)*",
        ),
        (["--rag-judge=openai:m@http://[::1/v1"], {}, "", "--rag-judge (command line): *cannot be read*"),
        (
            ["--rag-judge=openai:m", "--rag-judge-base-url=http://u:hunter2@[::1/v1?api_key=hunter2#hunter2"],
            {},
            "",
            "--rag-judge-base-url (command line): the base URL 'http://[[]::1/v1' cannot be read (*)*",
        ),
        (
            ["--rag-judge=local", "--rag-judge-base-url=http://127.0.0.1:9/v1"],
            {},
            "",
            "--rag-judge-base-url (command line) is set to*no judge of this run talks to a server*",
        ),
        (
            [],
            {},
            "rag_threshold_faithfulnes = 4",
            "rag_threshold_faithfulnes (ini file tox.ini) *; did you mean rag_threshold_faithfulness?",
        ),
        (
            [],
            {},
            "rag_threshold_faithfulness = 7",
            "*rag_threshold_faithfulness (ini file tox.ini) = 7 is outside the metric's 1-5 scale*from 1 to 5",
        ),
        (
            [],
            {},
            "rag_thresholds =\n    faithfulness[claims] = 4",
            "*rag_thresholds (ini file tox.ini): faithfulness[[]claims] = 4 is outside the metric's 0-1 scale*",
        ),
        (
            [],
            {},
            "rag_thresholds =\n    faithfulness[nope] = 0.5",
            "*metric 'faithfulness' has no mode 'nope'; its modes: claims, default",
        ),
        (
            [],
            {},
            "rag_thresholds =\n    answer_relevancy = four",
            "rag_thresholds (ini file tox.ini): answer_relevancy must be a number, got 'four'",
        ),
        (
            ["--rag-fail-under=faithfulnes=4"],
            {},
            "",
            "--rag-fail-under (command line) faithfulnes=4: 'faithfulnes' is not a registered metric; "
            "did you mean 'faithfulness'?",
        ),
        (
            [],
            {},
            "rag_fail_under =\n    faithfulness[claims] = 4",
            "*rag_fail_under (ini file tox.ini) faithfulness[[]claims]=4 is outside the metric's 0-1 scale*",
        ),
        ([], {}, "rag_cache = sometimes", "rag_cache (ini file tox.ini): unknown cache mode 'sometimes'*"),
        ([], {}, "rag_prices =\n    gpt-4o = cheap", "*rag_prices line 'gpt-4o = cheap' is malformed*"),
        (
            [],
            {},
            "rag_concurrency = 1.5",
            "rag_concurrency (ini file tox.ini) must be a whole number, got '1.5'",
        ),
        # A misspelt ini key got only pytest's unknown-option warning and the run fell back to the
        # default judge, green; a misspelt case metric failed every case alike, none naming the
        # setting; a bad true/false value got pytest's "invalid truth value" without the key; a
        # missing baseline or gold file failed the run only at its end.
        (
            [],
            {},
            "rag_judgee = openai:gpt-4o",
            "rag_judgee (ini file tox.ini) is not a pytest-rag setting; did you mean rag_judge?",
        ),
        (
            ["-orag_judge_base=http://127.0.0.1:9/v1"],
            {},
            "",
            "rag_judge_base (-o on the command line) is not a pytest-rag setting; did you mean rag_judge_base_url?",
        ),
        (
            [],
            {"PYTEST_RAG_JUGDE": "openai:gpt-4o"},
            "",
            "PYTEST_RAG_JUGDE (environment) is not a pytest-rag variable; did you mean PYTEST_RAG_JUDGE?",
        ),
        (
            [],
            {"PYTEST_RAG_CACHE": "replay"},
            "",
            "PYTEST_RAG_CACHE (environment) is not a pytest-rag variable; the only setting pytest-rag reads "
            "from the environment is PYTEST_RAG_JUDGE: set rag_cache in the ini file, or give the option in "
            "PYTEST_ADDOPTS",
        ),
        (
            [],
            {},
            "rag_case_metrics = faithfulness relevancy_answer",
            "rag_case_metrics (ini file tox.ini): 'relevancy_answer' is not a registered metric; "
            "did you mean 'answer_relevancy'?",
        ),
        (
            [],
            {},
            "rag_case_turn_metrics = turn_faithfulness faithfulness[clams]",
            "rag_case_turn_metrics (ini file tox.ini): metric 'faithfulness' has no mode 'clams'; "
            "its modes: claims, default",
        ),
        (
            [],
            {},
            "rag_case_snapshot = yes please",
            "rag_case_snapshot (ini file tox.ini) must be true or false (also 1/0, yes/no, on/off): "
            "*'yes please'*",
        ),
        (
            [],
            {},
            "rag_dry_run = sometimes",
            "rag_dry_run (ini file tox.ini) must be true or false*'sometimes'*",
        ),
        (
            ["-orag_batch=perhaps"],
            {},
            "",
            "rag_batch (-o on the command line) must be true or false*'perhaps'*",
        ),
        (
            [],
            {},
            "rag_snapshot_default = maybe",
            "rag_snapshot_default (ini file tox.ini) must be true or false*'maybe'*",
        ),
        (
            [],
            {},
            "rag_baseline = missing.json",
            "rag_baseline (ini file tox.ini): */missing.json does not exist; save one with --rag-report on "
            "the reference run",
        ),
        (
            ["--rag-gold=gold"],
            {},
            "",
            "--rag-gold (command line): */gold does not exist; write the gold labels*",
        ),
    ],
)
def test_a_bad_setting_is_one_usage_error_line(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    judge_env: None,
    args: list[str],
    env: dict[str, str],
    ini: str,
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(FAITHFUL_TEST, test_two=FAITHFUL_TEST)
    line = only_usage_error(pytester.runpytest("-p", "no:cacheprovider", *args))
    assert line.startswith("ERROR: pytest-rag: ")
    assert "hunter2" not in line  # a password in a URL is never quoted
    pytester_line = pytest.LineMatcher([line.removeprefix("ERROR: pytest-rag: ")])
    pytester_line.fnmatch_lines([expected])


def test_files_the_run_would_write_at_its_end_are_checked_before_it_starts(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    a_file = tmp_path / "plain.txt"
    a_file.write_text("not a directory")
    line = only_usage_error(pytester.runpytest(f"--rag-report={a_file / 'results.json'}"))
    assert f"--rag-report (command line): {a_file} is a file" in line
    line = only_usage_error(pytester.runpytest(f"--rag-html={tmp_path}"))
    assert f"--rag-html (command line): {tmp_path} is a directory" in line


def test_every_ini_key_of_the_help_is_known(pytester: pytest.Pytester) -> None:
    """The check of unknown keys reads the keys pytest-rag registered: each of them is accepted."""
    pytester.makepyfile("def test_nothing():\n    pass\n")
    keys = [
        line.split()[0]
        for line in pytester.runpytest("--help").stdout.lines
        if line.strip().startswith("rag_")
    ]
    assert len(keys) > 30
    result = pytester.runpytest("-p", "no:cacheprovider", *(f"-o{key}=" for key in keys))
    assert "is not a pytest-rag setting" not in result.stderr.str()  # an empty true/false is refused


def _a_folder_no_one_can_write() -> Path:
    """/sys refuses new files to root too (permission bits do not stop root; a kernel file system
    does), so the check is the same whoever runs the tests."""
    folder = Path("/sys")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return folder
    pytest.skip("no folder that refuses files to this user (a Linux /sys)")


@pytest.mark.parametrize(
    ("option", "named"),
    [
        ("--rag-report={path}.json", "--rag-report (command line)"),
        ("--rag-html={path}.html", "--rag-html (command line)"),
        ("--rag-cache-export={path}.jsonl", "--rag-cache-export (command line)"),
        ("-orag_report={path}.csv", "rag_report (-o on the command line)"),
    ],
)
def test_an_output_folder_that_cannot_be_written_is_found_at_start_up(
    pytester: pytest.Pytester, option: str, named: str
) -> None:
    """An unwritable report folder was found only at the end of the run, after every judge was paid."""
    pytester.makepyfile(FAITHFUL_TEST)
    folder = _a_folder_no_one_can_write()
    path = folder / "pytest-rag-out" / "results"
    line = only_usage_error(pytester.runpytest("-p", "no:cacheprovider", option.format(path=path)))
    assert line.startswith(f"ERROR: pytest-rag: {named}: {path}")
    assert f"cannot be written: no file can be made in {folder} (nor {path.parent} made in it) (" in line
    assert line.endswith("; give a path in a folder you can write to")


def test_a_missing_output_folder_that_can_be_made_is_made(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    report = tmp_path / "new" / "deeper" / "results.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rag-report={report}")
    result.assert_outcomes(passed=1)
    assert report.is_file()


def test_a_plugin_provider_is_still_accepted(pytester: pytest.Pytester, judge_env: None) -> None:
    pytester.makeconftest(EXTENSION_CONFTEST)
    pytester.makepyfile(
        """
        def test_judges(rag_judge):
            assert rag_judge.judges == ["mycorp:v1"]
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--rag-judge=mycorp:v1")
    result.assert_outcomes(passed=1)


def test_a_plugin_metric_threshold_is_checked_on_its_scale(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_rag.metrics.base import Metric, Scale, Scored

        class Loudness(Metric):
            name = "loudness"
            scale = Scale(0, 10)
            required = ("answer",)

            async def score(self, ask, sample, options):
                return Scored(score=sum(c.isupper() for c in sample.answer))

        def pytest_rag_metrics():
            return [Loudness]
        """
    )
    pytester.makepyfile("def test_nothing():\n    pass\n")
    pytester.makeini("[pytest]\nrag_threshold_loudness = 5\n")
    assert pytester.runpytest("-p", "no:cacheprovider").ret == pytest.ExitCode.OK
    pytester.makeini("[pytest]\nrag_threshold_loudness = 50\n")
    line = only_usage_error(pytester.runpytest("-p", "no:cacheprovider"))
    assert "rag_threshold_loudness (ini file tox.ini) = 50 is outside the metric's 0-10 scale" in line
