"""A green run means every check was judged: a check that ends without a verdict makes its test an
error, whatever marks it carries and whatever the test made of the exception.

The non-verdicts here are a replay-cache miss (no judge is asked, nothing is stored) and a call the
offline judge refuses before judging (no contexts); the ways a test could hide them are the ones a
user writes: ``xfail`` (strict or not), ``pytest.raises`` around the check, ``try``/``except``, an
``evaluate()`` table that is never looked at.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import pytest_rag
from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag.errors import RagError

MISS = 'rag_judge.assert_faithful("Refunds take 5 days.", ["Refunds take 5 business days."])'
REFUSED = 'rag_judge.assert_faithful("Refunds take 5 days.", [])'

HIDING = {
    "plain": "def test_it(rag_judge):\n    {check}\n",
    "xfail strict": (
        "@pytest.mark.xfail(strict=True, reason='a hallucination must be caught')\n"
        "def test_it(rag_judge):\n    {check}\n"
    ),
    "xfail": "@pytest.mark.xfail(reason='flaky judge')\ndef test_it(rag_judge):\n    {check}\n",
    "raises AssertionError": (
        "def test_it(rag_judge):\n    with pytest.raises(AssertionError):\n        {check}\n"
    ),
    "raises Exception": "def test_it(rag_judge):\n    with pytest.raises(Exception):\n        {check}\n",
    "try/except": "def test_it(rag_judge):\n    try:\n        {check}\n    except Exception:\n        pass\n",
    "imperative xfail": (
        "def test_it(rag_judge):\n    try:\n        {check}\n    except Exception:\n"
        "        pytest.xfail('judged elsewhere')\n"
    ),
}


def replay_args(server: FakeLLMServer, tmp_path: Path) -> list[str]:
    """An OpenAI judge served from an empty replay store: every check is a cache miss."""
    return [*rag_args(server, tmp_path / "empty-store"), "--rag-cache=replay", "-p", "no:cacheprovider"]


def suite(body: str) -> str:
    return "import pytest\n\n" + body


@pytest.mark.parametrize("hiding", sorted(HIDING))
def test_a_cache_miss_is_an_error_however_the_test_hides_it(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, hiding: str
) -> None:
    pytester.makepyfile(suite(HIDING[hiding].format(check=MISS)))
    result = pytester.runpytest(*replay_args(fake_llm, tmp_path), "-rA")
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "xfailed" not in result.stdout.str() and "XFAIL" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*CacheMissError*", "ERROR test_*::test_it*"])
    result.stdout.fnmatch_lines(["*1 test(s) reported as errors: a check ended without a verdict*"])
    assert fake_llm.requests == []


@pytest.mark.parametrize("hiding", ["xfail strict", "raises Exception", "try/except"])
def test_a_call_refused_before_judging_is_an_error_too(pytester: pytest.Pytester, hiding: str) -> None:
    pytester.makepyfile(suite(HIDING[hiding].format(check=REFUSED)))
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*InputError: faithfulness needs retrieved contexts*"])


def test_an_xfail_test_says_why_its_mark_did_not_apply(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(suite(HIDING["xfail strict"].format(check=MISS)))
    result = pytester.runpytest(*replay_args(fake_llm, tmp_path))
    result.stdout.fnmatch_lines(
        [
            "*ERROR at call of test_it*",
            "*CacheMissError*",
            "*this test is marked xfail (a hallucination must be caught), but a check of it ended "
            "without a verdict*",
        ]
    )


def test_an_evaluate_table_with_error_rows_makes_its_test_an_error(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        SAMPLE = {"question": "How long?", "answer": "Five days.", "contexts": ["Five business days."]}

        def test_table(rag_judge):
            table = rag_judge.evaluate([SAMPLE, SAMPLE], metrics=["faithfulness", "no_such_metric"])
            assert len(table) == 4  # never looks at table.errors
        """
    )
    result = pytester.runpytest(*replay_args(fake_llm, tmp_path))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*4 check(s) of this test ended without a verdict:",
            "*faithfulness [[]openai:fake-gpt[]]: CacheMissError: *(x2)",
            "*ConfigError: unknown metric 'no_such_metric'* (x2)",
        ]
    )
    # nothing was raised for the test to catch: the note says what it did, without guessing
    result.stdout.fnmatch_lines(["pytest-rag: this test passed, but a check of it ended without a verdict*"])


