"""Case files collected by pytest: one test per case, judged offline or by an LLM judge, with the
selection, markers, locations, reports and runs of any test."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply

APP = """
import pytest

PASSAGES = {
    "refunds.md#1": "Refunds are processed within five business days of approval.",
    "fees.md#1": "Refunds are free of charge. Exchanges are not free of charge: a fee of 5 EUR applies.",
}

ANSWERS = {
    "How long do refunds take?": ("Refunds are processed within five business days.", ["refunds.md#1"]),
    "Where is my money sent?": ("Refunds take sixty days and are paid in cash.", ["refunds.md#1"]),
    "Is there a swimming pool?": ("I don't know; the documents do not say.", []),
    "Is it free of charge?": ("Yes.", ["fees.md#1"]),
}

@pytest.fixture
def rag_app():
    def ask(question, history):
        answer, ids = ANSWERS[question]
        return {"answer": answer, "contexts": [{"id": i, "text": PASSAGES[i]} for i in ids]}
    return ask
"""

CASES: list[dict[str, object]] = [
    {
        "id": "refund-time",
        "question": "How long do refunds take?",
        "reference": "Refunds are processed within five business days.",
        "expected_contexts": ["refunds.md#1"],
        "tags": ["smoke"],
    },
    {"id": "refund-destination", "question": "Where is my money sent?", "metrics": ["faithfulness"]},
    {"id": "pool", "question": "Is there a swimming pool?", "answerable": False, "tags": ["smoke"]},
]


def case_file(
    pytester: pytest.Pytester, rows: Sequence[Mapping[str, object]], name: str = "support.rag.jsonl"
) -> Path:
    path = pytester.path / "tests" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "conftest.py").write_text(APP, encoding="utf-8")
    case_file(pytester, CASES)
    return pytester


def test_each_case_is_a_test_named_by_its_id_and_failures_name_file_and_line(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "tests/support.rag.jsonl::refund-time PASSED*",
            "tests/support.rag.jsonl::refund-destination FAILED*",
            "tests/support.rag.jsonl::pool PASSED*",
            "*_ case refund-destination _*",
            "case 'refund-destination' (tests/support.rag.jsonl:2): 1 of 1 checks below their threshold",
            "question: Where is my money sent?",
            "answer: Refunds take sixty days and are paid in cash.",
            "faithfulness: score * on the 1-5 scale is below the threshold 4",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    summary = result.stdout.str().split("pytest-rag summary")[1]
    for row in ("abstention", "answer_relevancy", "context_recall", "faithfulness"):
        assert re.search(rf"^{row}\s+local\s", summary, re.M), row
    assert re.search(r"^passage_recall\s+computed\s", summary, re.M)  # computed, no judge asked


def test_cases_are_selected_by_id_and_by_tag_even_with_strict_markers(suite: pytest.Pytester) -> None:
    by_id = suite.runpytest("-k", "refund and not destination", "-p", "no:cacheprovider")
    by_id.assert_outcomes(passed=1, deselected=2)
    by_tag = suite.runpytest("-m", "smoke and not unreviewed", "--strict-markers", "-p", "no:cacheprovider")
    by_tag.assert_outcomes(passed=2, deselected=1)
    markers = suite.runpytest("--markers", "-p", "no:cacheprovider")
    markers.stdout.fnmatch_lines(
        ["@pytest.mark.rag_case: *", "@pytest.mark.generated: *", "@pytest.mark.unreviewed: *"]
    )


def test_a_case_file_without_a_rag_app_fixture_says_how_to_write_one(pytester: pytest.Pytester) -> None:
    case_file(pytester, CASES[:1], "cases.rag.jsonl")
    result = pytester.runpytest("tests", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*case files need a rag_app fixture in conftest.py*docs/cases.md*"])


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [CASES[0], {"id": "x", "question": "q?", "metrics": ["faithfulnes"]}],
            "tests/bad.rag.jsonl:2: field 'metrics': unknown metric 'faithfulnes'",
        ),
        (
            [CASES[0], {"id": "x", "question": "q?", "thresholds": {"recall[nope]": 1}}],
            "tests/bad.rag.jsonl:2: field 'thresholds': metric 'context_recall' has no mode 'nope'",
        ),
        (
            [CASES[0], {"id": "x", "quesiton": "q?"}],
            "tests/bad.rag.jsonl:2: field 'quesiton': is not a case field",
        ),
    ],
)
def test_a_bad_case_file_is_one_collection_error_naming_it(
    suite: pytest.Pytester, rows: list[dict[str, object]], message: str
) -> None:
    case_file(suite, rows, "bad.rag.jsonl")
    result = suite.runpytest("tests/bad.rag.jsonl", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting tests/bad.rag.jsonl*", message + "*"])
    assert "Traceback" not in result.stdout.str()


def test_every_problem_of_a_case_file_is_named_in_one_run_in_line_order(suite: pytest.Pytester) -> None:
    rows: list[dict[str, object]] = [
        CASES[0],
        {"id": "blank", "question": "  "},
        {"id": "typo", "question": "q?", "metrics": ["faithfulnes"]},  # found after reading, still named
        {"id": CASES[0]["id"], "question": "the same id again"},
        {"id": "fine", "question": "q?"},
    ]
    case_file(suite, rows, "bad.rag.jsonl")
    result = suite.runpytest("tests/bad.rag.jsonl", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting tests/bad.rag.jsonl*",
            "tests/bad.rag.jsonl:2: field 'question': the text is empty",
            "tests/bad.rag.jsonl:3: field 'metrics': unknown metric 'faithfulnes'*",
            f"tests/bad.rag.jsonl:4: field 'id': '{CASES[0]['id']}' is also the id of the case on line 1",
        ]
    )
    assert "bad.rag.jsonl:5" not in result.stdout.str()


CONVERSATION = {
    "id": "exchange-chat",
    "turns": [
        {"user": "Can I exchange a gift?", "assistant": "Yes, gifts can be exchanged within 30 days."},
        {"user": "Is it free of charge?"},
    ],
}


def test_a_conversation_asks_the_app_with_the_history_and_the_summary_rows_name_the_turn(
    suite: pytest.Pytester,
) -> None:
    case_file(suite, [CONVERSATION], "chat.rag.jsonl")
    result = suite.runpytest("tests/chat.rag.jsonl", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    # "it" is the exchange of the first turn, which is not free: the bare "yes" is caught
    result.stdout.fnmatch_lines(
        [
            "case 'exchange-chat' (tests/chat.rag.jsonl:1): 1 of 4 checks below their threshold",
            "turn 2: question: Is it free of charge?",
            "turn_faithfulness: score 1 on the 1-5 scale is below the threshold 4",
            "*restates a context sentence with the negation reversed*",
        ]
    )
    summary = result.stdout.str().split("pytest-rag summary")[1]
    for row in ("conversation_consistency", "knowledge_retention", "turn_faithfulness", "turn_relevancy"):
        assert re.search(rf"^{row}\[turn 2\]\s+local\s", summary, re.M), row
    assert "[turn 1]" not in summary  # the first turn's answer is fixed by the case: history, not judged


def test_a_recorded_conversation_is_judged_turn_by_turn_without_an_app(pytester: pytest.Pytester) -> None:
    recorded = {
        "id": "recorded",
        "turns": [
            {"user": "My order number is 4521.", "assistant": "Thanks, I found order 4521.", "contexts": []},
            {
                "user": "When does it arrive?",
                "assistant": "Order 4517 arrives in 5 days.",
                "contexts": [{"text": "Standard delivery takes 5 days."}],
            },
        ],
        "metrics": ["knowledge_retention", "conversation_consistency"],
    }
    case_file(pytester, [recorded], "recorded.rag.jsonl")
    result = pytester.runpytest("tests", "-p", "no:cacheprovider", "--rag-report", "out.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["turn 2: answer: Order 4517 arrives in 5 days.", "knowledge_retention: score 0 *"]
    )
    rows = json.loads((pytester.path / "out.json").read_text())["checks"]
    keys = {(row["check"], row["metric"], row["score"]) for row in rows}
    assert keys == {
        ("tests/recorded.rag.jsonl::recorded[turn 2]", "knowledge_retention", 0),
        ("tests/recorded.rag.jsonl::recorded[turn 2]", "conversation_consistency", 0),
    }


PYTHON_TEST = """
from pytest_rag.cases.parametrize import case_params

