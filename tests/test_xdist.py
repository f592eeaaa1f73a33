"""pytest-xdist: two workers share one judgment cache and the controller prints one summary of all checks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply

SEVEN_CHECKS = """
import os
import pytest

@pytest.mark.parametrize(("index", "score"), enumerate([1, 2, 3, 4, 5, 5, 0]))
def test_check(rag_judge, index, score):
    rag_judge.assert_faithful(f"The answer scores {score}.", [f"context {index}"])
"""


def first_user_message(request: RecordedRequest) -> str:
    return str(next(m["content"] for m in request.json_body["messages"] if m["role"] == "user"))


def by_answer(request: RecordedRequest) -> Reply:
    """Score = the number in the answer; 0 gets unusable text, for the request and its repair."""
    score = int(re.search(r"scores (\d)", first_user_message(request)).group(1))  # type: ignore[union-attr]
    if score == 0:
        return Reply.text("no verdict")
    return Reply.json({"reasoning": "as asked", "unsupported_statements": [], "score": score})


def summary_block(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    starts = [i for i, ln in enumerate(lines) if "pytest-rag summary" in ln]
    assert len(starts) == 1, "exactly one summary, printed by the controller"
    return lines[starts[0] + 1 : starts[0] + 6]


def test_two_workers_share_one_cache_and_one_summary(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.responder = by_answer
    pytester.makepyfile(SEVEN_CHECKS)
    args = ["-n", "2", "-p", "no:syrupy", "-p", "no:anyio", *rag_args(fake_llm, tmp_path / "shared-cache")]
    first = pytester.runpytest_subprocess(*args)
    first.assert_outcomes(passed=3, failed=3, errors=1)  # scores 1, 2, 3 fail; the judge error is an error
    assert fake_llm.request_count == 8  # six verdicts, one unusable reply and its repair
    block = summary_block(first)
    row = r"faithfulness\s+openai:fake-gpt\s+1-5\s+6\s+3\.33\s+\[\d\.\d\d, \d\.\d\d\]\s+50% \(3/6\)\s+1$"
    assert re.match(row, block[1]), block
    assert block[3].startswith("judge calls: 8 live, 0 cached"), block
    assert block[4].startswith("judge errors: 1 (1 JudgeError)"), block

    second = pytester.runpytest_subprocess(*args)
    second.assert_outcomes(passed=3, failed=3, errors=1)
    assert fake_llm.request_count == 10  # only the judge error is asked again: errors are never stored
    again = summary_block(second)
    assert again[1] == block[1]  # identical n, mean, interval and pass rate
    assert again[3].startswith("judge calls: 2 live, 6 cached"), again


CRASHING = """
import os
from pathlib import Path

import pytest

LOG = Path(__file__).parent / "ran.log"


def check(rag_judge, name, count):
    for i in range(count):
        rag_judge.assert_faithful(f"{name} answer {i}", ["Refunds take five days."], threshold=3)
    with LOG.open("a") as log:  # which worker finished which test, with how many checks
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'serial')} {name} {count}\\n")


@pytest.mark.parametrize(("name", "count"), [("alpha", 2), ("beta", 1), ("gamma", 2), ("delta", 1)])
def test_judged(rag_judge, name, count):
    check(rag_judge, name, count)


def test_z_crashes(rag_judge):  # last: it goes to a worker that has finished tests
    rag_judge.assert_faithful("the crashing test's answer", ["Refunds take five days."], threshold=3)
    with LOG.open("a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'serial')} CRASH 1\\n")
    os._exit(1)
"""


def test_a_crashed_worker_says_how_many_records_it_lost_and_that_a_rerun_is_free(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """A worker that dies hands none of its records over: the judgments were made and billed, the
    summary showed only the other worker's checks, and nothing said that records were lost. The
    controller now counts the checks each worker's reports made and says what a crash took."""
    pytester.makepyfile(CRASHING)
    report = tmp_path / "results.json"
    args = ["-p", "no:syrupy", "-p", "no:anyio", *rag_args(fake_llm, tmp_path / "cache")]
    crashed = pytester.runpytest_subprocess(*args, "-n", "2", f"--rag-report={report}")
    assert crashed.ret == pytest.ExitCode.TESTS_FAILED
    assert fake_llm.request_count == 7  # every check was judged, the crashing test's one included
    ran = [line.split() for line in (pytester.path / "ran.log").read_text().splitlines()]
    (dead,) = [worker for worker, name, _ in ran if name == "CRASH"]
    finished = {name: int(count) for worker, name, count in ran if worker == dead and name != "CRASH"}
    lost = sum(finished.values())
    assert lost > 0, ran  # the crashing test is the last one: its worker had finished others
    crashed.stdout.re_match_lines(
        [
            rf"pytest-rag: at least {lost} check record\(s\) lost: worker {dead} crashed before handing "
            rf"over its records \(the {lost} its finished tests reported, and any the test it was running "
            r"made\); the summary, gates and results files leave them out; their judgments are in the "
            r"judgment cache .*so rerunning those tests pays for none of them",
        ]
    )
    kept = 6 - lost  # the other worker's checks are the summary's
    assert re.search(rf"faithfulness\s+openai:fake-gpt\s+1-5\s+{kept}\s", crashed.stdout.str())
    run = json.loads(report.read_text())["run"]
    assert run["records_lost"] == {"checks": lost, "workers": [dead], "at_least": True}

    rerun = pytester.runpytest_subprocess(*args, "-k", " or ".join(finished))
    rerun.assert_outcomes(passed=len(finished))
    assert fake_llm.request_count == 7  # the lost checks' judgments were all in the cache
    assert "record(s) lost" not in rerun.stdout.str()