def test_a_test_whose_checks_all_had_verdicts_keeps_its_outcome(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        CONTEXTS = ["Refunds are processed within 5 business days of approval."]

        @pytest.mark.xfail(strict=True, reason="a hallucinated answer must be caught")
        def test_caught(rag_judge):
            rag_judge.assert_faithful("Refunds take 60 days and come as store credit.", CONTEXTS)

        def test_raises(rag_judge):
            with pytest.raises(AssertionError):
                rag_judge.assert_faithful("Refunds take 60 days and come as store credit.", CONTEXTS)

        def test_passes(rag_judge):
            rag_judge.assert_faithful("Refunds are processed within 5 business days.", CONTEXTS)
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, xfailed=1)
    assert result.ret == pytest.ExitCode.OK


def test_the_junit_xml_shows_an_error_not_a_skip_or_failure(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(suite(HIDING["xfail strict"].format(check=MISS)))
    xml_path = tmp_path / "junit.xml"
    pytester.runpytest(*replay_args(fake_llm, tmp_path), f"--junitxml={xml_path}")
    suite_node = ET.parse(xml_path).getroot().find("testsuite")
    assert suite_node is not None
    assert (suite_node.get("errors"), suite_node.get("failures"), suite_node.get("skipped")) == (
        "1",
        "0",
        "0",
    )
    case = suite_node.find("testcase")
    assert case is not None
    assert [child.tag for child in case if child.tag != "properties"] == ["error"]
    assert "CacheMissError" in (case.find("error").get("message") or "")  # type: ignore[union-attr]


def test_errors_survive_pytest_xdist(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        test_a=suite(HIDING["xfail strict"].format(check=MISS)),
        test_b=suite(HIDING["try/except"].format(check=MISS)),
    )
    xml_path = tmp_path / "junit.xml"
    result = pytester.runpytest_subprocess(
        *replay_args(fake_llm, tmp_path), "-n", "2", "-p", "no:syrupy", "-rA", f"--junitxml={xml_path}"
    )
    result.assert_outcomes(errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*2 test(s) reported as errors*"])
    suite_node = ET.parse(xml_path).getroot().find("testsuite")
    assert suite_node is not None and suite_node.get("errors") == "2"


def test_dry_run_skips_stay_skips_and_are_counted(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(suite(HIDING["plain"].format(check=MISS)))
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "store"), "--rag-dry-run")
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*1 test(s) skipped: --rag-dry-run counted their checks, none judged*"])


def test_no_error_of_pytest_rag_is_an_assertion_error() -> None:
    """``pytest.raises(AssertionError)`` and ``xfail(raises=AssertionError)`` must never take a judge
    error, a cache miss or a bad input for a failed check."""
    for module in pkgutil.walk_packages(pytest_rag.__path__, "pytest_rag."):
        try:
            importlib.import_module(module.name)
        except ImportError:  # an optional extra (the NLI model runtimes) that is not installed
            continue
    errors: list[type[BaseException]] = []
    todo: list[type[BaseException]] = [RagError]
    while todo:
        cls = todo.pop()
        errors.append(cls)
        todo.extend(cls.__subclasses__())
    assert len(errors) > 10
    assert [e.__name__ for e in errors if issubclass(e, AssertionError)] == []


def test_the_report_attribute_is_the_one_the_plugin_reads() -> None:
    import pytest_rag.plugin
    import pytest_rag.run.unjudged

    assert pytest_rag.run.unjudged.NO_VERDICT in inspect.getsource(pytest_rag.plugin.pytest_report_teststatus)


def test_a_judge_that_cannot_be_built_makes_every_test_an_error_in_one_line(
    pytester: pytest.Pytester,
) -> None:
    """A plugin's provider is first checked when its judge is built, by the rag_judge fixture: its
    configuration error is each test's set-up error (one line, no traceback), xfail or not."""
    pytester.makeconftest(
        """
        from pytest_rag.errors import ConfigError

        def broken(spec, options):
            raise ConfigError(f"mycorp judges need MYCORP_REGION; set it for {spec.label}")

        def pytest_rag_judge_providers():
            return {"mycorp": broken}
        """
    )
    pytester.makepyfile(
        suite(
            HIDING["plain"].format(check=MISS)
            + "\n"
            + HIDING["xfail strict"].format(check=MISS).replace("test_it", "test_xfail")
        )
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--rag-judge=mycorp:v1")
    result.assert_outcomes(errors=2)
    told = "pytest-rag: mycorp judges need MYCORP_REGION; set it for mycorp:v1"
    # Once per test in the ERRORS section (the short summary, on by default since pytest 9, repeats it
    # after "ERROR <test> - ", which is not a line of its own).
    assert [line for line in result.stdout.lines if line == told] == [told, told]
    assert "Traceback" not in result.stdout.str() and "def rag_judge" not in result.stdout.str()
