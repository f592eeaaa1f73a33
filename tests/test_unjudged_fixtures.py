"""Every phase of a test is held to the verdict rule, not only its call: a check without a verdict
made in a fixture's set-up or teardown, of any scope, makes a report an error and the run fail.

The judge is the fake server answering 500 to everything (the fault kit's "500 forever"), so every
check ends without a verdict; the fixtures catch the error, as a fixture that "checks what the app
produced during the test" after ``yield`` easily does. Before, the make-report hook read a test's
checks only for its call: such a teardown check left the test PASSED and the run green, while the
summary counted the judge error.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, Reply

CHECK = """
import pytest


def check(judge):
    try:
        judge.assert_faithful("Refunds take five days.", ["Refunds are processed within five days."])
    except Exception:
        pass  # the judge failed: caught, so only pytest-rag can tell
"""

FUNCTION_TEARDOWN = """
@pytest.fixture
def audited(rag_judge):
    yield
    check(rag_judge)


def test_it(audited):
    pass
"""

FUNCTION_SETUP_THEN_SKIP = """
@pytest.fixture
def prepared(rag_judge):
    check(rag_judge)
    pytest.skip("nothing to test today")


def test_it(prepared):
    pass
"""

MODULE_TEARDOWN = """
@pytest.fixture(scope="module")
def module_audit(rag_session_judge):
    yield
    check(rag_session_judge)


def test_first(module_audit):
    pass


def test_last(module_audit):
    pass
"""

SESSION_CONFTEST = """
@pytest.fixture(scope="session", autouse=True)
def session_audit(rag_session_judge):
    yield
    check(rag_session_judge)
"""


@pytest.fixture
def failing_judge(judge_env: None) -> Iterator[FakeLLMServer]:
    """A judge that answers every request with a 500 (one attempt each, so no test waits)."""
    with FakeLLMServer(lambda request: Reply.status(500)) as server:
        yield server


def run(pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, *extra: str) -> pytest.RunResult:
    args = rag_args(server, tmp_path / "cache", "--rag-max-attempts=1", "-rA", *extra)
    if "-n" in extra:
        return pytester.runpytest_subprocess(*args, "-p", "no:syrupy")
    return pytester.runpytest(*args)


def test_a_check_after_yield_in_a_function_fixture_makes_its_teardown_an_error(
    pytester: pytest.Pytester, failing_judge: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(CHECK + FUNCTION_TEARDOWN)
    xml_path = tmp_path / "junit.xml"
    result = run(pytester, failing_judge, tmp_path, f"--junitxml={xml_path}")
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_it*",
            "*1 check(s) made in the teardown of this test (its fixtures) ended without a verdict:",
            "*faithfulness [[]openai:fake-gpt[]]: JudgeError*",
            "*pytest-rag: the teardown of this test passed, but a check of it ended without a verdict*",
            "*1 test(s) reported as errors: a check ended without a verdict*",
        ]
    )
    suite = ET.parse(xml_path).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == "1"


def test_a_check_in_a_set_up_that_then_skips_is_an_error_not_a_skip(
    pytester: pytest.Pytester, failing_judge: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(CHECK + FUNCTION_SETUP_THEN_SKIP)
    result = run(pytester, failing_judge, tmp_path)
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_it*",
            "*1 check(s) made in the set-up of this test (its fixtures) ended without a verdict:",
            "*the set-up of this test was skipped, but a check of it ended without a verdict*",
        ]
    )


def test_a_module_fixtures_teardown_check_is_the_error_of_the_modules_last_test(
    pytester: pytest.Pytester, failing_judge: FakeLLMServer, tmp_path: Path
) -> None:
    """pytest tears a module's fixture down after the module's last test (whether or not that test
    uses it), and reports its teardown in that test's teardown report."""
    pytester.makepyfile(test_module=CHECK + MODULE_TEARDOWN, test_other="def test_after():\n    pass\n")
    result = run(pytester, failing_judge, tmp_path)
    result.assert_outcomes(passed=3, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_last*"])
    assert "ERROR at teardown of test_first" not in result.stdout.str()
    assert "ERROR at teardown of test_after" not in result.stdout.str()


def test_a_session_fixtures_teardown_check_is_the_error_of_the_runs_last_test(
    pytester: pytest.Pytester, failing_judge: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makeconftest(CHECK + SESSION_CONFTEST)
    pytester.makepyfile(test_a="def test_a():\n    pass\n", test_b="def test_b():\n    pass\n")
    result = run(pytester, failing_judge, tmp_path)
    result.assert_outcomes(passed=2, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_b*"])


def test_a_session_fixture_torn_down_after_pytest_exit_fails_the_run(
    pytester: pytest.Pytester, failing_judge: FakeLLMServer, tmp_path: Path
) -> None:
    """pytest.exit() stops the run inside a test; pytest then tears the session's fixtures down at
    the session's end, after the last report: no test can carry the error, so the run's end tells it
    and fails the run with it."""
    pytester.makeconftest(CHECK + SESSION_CONFTEST)
    pytester.makepyfile(
        test_a="def test_a():\n    pass\n",
        test_b="import pytest\n\ndef test_b():\n    pytest.exit('enough for today')\n",
    )
    result = run(pytester, failing_judge, tmp_path)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # pytest.exit's own status stays
    result.stdout.fnmatch_lines(
        [
            "pytest-rag: 1 check(s) made after the last test's report ended without a verdict, so no test "
            "could be made an error for them and the run fails instead: faithfulness*JudgeError*",
            "pytest-rag: session failed: 1 check(s) after the last test's report without a verdict",
        ]
    )


@pytest.mark.parametrize("scope", ["function", "module", "session"])
def test_fixture_checks_are_errors_under_pytest_xdist(
    pytester: pytest.Pytester, failing_judge: FakeLLMServer, tmp_path: Path, scope: str
) -> None:
    if scope == "session":
        pytester.makeconftest(CHECK + SESSION_CONFTEST)
        pytester.makepyfile(test_a="def test_a():\n    pass\n", test_b="def test_b():\n    pass\n")
    else:
        pytester.makepyfile(CHECK + (FUNCTION_TEARDOWN if scope == "function" else MODULE_TEARDOWN))
    result = run(pytester, failing_judge, tmp_path, "-n", "2")
    outcomes = result.parseoutcomes()
    # a session fixture is torn down once per worker that ran a test (one or both of them)
    assert outcomes.get("errors", outcomes.get("error", 0)) >= 1, result.stdout.str()
    assert "failed" not in outcomes
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*ERROR at teardown of*", "*test(s) reported as errors*"])
