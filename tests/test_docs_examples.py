"""The getting-started example, run as a user would run it: default (offline) judge, default
thresholds, in a fresh pytest session."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, Reply

DOCS = Path(__file__).resolve().parent.parent / "docs"

GETTING_STARTED = """
def test_refund_answer(rag_judge):
    contexts = ["Refunds are processed within 5 business days of approval."]
    answer = "You get your refund within 5 business days once it is approved."
    rag_judge.assert_faithful(answer, contexts)              # default threshold 4
    rag_judge.assert_relevant(answer, "How long do refunds take?")
    rag_judge.assert_context_recall(answer, "Refunds take 5 business days.")


def test_changed_number_is_caught(rag_judge):
    contexts = ["Refunds are processed within 5 business days of approval."]
    rag_judge.assert_faithful("You get your refund within 30 business days once it is approved.", contexts)
"""


def test_getting_started_example_passes_with_the_default_judge(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_example=GETTING_STARTED)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'cache'}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_changed_number_is_caught*", "*numbers not in the contexts: 30*"])


def _python_blocks(markdown: str, section: str) -> list[str]:
    body = markdown.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


def test_the_plugin_metric_of_extending_md_runs_as_written(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    conftest, test = _python_blocks((DOCS / "extending.md").read_text(encoding="utf-8"), "A metric")
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_tone=test)
    fake_llm.script(Reply.json({"reasoning": "curt", "rude_phrases": ["Refunds take 5 days."], "score": 2}))
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "cache"), "--rag-report", str(tmp_path / "r.json")
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*politeness: score 2 on the 1-5 scale is below the threshold 4*"])
    row = json.loads((tmp_path / "r.json").read_text())["checks"][0]
    assert row["highlights"]["statements"] == ["Refunds take 5 days."]


def test_the_xfail_pattern_of_getting_started_is_caught_or_an_error_never_green(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The documented ``xfail(strict=True)`` test is an expected failure when the judge judges, and an
    error (a failing run, with the documented note) when it cannot: here an OpenAI judge without a key."""
    (snippet,) = _python_blocks(
        (DOCS / "getting-started.md").read_text(encoding="utf-8"), "When the judge cannot judge"
    )
    pytester.makepyfile(test_caught=snippet)
    judged = pytester.runpytest("-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'cache'}")
    judged.assert_outcomes(xfailed=1)
    assert judged.ret == pytest.ExitCode.OK
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    unjudged = pytester.runpytest(
        "-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'cache'}", "--rag-judge=openai:gpt-4o"
    )
    unjudged.assert_outcomes(errors=1)
    assert unjudged.ret == pytest.ExitCode.TESTS_FAILED
    unjudged.stdout.fnmatch_lines(
        ["*JudgeUnavailableError*OPENAI_API_KEY is not set*", "*this test is marked xfail (a hallucinated*"]
    )


def test_the_example_suite_without_a_key_is_a_failing_run_without_xfailed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's first command with an LLM judge and no key: every test is an error, none is an
    expected failure, and the run fails."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    examples = DOCS.parent / "conftest_examples"
    result = pytester.runpytest_subprocess(
        str(examples / "tests" / "rag"),
        f"--rootdir={examples}",
        "-c",
        str(examples / "pytest.ini"),
        "-p",
        "no:cacheprovider",
        "--rag-judge=openai:gpt-4o",
        f"--rag-cache-dir={pytester.path / 'cache'}",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "xfailed" not in result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) >= 9  # the Python tests, and the case files' cases besides
    assert not {"passed", "failed", "xfailed", "xpassed", "skipped"} & set(outcomes), outcomes


def test_the_async_example_of_getting_started_runs_without_pytest_asyncio(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """The documented marker is anyio's, whose plugin comes with the SDKs: the snippet runs as written
    in a run where pytest-asyncio (and its auto mode) is absent."""
    (snippet,) = _python_blocks((DOCS / "getting-started.md").read_text(encoding="utf-8"), "Async tests")
    pytester.makepyfile(test_async_doc=snippet)
    result = pytester.runpytest(
        "-p", "no:asyncio", "-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'cache'}", "-v"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_refunds_async*[[]asyncio[]] PASSED*"])
    assert "not natively supported" not in result.stdout.str()


def test_the_install_section_installs_what_exists() -> None:
    """The package index has no pytest-rag yet: the first command a reader copies must work."""
    install = (DOCS / "getting-started.md").read_text(encoding="utf-8").split("## Install\n", 1)[1]
    install = install.split("\n## ", 1)[0]
    (block,) = re.findall(r"```bash\n(.*?)```", install, flags=re.S)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert "pip install pytest-rag" not in commands
    assert any(command.startswith("pip install -e ") for command in commands)
    assert "not on the Python package index yet" in install
