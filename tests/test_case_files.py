"""Case files as data: the three formats read to the same cases, every error names file, line and
field, what an app may reply is read the same way whatever its shape, and which checks a case gets."""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_rag.cases import is_case_file
from pytest_rag.cases.app import AppReply, ask_app, reply_of
from pytest_rag.cases.checks import Exchange, case_jobs
from pytest_rag.cases.files import CaseFileError, read_cases, write_cases
from pytest_rag.cases.model import Case
from pytest_rag.check_keys import parse_metric_label, turn_position, turn_sample_id
from pytest_rag.config import CaseSettings
from pytest_rag.errors import InputError
from pytest_rag.inputs import Chunk
from pytest_rag.metrics.base import Metric
from pytest_rag.metrics.catalog import builtin_metrics, resolve_metric

ROWS = [
    {
        "id": "refund-time",
        "question": "How long do refunds take?",
        "reference": "Five business days.",
        "expected_contexts": ["refunds.md#1", {"text": "Refunds take five business days."}],
        "metrics": ["faithfulness", "context_recall[attribution]"],
        "thresholds": {"faithfulness": 5},
        "tags": ["smoke", "billing"],
    },
    {"id": "pool", "question": "Is there a pool?", "answerable": False},
]

YAML = """\
- id: refund-time
  question: How long do refunds take?
  reference: Five business days.
  expected_contexts:
    - refunds.md#1
    - text: Refunds take five business days.
  metrics: [faithfulness, "context_recall[attribution]"]
  thresholds: {faithfulness: 5}
  tags: [smoke, billing]

- id: pool
  question: Is there a pool?
  answerable: false
"""

