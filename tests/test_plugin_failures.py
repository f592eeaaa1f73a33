"""What a user reads when a judged check fails, when the judge fails, and what the run exits with."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from conftest import FAITHFUL_TEST, rag_args, verdict
from fake_llm import FakeLLMServer, Reply

UNGROUNDED = """
def test_ungrounded(rag_judge):
    rag_judge.assert_faithful(
        "The product launched in 1999 and costs $40.",
        ["The product launched in 2004."],
    )
"""


def test_a_failing_check_explains_itself(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(
        verdict(
            2,
            "The launch year contradicts the context and the price is not mentioned.",
            unsupported_statements=["The product launched in 1999", "costs $40"],
        )
    )
    pytester.makepyfile(UNGROUNDED)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "E*RagAssertionError: faithfulness: score 2 on the 1-5 scale is below the threshold 4",
            "E*judge: openai:fake-gpt (live verdict)",
            "E*reasons: The launch year contradicts the context and the price is not mentioned.",
            "E*unsupported statements:",
            "E*- The product launched in 1999",
            "E*- costs $40",
        ]
    )
    # the second run tells the reader the verdict was replayed from the cache
    again = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    again.stdout.fnmatch_lines(["E*judge: openai:fake-gpt (verdict from the cache)"])
    assert fake_llm.request_count == 1


def test_the_failure_points_at_the_test_line_not_plugin_internals(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(verdict(1))
    pytester.makepyfile(UNGROUNDED)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    text = result.stdout.str()
    assert "test_the_failure_points_at_the_test_line_not_plugin_internals.py:2: RagAssertionError" in text
    assert "rag_judge.py:" not in text


def test_a_passing_run_exits_zero_and_summarises(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(verdict(5), verdict(4))
    pytester.makepyfile(
        FAITHFUL_TEST
        + """
def test_second(rag_judge):
    result = rag_judge.faithfulness("Paris.", ["Paris is the capital of France."])
    assert result.score == 4 and result.normalized == 0.75 and result.passed
"""
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*= pytest-rag summary =*",
            "metric*judge*scale*n*mean*95% CI*pass rate*errors",
            "faithfulness*openai:fake-gpt*1-5*2*4.50*100% (2/2)*0",
            "",
            "judge calls: 2 live, 0 cached, 0 offline; tokens: * in, * out*",
        ]
    )


UNPARSEABLE = """
def test_garbled(rag_judge):
    rag_judge.assert_faithful("Paris.", ["Paris is the capital."])
"""


def test_unparseable_twice_fails_the_test_and_is_counted_as_a_judge_error(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.text("Looks fine to me!"), Reply.text("Honestly, a 5."))
    pytester.makepyfile(UNPARSEABLE)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "E*JudgeError: [[]faithfulness by openai:fake-gpt] invalid verdict after one repair attempt*",
            "E*--- raw judge reply ---",
            "E*Honestly, a 5.",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "faithfulness*openai:fake-gpt*1-5*0*-*-*-*1",
            "",
            # both replies cost tokens, and neither gave a verdict: both are failed requests
            "judge calls: 2 live, 0 cached, 0 offline; requests: 2 sent, 2 failed (2 invalid), 0 retried;"
            " tokens: * in, * out*",
            "*judge errors: 1 (1 JudgeError); excluded from the means above",
        ]
    )


def test_one_repair_that_succeeds_gives_a_score(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.text('{"reasoning": "ok", "unsupported_statements": [], "score": '), verdict(5))
    pytester.makepyfile(UNPARSEABLE)
    report = tmp_path / "r.json"
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", f"--rag-report={report}"))
    result.assert_outcomes(passed=1)
    assert fake_llm.request_count == 2
    assert "judge errors" not in result.stdout.str()
    # the repair saved the check, but the first reply was still a request that gave no verdict
    result.stdout.fnmatch_lines(
        ["judge calls: 2 live, *; requests: 2 sent, 1 failed (1 invalid), 0 retried;*"]
    )
    (check,) = json.loads(report.read_text())["checks"]
    assert (check["attempts"], check["failures"]) == (2, {"invalid": 1})


def test_rate_limit_then_success_passes(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.status(429, retry_after=0.05), Reply.status(429, retry_after=0.05), verdict(5))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(passed=1)
    assert fake_llm.request_count == 3


def test_server_errors_past_max_attempts_fail_naming_the_fault(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(*[Reply.status(500)] * 2)
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-max-attempts=2"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["E*JudgeError:*gave up after 2 attempt(s)*HTTP 500 from openai:fake-gpt*"])
    result.stdout.fnmatch_lines(["*judge errors: 1 (1 JudgeError)*"])


def test_a_timeout_fails_the_test(pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.delay(3, verdict(5)))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "c", "--rag-timeout=0.3", "--rag-max-attempts=1")
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["E*JudgeError:*gave up after 1 attempt(s)*request timed out*"])


def test_a_refusal_fails_the_test_and_never_passes(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.refusal("I can't help with grading this."))
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["E*JudgeError:*the judge refused: I can't help with grading this.*"])


def test_a_reasoning_model_rejecting_temperature_is_asked_again_without_it(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.reject_param("temperature", "unsupported_value"), verdict(5), verdict(5))
    pytester.makepyfile(
        FAITHFUL_TEST
        + """