@case_params("support.rag.jsonl")
def test_support(case, rag_judge, rag_app):
    rag_judge.assert_case(case, rag_app)

@case_params("support.rag.jsonl")
def test_support_with_my_own_call(case, rag_judge):
    if case.answerable:
        rag_judge.assert_case(case, answer="Refunds are processed within five business days.",
                              contexts=[{"id": "refunds.md#1",
                                         "text": "Refunds are processed within five business days of approval."}])
"""


def test_a_python_test_parametrized_over_a_case_file_runs_the_same_checks(suite: pytest.Pytester) -> None:
    (suite.path / "tests" / "test_support.py").write_text(PYTHON_TEST, encoding="utf-8")
    result = suite.runpytest("tests/test_support.py", "-v", "-p", "no:cacheprovider", "-m", "not nothing")
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(
        [
            "tests/test_support.py::test_support[[]refund-time[]] PASSED*",
            "tests/test_support.py::test_support[[]refund-destination[]] FAILED*",
            "tests/test_support.py::test_support[[]pool[]] PASSED*",
        ]
    )
    assert suite.runpytest("tests/test_support.py", "-m", "smoke", "-p", "no:cacheprovider").ret == 0


def test_an_llm_judge_judges_cases_through_the_cache_and_replays_them(
    suite: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    def by_template(request: RecordedRequest) -> Reply:
        system = request.json_body["messages"][0]["content"]
        if "attempts to answer" in system:
            return Reply.json({"reasoning": "it declines", "attempted": False})
        return Reply.json(
            {
                "reasoning": "fine",
                "unsupported_statements": [],
                "off_topic_or_missing": [],
                "missing_facts": [],
                "score": 5,
            }
        )

    fake_llm.responder = by_template
    args = rag_args(fake_llm, tmp_path / "cache")
    first = suite.runpytest(*args)
    first.assert_outcomes(passed=3)
    asked = fake_llm.request_count
    # refund-time: faithfulness, relevancy, recall (passage recall asks no judge); destination:
    # faithfulness; pool: abstention
    assert asked == 5
    replayed = suite.runpytest(*args, "--rag-cache=replay")
    replayed.assert_outcomes(passed=3)
    assert fake_llm.request_count == asked
    replayed.stdout.fnmatch_lines(["passage_recall*100% (1/1)*", "judge calls: 0 live, 5 cached, 0 offline*"])


def test_a_dry_run_skips_the_cases_it_counted(
    suite: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    result = suite.runpytest(*rag_args(fake_llm, tmp_path / "cache"), "--rag-dry-run", "-rs")
    result.assert_outcomes(skipped=3)
    assert fake_llm.request_count == 0
    result.stdout.fnmatch_lines(
        [
            "dry run: 5 check(s) not judged*",
            "SKIPPED [[]*] tests/support.rag.jsonl:*: --rag-dry-run: * not judged*",
        ]
    )


def test_case_scores_can_be_snapshotted(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\ntestpaths = tests\nrag_case_snapshot = true\n")
    case_file(suite, CASES[:1])
    suite.runpytest("-p", "no:cacheprovider", "--snapshot-update").assert_outcomes(passed=1)
    snapshot = suite.path / "tests" / "__snapshots__" / "support.rag.ambr"
    stored = snapshot.read_text()
    assert "# name: refund-time" in stored and stored.count("pytest-rag score") == 4  # one per check
    suite.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    snapshot.write_text(stored.replace("score: 5", "score: 2", 1))  # as if faithfulness had scored 2 before
    drifted = suite.runpytest("-p", "no:cacheprovider")
    drifted.assert_outcomes(failed=1)
    drifted.stdout.fnmatch_lines(["*faithfulness by local: score rose from 2 to 5 on the 1-5 scale*"])


def test_case_items_run_on_xdist_workers_and_one_summary_counts_them_all(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "--rag-report", "out.json")
    result.assert_outcomes(passed=2, failed=1)
    rows = json.loads((suite.path / "out.json").read_text())["checks"]
    assert sorted({row["check"] for row in rows}) == [
        "tests/support.rag.jsonl::pool",
        "tests/support.rag.jsonl::refund-destination",
        "tests/support.rag.jsonl::refund-time",
    ]
    assert len(rows) == 6


EXAMPLES = Path(__file__).resolve().parents[1] / "conftest_examples"


def test_the_example_suite_with_its_case_files_is_green(pytester: pytest.Pytester) -> None:
    """The README's first command: the example's Python tests, its hand-written case file and the
    generated one it reviewed, all judged offline."""
    result = pytester.runpytest(
        str(EXAMPLES / "tests" / "rag"), "-p", "no:cacheprovider", "--rootdir", str(EXAMPLES), "-v"
    )
    result.assert_outcomes(passed=22, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "*tests/rag/generated.rag.jsonl::numbers-email-requests-answered-hours PASSED*",
            "*tests/rag/support.rag.jsonl::versions-chat PASSED*",
        ]
    )