CSV = """\
id,question,reference,expected_contexts,metrics,thresholds,tags,answerable
refund-time,How long do refunds take?,Five business days.,"[""refunds.md#1"", {""text"": ""Refunds take five business days.""}]","faithfulness, context_recall[attribution]",faithfulness=5,smoke billing,
pool,Is there a pool?,,,,,,false
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


@pytest.mark.parametrize(
    ("name", "text", "lines"),
    [
        ("cases.rag.jsonl", jsonl(ROWS), [1, 2]),
        ("cases.rag.yaml", YAML, [1, 11]),
        ("cases.rag.csv", CSV, [2, 3]),
    ],
    ids=["jsonl", "yaml", "csv"],
)
def test_the_three_formats_read_to_the_same_cases(
    tmp_path: Path, name: str, text: str, lines: list[int]
) -> None:
    cases = read_cases(write(tmp_path, name, text))
    assert [c.to_row() for c in cases] == [Case.model_validate(row).to_row() for row in ROWS]
    assert [c.line for c in cases] == lines
    assert cases[0].where == f"{tmp_path / name}:{lines[0]}"


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?"}\n\n{"id": "b", "question": "q?", "refrence": "x"}\n',
            ":3: field 'refrence': is not a case field (did you mean 'reference'? fields: id, question",
        ),
        (
            "a.rag.yaml",
            "- id: a\n  question: q?\n  tags: refunds\n",
            ':3: field \'tags\': must be a list, got str; write e.g. ["first", "second"]',
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?"}\n{"id": "b", "question": \n',
            ":2: not valid JSON at column",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "turns": [{"user": "hi"}, {"user": " "}]}\n',
            ":1: field 'turns.1.user': the user's message is empty",
        ),
        (  # a typo inside a turn is told with the turn's own fields, not the case's
            "a.rag.jsonl",
            '{"id": "a", "turns": [{"user": "hi"}, {"user": "and?", "asistant": "yes"}]}\n',
            ":1: field 'turns.1.asistant': is not a field of a turn (did you mean 'assistant'? fields: user, "
            "assistant, contexts, reference)",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "expected_contexts": [{"txt": "the policy"}]}\n',
            ":1: field 'expected_contexts.0.txt': is not a field of a passage (did you mean 'text'? fields: id, "
            "text)",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "turns": [{"user": "hi", "contexts": [{"idd": "x"}]}]}\n',
            ":1: field 'turns.0.contexts.0.idd': is not a field of a passage (did you mean 'id'?",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "turns": [{"user": "hi"}]}\n',
            ":1: a case holds either a 'question' or 'turns'",
        ),
        ("a.rag.jsonl", '{"question": "q?"}\n', ":1: field 'id': is required"),
        ("a.rag.jsonl", '{"id": "a::b", "question": "q?"}\n', "field 'id': 'a::b' cannot be a test id"),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "tags": ["not ok"]}\n',
            "field 'tags': tag 'not ok' cannot be a pytest marker",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "thresholds": {"faithfulness": "high"}}\n',
            "field 'thresholds': faithfulness: its threshold must be a number on the metric's scale, got a str ('high')",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "thresholds": {"faithfulness": NaN}}\n',
            "field 'thresholds': faithfulness: its threshold is NaN, which no score can be held to",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "metrics": []}\n',
            "field 'metrics': the list is empty; name the case's metrics, or leave the field out",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?", "metrics": ["faith fulness"]}\n',
            "field 'metrics': 'faith fulness' is not a metric name",
        ),
        (
            "a.rag.jsonl",
            '{"id": "a", "question": "q?"}\n{"id": "a", "question": "r?"}\n',
            ":2: field 'id': 'a' is also the id of the case on line 1",
        ),
        ("a.rag.jsonl", '["a", "q?"]\n', ":1: a case must be a mapping of fields, got list"),
        (
            "a.rag.yaml",
            "- id: a\n  question: q?\n- id: b\n  question: q?\n  answerable: maybe\n",
            ":5: field 'answerable'",
        ),
        ("a.rag.yaml", "- id: a\n  question: [unclosed\n", ": not valid YAML"),
        ("a.rag.yaml", "id: a\nquestion: q?\n", ":1: a YAML case file is a list of cases"),
        ("a.rag.csv", "id,question,turns\na,q?,x\n", ":1: field 'turns': does not fit in a CSV cell"),
        (
            "a.rag.csv",
            "id,question,thresholds\na,q?,faithfulness:4\n",
            ":2: field 'thresholds': 'faithfulness:4' is not METRIC=NUMBER",
        ),
        ("a.rag.csv", "id,question\na,q?\nb,q?,extra\n", ":3: the row has 3 cells but the header names 2"),
        (
            "a.rag.csv",
            "id,question,reviewed\na,q?,perhaps\n",
            ":2: field 'reviewed': 'perhaps' is not true or false",
        ),
    ],
)
def test_a_bad_case_file_is_one_error_naming_file_line_and_field(
    tmp_path: Path, name: str, text: str, where: str
) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(CaseFileError) as caught:
        read_cases(path)
    assert str(caught.value).startswith(str(path))
    assert where in str(caught.value)


def test_a_yaml_file_without_pyyaml_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_yaml(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "yaml":
            raise ImportError("No module named 'yaml'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_yaml)
    with pytest.raises(
        CaseFileError, match=r"needs PyYAML, which is not installed: pip install 'pytest-rag\[yaml\]'"
    ):
        read_cases(write(tmp_path, "a.rag.yaml", YAML))


@pytest.mark.parametrize("name", ["out.rag.jsonl", "out.rag.yaml"])
def test_written_cases_read_back_as_they_were(tmp_path: Path, name: str) -> None:
    cases = [Case.model_validate(row) for row in ROWS]
    conversation = Case.model_validate(
        {
            "id": "chat",
            "turns": [
                {"user": "Hi, I am Ana.", "assistant": "Hello Ana.", "contexts": [{"text": "Greeting."}]},
                {"user": "Refunds?"},
            ],
            "generated": {"by": "offline", "kind": "single_fact", "documents": ["a.md"], "seed": 3},
        }
    )
    write_cases(tmp_path / name, [*cases, conversation])
    again = read_cases(tmp_path / name)
    assert [c.to_row() for c in again] == [c.to_row() for c in [*cases, conversation]]
    with pytest.raises(CaseFileError, match=r"written as \.rag\.jsonl or \.rag\.yaml"):
        write_cases(tmp_path / "out.rag.csv", cases)


def test_names_of_case_files_turns_and_metric_labels() -> None:
    assert [is_case_file(n) for n in ("a.rag.jsonl", "a.rag.yml", "a.rag.csv", "a.jsonl", "rag.yaml")] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert turn_position(turn_sample_id(12)) == 12
    assert (
        turn_position("turn two") is None
        and turn_position(None) is None
        and turn_position("my turn 2") is None
    )
    assert parse_metric_label(" faithfulness[claims] ") == ("faithfulness", "claims")
    assert parse_metric_label("no_answer") == ("no_answer", None)


def test_generated_cases_carry_markers_for_review() -> None:
    base = {"id": "a", "question": "q?", "tags": ["smoke"]}
    generated = {**base, "generated": {"by": "offline", "kind": "numbers"}}
    assert Case.model_validate(base).marker_names == ["smoke"]
    assert Case.model_validate(generated).marker_names == ["smoke", "generated", "unreviewed"]
    assert Case.model_validate({**generated, "reviewed": True}).marker_names == ["smoke", "generated"]


# -- what the app replies ------------------------------------------------------------------------


@dataclass
class Document:
    page_content: str
    id: str


@dataclass
class Response:
    response: str
    source_nodes: list[Any]


@pytest.mark.parametrize(
    "reply",
    [
        ("Five days.", ["Refunds take five days."]),
        {"answer": "Five days.", "contexts": [{"text": "Refunds take five days."}]},
        {"result": "Five days.", "source_documents": [Document("Refunds take five days.", "d1")]},
        Response("Five days.", [{"content": "Refunds take five days."}]),
    ],
    ids=["tuple", "mapping", "langchain", "object"],
)
def test_every_reply_shape_reads_as_answer_and_contexts(reply: Any) -> None:
    read = reply_of(reply)
    assert read.answer == "Five days."
    assert [c.text for c in read.contexts] == ["Refunds take five days."]


def test_a_plain_string_is_an_answer_without_contexts_and_a_bad_reply_names_the_contract() -> None:
    assert reply_of("Five days.") == AppReply("Five days.")
    with pytest.raises(InputError, match=r"must return \(answer, contexts\)"):
        reply_of({"contexts": []})


def test_the_app_gets_the_history_when_it_takes_it_and_may_be_async() -> None:
    seen: list[Any] = []

    def with_history(question: str, history: list[dict[str, str]]) -> str:
        seen.append(history)
        return "yes"

    async def question_only(question: str) -> tuple[str, list[str]]:
        return "async " + question, ["c"]

    history = [{"role": "user", "content": "hi"}]
    assert ask_app(with_history, "q?", history).answer == "yes"
    assert seen == [history]
    assert ask_app(question_only, "q?", history) == AppReply("async q?", (Chunk("c"),))
    with pytest.raises(InputError, match="must return a callable"):
        ask_app("not an app", "q?", [])  # type: ignore[arg-type]


# -- which checks a case gets --------------------------------------------------------------------


def metric_class(name: str, mode: str | None) -> type[Metric]:
    """The built-in class of a metric name or short alias, as ``RagSession.metric_class`` finds it."""
    if not any(m.name == name for m in builtin_metrics()):
        name, mode = resolve_metric(name, mode)
    return next(m for m in builtin_metrics() if (m.name, m.mode) == (name, mode or "default"))


def checks_of(case: Case, reply: AppReply, settings: CaseSettings | None = None) -> list[str]:
    exchange = Exchange(case.question or "", reply, reference=case.reference)
    jobs = case_jobs(case, [exchange], settings or CaseSettings(), metric_class)
    return [f"{check.metric}={check.threshold}" for check, _ in jobs]


WITH_CONTEXTS = AppReply("Five days.", (Chunk("Refunds take five days.", id="r1"),))


def test_default_metrics_apply_where_the_case_and_reply_hold_what_they_need() -> None:
    bare = Case(id="a", question="How long?")
    assert checks_of(bare, WITH_CONTEXTS) == ["faithfulness=None", "answer_relevancy=None"]
    assert checks_of(bare, AppReply("Five days.")) == ["answer_relevancy=None"]
    full = Case.model_validate(  # as a case file's row gives it: a context named by its id alone
        {
            "id": "b",
            "question": "How long?",
            "reference": "Five days.",
            "expected_contexts": ["r1"],
            "thresholds": {"faithfulness": 5},
        }
    )
    assert checks_of(full, WITH_CONTEXTS) == [
        "faithfulness=5.0",
        "answer_relevancy=None",
        "context_recall=None",
        "passage_recall=None",
    ]
    unanswerable = Case(id="c", question="Is there a pool?", answerable=False)
    assert checks_of(unanswerable, WITH_CONTEXTS) == ["abstention=None"]
    assert checks_of(bare, WITH_CONTEXTS, CaseSettings(metrics=("hallucination",))) == ["hallucination=None"]


def test_a_cases_own_metrics_are_strict() -> None:
    own = Case(
        id="a",
        question="How long?",
        metrics=["faithfulness[claims]", "no_answer"],
        thresholds={"faithfulness[claims]": 0.9},
    )
    assert checks_of(own, WITH_CONTEXTS) == ["faithfulness=0.9", "no_answer=None"]
    needs_reference = Case(id="b", question="How long?", metrics=["context_recall"])
    exchange = Exchange("How long?", WITH_CONTEXTS)
    jobs = case_jobs(needs_reference, [exchange], CaseSettings(), metric_class)
    assert [check.metric for check, _ in jobs] == ["context_recall"]  # kept: planning says what is missing
    with pytest.raises(InputError, match="none of the metrics context_recall applies"):
        case_jobs(
            Case(id="c", question="q?", metrics=None),
            [exchange],
            CaseSettings(metrics=("context_recall",)),
            metric_class,
        )


def test_a_bar_written_with_an_alias_or_for_one_mode_finds_its_check() -> None:
    aliased = Case(id="a", question="How long?", thresholds={"relevancy": 4})
    assert checks_of(aliased, WITH_CONTEXTS) == ["faithfulness=None", "answer_relevancy=4.0"]
    by_mode = Case(
        id="b",
        question="How long?",
        metrics=["faithfulness[claims]", "faithfulness"],
        thresholds={"faithfulness[claims]": 0.9, "faithful": 4},
    )
    assert checks_of(by_mode, WITH_CONTEXTS) == ["faithfulness=0.9", "faithfulness=4.0"]


@pytest.mark.parametrize(
    ("case", "reply", "why"),
    [
        (
            Case(id="a", question="q?", thresholds={"context_recall": 3}),
            WITH_CONTEXTS,
            "the case has no reference",
        ),
        (
            Case(id="b", question="q?", thresholds={"faithfulness": 4}),
            AppReply("Yes."),
            "the app returned no contexts",
        ),
        (
            Case(id="c", question="q?", metrics=["faithfulness"], thresholds={"relevancy": 4}),
            WITH_CONTEXTS,
            "the case is not held to it",
        ),
        (
            Case(id="d", question="q?", metrics=["faithfulness"], thresholds={"faithfulness[claims]": 0.5}),
            WITH_CONTEXTS,
            "the case is not held to it",
        ),
    ],
)
def test_a_bar_for_a_check_the_case_does_not_get_is_an_error_saying_why(
    case: Case, reply: AppReply, why: str
) -> None:
    with pytest.raises(InputError, match=f"thresholds name '[^']+', a check this case does not get: {why}"):
        checks_of(case, reply)


def test_a_case_no_metric_applies_to_is_told_what_the_case_or_the_reply_lacks() -> None:
    with pytest.raises(InputError) as raised:
        checks_of(Case(id="a", question="q?"), AppReply("   "))
    assert "answer_relevancy: the app's answer is empty" in str(raised.value)
    assert "passage_recall: the case has no expected_contexts" in str(raised.value)


def test_conversation_metrics_start_at_the_first_turn_with_earlier_messages_to_compare() -> None:
    case = Case.model_validate({"id": "chat", "turns": [{"user": "I am Ana."}, {"user": "Refunds?"}]})
    first = Exchange("I am Ana.", WITH_CONTEXTS, (), position=1)
    history = ({"role": "user", "content": "I am Ana."}, {"role": "assistant", "content": "Hi Ana."})
    second = Exchange("Refunds?", WITH_CONTEXTS, history, position=2)
    jobs = case_jobs(case, [first, second], CaseSettings(), metric_class)
    assert [(sample.id, check.metric) for check, sample in jobs] == [
        ("turn 1", "turn_faithfulness"),
        ("turn 1", "turn_relevancy"),
        ("turn 2", "turn_faithfulness"),
        ("turn 2", "turn_relevancy"),
        ("turn 2", "knowledge_retention"),
        ("turn 2", "conversation_consistency"),
    ]
    assert jobs[-1][0].options == {"history": list(history)}