def test_another(rag_judge):
    rag_judge.assert_faithful("Shipping is free.", ["Shipping costs nothing."])
"""
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", judge="openai:o4-mini"))
    result.assert_outcomes(passed=2)
    temperatures = ["temperature" in r.json_body for r in fake_llm.requests]
    assert temperatures == [True, False, False]


def test_input_errors_fail_with_what_to_pass(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_no_context(rag_judge):
            rag_judge.faithfulness("Paris.", [])

        def test_unknown_metric(rag_judge):
            rag_judge.score("faithfullness", answer="x")

        def test_no_threshold(rag_judge):
            rag_judge.assert_score("faithfulness", answer="x", contexts="y", mode="nope")
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        ["E*InputError: faithfulness needs retrieved contexts; pass contexts=[[]...]"]
    )
    result.stdout.fnmatch_lines(
        ["E*ConfigError: unknown metric 'faithfullness'; did you mean 'faithfulness'?"]
    )
    result.stdout.fnmatch_lines(
        ["E*ConfigError: metric 'faithfulness' has no mode 'nope'; its modes: *default*"]
    )
    assert fake_llm.request_count == 0


def test_bars_off_the_scale_and_unknown_arguments_fail_before_any_judge_is_asked(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_above(rag_judge):
            rag_judge.assert_faithful("Paris.", ["Paris is the capital."], threshold=7)

        def test_below_a_rubric(rag_judge):
            rag_judge.assert_rubric("Paris.", rubric={1: "wrong", 3: "right"}, threshold=0.5)

        def test_typo(rag_judge):
            rag_judge.assert_faithful("Paris.", ["Paris is the capital."], treshold=4)

        def test_unknown_option(rag_judge):
            rag_judge.score("faithfulness", answer="Paris.", contexts=["Paris."], mode="claims", batch_sise=3)

        def test_option_of_another_mode(rag_judge):
            rag_judge.score("faithfulness", answer="Paris.", contexts=["Paris."], batch_sise=3)

        def test_blank_context(rag_judge):
            rag_judge.faithfulness("Paris.", "")
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(errors=6)
    result.stdout.fnmatch_lines(
        [
            "E*InputError: faithfulness: threshold=7 is outside the metric's 1-5 scale, so the check "
            "could never pass; give a threshold from 1 to 5",
            "E*InputError: rubric: threshold=0.5 is outside the metric's 1-3 scale, so the check could "
            "never fail; give a threshold from 1 to 3",
            "E*InputError: assert_faithful(): got an unexpected keyword argument 'treshold' (did you mean "
            "threshold= instead of treshold=?). It takes assert_faithful(answer, contexts, threshold=None, [*], "
            "mode=None*)",
            "E*InputError: faithfulness got unknown option(s) [[]'batch_sise'[]] (did you mean 'batch_size'?)*",
            "E*InputError: faithfulness got unknown option(s) [[]'batch_sise'[]] (did you mean 'batch_size'? "
            "batch_size is an option of faithfulness[[]claims[]]: give mode='claims'); the options it reads: "
            "answer_kind",
            "E*InputError: faithfulness needs retrieved contexts; pass contexts=[[]...[]]",
        ],
        consecutive=False,
    )
    assert fake_llm.request_count == 0
    # bad input is the caller's error, not a judgment: nothing to count in the summary
    assert "pytest-rag summary" not in result.stdout.str()


def test_a_missing_api_key_fails_with_the_way_out(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, judge_env: None, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    pytester.makepyfile(FAITHFUL_TEST)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--rag-judge=openai:gpt-4o", f"--rag-cache-dir={tmp_path / 'c'}"
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["E*OPENAI_API_KEY is not set*--rag-cache=replay*--rag-judge=local*"])


THIRTY_CHECKS = """
import pytest

