"""The end-of-run summary, and what installing pytest-rag costs a suite that never uses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FAITHFUL_TEST, rag_args, verdict
from fake_llm import FakeLLMServer

TWO_CHECKS = (
    FAITHFUL_TEST
    + """
def test_relevant(rag_judge):
    rag_judge.assert_relevant("Five business days.", "How long do refunds take?")
"""
)


def test_the_summary_has_one_row_per_metric_and_judge(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(TWO_CHECKS)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # faithfulness 3 is below its default 4
    result.stdout.fnmatch_lines(
        [
            "*= pytest-rag summary =*",
            "metric*judge*scale*n*mean*95% CI*pass rate*errors",
            "answer_relevancy*openai:fake-gpt*1-5*1*3.00*100% (1/1)*0",
            "faithfulness*openai:fake-gpt*1-5*1*3.00*0% (0/1)*0",
        ]
    )


def test_quiet_shortens_the_summary(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(TWO_CHECKS)
    result = pytester.runpytest("-q", *rag_args(fake_llm, tmp_path / "c"))
    lines = result.stdout.lines
    start = next(i for i, ln in enumerate(lines) if "pytest-rag summary" in ln)
    assert lines[start + 1 : start + 3] == [
        "answer_relevancy [openai:fake-gpt]: mean 3.00 [3.00, 3.00] n=1, pass 1/1",
        "faithfulness [openai:fake-gpt]: mean 3.00 [3.00, 3.00] n=1, pass 0/1",
    ]
    assert "judge calls:" not in result.stdout.str()
    assert "95% CI" not in result.stdout.str()


def test_no_summary_option_removes_it(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(TWO_CHECKS)
    result = pytester.runpytest("--rag-no-summary", *rag_args(fake_llm, tmp_path / "c"))
    assert fake_llm.request_count == 2
    assert "pytest-rag" not in result.stdout.str()


def test_a_run_without_judged_checks_prints_no_summary(
    pytester: pytest.Pytester, judge_env: None, tmp_path: Path
) -> None:
    pytester.makepyfile("def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rag-cache-dir={tmp_path / 'c'}")
    assert result.ret == 0
    assert "pytest-rag" not in result.stdout.str()
    assert not (tmp_path / "c").exists()


def test_summary_counts_cached_and_live_calls_and_tokens(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000, 2000\n")
    fake_llm.script(verdict(5))
    pytester.makepyfile(FAITHFUL_TEST)
    first = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    (line,) = [ln for ln in first.stdout.lines if ln.startswith("judge calls:")]
    assert line.startswith("judge calls: 1 live, 0 cached, 0 offline; tokens: ")
    assert ", est. cost $" in line  # priced from the ini table
    tokens_in = int(line.split("tokens: ")[1].split(" in")[0].replace(",", ""))
    assert tokens_in > 50  # the prompt of a real faithfulness template


HEAVY = (
    "openai",
    "anthropic",
    "numpy",
    "diskcache",
    "httpx",
    "pydantic",
    "pytest_rag.judges.local.scorer",
    "pytest_rag.stats",
    "pytest_rag.results",
    "pytest_rag.engine.judgment",
    # pytest-rag's own large modules: compiled again by every process when bytecode is not cached
    # (the snapshot extension is not here: syrupy imports the default extension at session end)
    "pytest_rag.run.session",
    "pytest_rag.run.run_end",
    # what only a run that judges, or sets more than the defaults, needs
    "pytest_rag.run.startup",
    "pytest_rag.judges.spec",
    "pytest_rag.registry",
    "pytest_rag.run.unjudged",
)

UNUSED_SUITE_CONFTEST = f"""
import json, sys
import pytest

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    loaded = sorted(name for name in {HEAVY!r} if name in sys.modules)
    with open("loaded_modules.json", "w") as handle:
        json.dump(loaded, handle)
"""


def test_a_suite_that_does_not_use_rag_judge_pays_nothing(
    pytester: pytest.Pytester, judge_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    pytester.makeconftest(UNUSED_SUITE_CONFTEST)
    pytester.makepyfile("def test_plain():\n    assert sum([1, 2]) == 3\n")
    before = {p.name for p in pytester.path.iterdir()}
    # -p no:... keeps other installed plugins from importing these modules on their own
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:anyio", "-p", "no:asyncio", "-p", "no:xdist"
    )
    assert result.ret == 0
    assert "pytest-rag" not in result.stdout.str()
    result.stdout.fnmatch_lines(["plugins:*rag-*"])  # the plugin was loaded
    loaded = json.loads((pytester.path / "loaded_modules.json").read_text())
    assert loaded == []
    harness = {"stdout", "stderr", "runpytest-0", "runpytest-current"}  # pytester's own files
    after = {p.name for p in pytester.path.iterdir()} - harness
    assert after - before == {"loaded_modules.json"}