@pytest.mark.parametrize("i", range(30))
def test_answer(rag_judge, i):
    rag_judge.assert_faithful(f"Paris is the capital, says answer {i}.", ["Paris is the capital of France."])
"""

ENGINE_FRAMES = ("engine/", "concurrent/futures", "session.py", "check_plan.py", "metrics/")


def test_thirty_checks_without_a_key_explain_it_once_and_stay_short(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, judge_env: None, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    pytester.makepyfile(THIRTY_CHECKS)
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--rag-judge=openai:gpt-4o",
        f"--rag-cache-dir={tmp_path / 'c'}",
    )
    result.assert_outcomes(errors=30)
    text = result.stdout.str()
    assert text.count("OPENAI_API_KEY") <= 3
    assert len(result.stdout.lines) < 200
    assert not any(frame in text for frame in ENGINE_FRAMES)
    # every later check points at the first, in one line, and is still counted as an error; counted
    # in the failures section only, since pytest cuts the short summary's lines to the terminal's
    # width everywhere except on CI (where the CI variable is set)
    failures_section = text.split("short test summary info")[0]
    assert failures_section.count("see the first failing check of it, test_thirty_checks") == 29
    result.stdout.fnmatch_lines(["*judge errors: 30 (30 JudgeUnavailableError)*"])
    # without a key no request leaves the machine: none is counted as sent, or as failed
    result.stdout.fnmatch_lines(["judge calls: 0 live, 0 cached, 0 offline; tokens: 0 in, 0 out"])
    assert "requests:" not in text


def test_a_refused_connection_names_the_address_and_is_not_retried(
    pytester: pytest.Pytester, judge_env: None, tmp_path: Path
) -> None:
    pytester.makepyfile(THIRTY_CHECKS.replace("range(30)", "range(3)"))
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    behind_a_login = f"http://user:hunter2@127.0.0.1:{port}/v1"  # the password is never shown
    report = tmp_path / "results.json"
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        f"--rag-judge=openai:m@{behind_a_login}",
        f"--rag-cache-dir={tmp_path / 'c'}",
        f"--rag-report={report}",
    )
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [f"E*JudgeUnavailableError: *cannot reach {url}:*Check the base URL (--rag-judge-base-url*"]
    )
    assert "hunter2" not in result.stdout.str() + result.stderr.str() + report.read_text()
    # one attempt in all: the later checks knew the judge was unusable
    result.stdout.fnmatch_lines(["*requests: 1 sent, 1 failed (1 unavailable), 0 retried*"])


@pytest.mark.parametrize(
    ("judge", "variable", "value"),
    [
        ("ollama:m", "OLLAMA_HOST", "127.0.0.1:{port}"),
        ("openai:m", "OPENAI_BASE_URL", "http://127.0.0.1:{port}/v1"),
        ("anthropic:m", "ANTHROPIC_BASE_URL", "http://127.0.0.1:{port}"),
    ],
)
def test_an_unreachable_address_from_the_sdks_variable_names_that_variable(
    pytester: pytest.Pytester,
    judge_env: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    judge: str,
    variable: str,
    value: str,
) -> None:
    pytester.makepyfile(FAITHFUL_TEST)
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(variable, value.format(port=port))
    result = pytester.runpytest(
        "-p", "no:cacheprovider", f"--rag-judge={judge}", f"--rag-cache-dir={tmp_path}"
    )
    result.assert_outcomes(errors=1)
    # the user set no option: the hint must name the variable the address came from
    result.stdout.fnmatch_lines([f"E*JudgeUnavailableError: *cannot reach *:{port}*${variable}*"])


def test_a_replay_miss_and_an_input_error_stop_at_the_users_line(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def ask(rag_judge, answer, context):
            return rag_judge.faithfulness(answer, context)

        def test_miss(rag_judge):
            ask(rag_judge, "Paris.", ["Paris is the capital."])

        def test_bad_input(rag_judge):
            ask(rag_judge, "Paris.", [])
        """
    )
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=replay"))
    result.assert_outcomes(errors=2)
    text = result.stdout.str()
    assert not any(frame in text for frame in ENGINE_FRAMES)
    # the user's own helper is part of their code, so its line is shown too
    assert text.count("return rag_judge.faithfulness(answer, context)") == 2
    result.stdout.fnmatch_lines(["*:2: CacheMissError", "*:2: InputError"], consecutive=False)
    # --fulltrace keeps every frame, for bug reports
    full = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", "--rag-cache=replay", "--fulltrace"))
    assert "engine/judgment.py" in full.stdout.str()
