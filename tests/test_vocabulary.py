"""One vocabulary: every helper names its inputs as ``pytest_rag.Sample`` does (``answer``,
``contexts``, ``question``, ``reference``), in all four forms, in ``score`` and in sample mappings.

The names the helpers used before (``output``, ``context``, ``prompt``) keep working as deprecated
aliases that warn once, naming the replacement; a near miss (a typo, another tool's name such as
``response=`` or ``query=``) gets a did-you-mean, for a keyword, a metric name and a sample key alike.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pytest_rag.deprecation as deprecation
from pytest_rag.deprecation import RagDeprecationWarning
from pytest_rag.errors import ConfigError, InputError
from pytest_rag.helper_forms import Check
from pytest_rag.inputs import Chunk, Sample, coerce_sample
from test_metric_forms import FORMS, NoJudgeSession, StandInPlan, judge_with

OLD_NAMES = {"output", "context", "prompt"}
A, Q, C = "Refunds take five days.", "How long do refunds take?", ["Refunds take five business days."]


@pytest.fixture(autouse=True)
def warn_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees the once-per-process deprecation warnings as a fresh process would."""
    monkeypatch.setattr(deprecation, "_told", set())


class Recording(NoJudgeSession):
    def __init__(self) -> None:
        super().__init__({}, score=3)
        self.checks: list[Check] = []

    def score(self, plan: StandInPlan) -> Any:
        self.checks.append(plan.check)
        return super().score(plan)


@pytest.mark.parametrize("name", sorted(FORMS))
def test_no_form_names_an_input_the_old_way(name: str) -> None:
    parameters = set(FORMS[name].signature.parameters)
    assert not parameters & OLD_NAMES, f"{name} takes {sorted(parameters & OLD_NAMES)}"


def test_the_keywords_of_the_issue_work_in_every_form() -> None:
    session = Recording()
    judge = judge_with(session)
    judge.assert_faithful(answer=A, contexts=C, threshold=1)
    judge.faithfulness(answer=A, contexts=C)
    judge.assert_relevant(answer=A, question=Q, threshold=1)
    judge.score("faithfulness", answer=A, contexts=C)
    judge.assert_context_recall(answer=A, reference="Five days.", threshold=1)
    assert [(c.answer, c.contexts, c.question) for c in session.checks] == [
        (A, C, None),
        (A, C, None),
        (A, None, Q),
        (A, C, None),
        (A, None, None),
    ]


def test_positional_calls_keep_their_order() -> None:
    session = Recording()
    judge = judge_with(session)
    judge.faithfulness(A, C, 2)
    judge.answer_relevancy(A, Q, 2)
    judge.answer_accuracy(A, "Five days.", Q, 2)
    first, second, third = session.checks
    assert (first.answer, first.contexts, first.threshold) == (A, C, 2)
    assert (second.answer, second.question, second.threshold) == (A, Q, 2)
    assert (third.answer, third.reference, third.question, third.threshold) == (A, "Five days.", Q, 2)


@pytest.mark.parametrize(
    ("call", "old", "new"),
    [
        (lambda judge: judge.assert_faithful(output=A, contexts=C, threshold=1), "output", "answer"),
        (lambda judge: judge.faithfulness(A, context=C), "context", "contexts"),
        (lambda judge: judge.answer_relevancy(A, prompt=Q), "prompt", "question"),
        (lambda judge: judge.score("faithfulness", answer=A, context=C), "context", "contexts"),
    ],
)
def test_an_old_keyword_still_works_and_warns_once_naming_the_new_one(call: Any, old: str, new: str) -> None:
    session = Recording()
    judge = judge_with(session)
    with pytest.warns(RagDeprecationWarning, match=f"'{old}' is deprecated; use '{new}' instead") as caught:
        call(judge)
        call(judge)
    assert len(caught) == 1
    assert Path(caught[0].filename) == Path(__file__)  # pointing at the caller's line
    assert all(
        getattr(c, {"output": "answer", "context": "contexts", "prompt": "question"}[old])
        for c in session.checks
    )
    assert len(session.checks) == 2


def test_an_old_and_a_new_keyword_for_one_input_is_an_error() -> None:
    with pytest.raises(
        InputError, match=r"faithfulness\(\): context= is the old name of contexts=; pass contexts= only"
    ):
        judge_with(Recording()).faithfulness(A, context=C, contexts=C)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("call", "hint"),
    [
        (
            lambda judge: judge.assert_relevant(answer=A, query=Q),
            "assert_relevant(): query= is not one of its inputs (did you mean question= instead of query=?)",
        ),
        (
            lambda judge: judge.assert_relevant(answer=A, questoin=Q),
            "missing a required argument: 'question' (did you mean question= instead of questoin=?)",
        ),
        (
            lambda judge: judge.assert_faithful(response=A, contexts=C),
            "(did you mean answer= instead of response=?)",
        ),
        (lambda judge: judge.faithfulness(A, contxts=C), "(did you mean contexts= instead of contxts=?)"),
        (
            lambda judge: judge.score("faithfulness", response=A, contexts=C),
            "score(): response= is not one of its inputs (did you mean answer= instead of response=?)",
        ),
        (
            lambda judge: judge.context_precision(Q, retrieved_contexts=C),
            "(did you mean contexts= instead of retrieved_contexts=?)",
        ),
    ],
)
def test_a_near_miss_gets_a_did_you_mean(call: Any, hint: str) -> None:
    session = Recording()
    with pytest.raises(InputError) as caught:
        call(judge_with(session))
    assert hint in str(caught.value)
    assert session.checks == []


def test_an_unknown_metric_name_gets_a_did_you_mean_instead_of_the_whole_list() -> None:
    from pytest_rag.registry import Registry

    registry = Registry()
    from pytest_rag.metrics.catalog import builtin_metrics

    registry.add_metrics(builtin_metrics())
    with pytest.raises(ConfigError) as caught:
        registry.metric("faithfulnes")
    assert str(caught.value) == "unknown metric 'faithfulnes'; did you mean 'faithfulness'?"
    with pytest.raises(
        ConfigError, match=r"unknown metric 'tone'; registered metrics: (\w+, )*answer_accuracy, "
    ):
        registry.metric("tone")


def test_assert_rag_and_evaluate_suggest_the_metric_meant(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        SAMPLE = {"question": "How long?", "answer": "Five days.", "contexts": ["Five business days."]}

        def test_assert_rag(rag_judge):
            rag_judge.assert_rag(SAMPLE, faithfulnes=4)

        def test_evaluate(rag_judge):
            table = rag_judge.evaluate([SAMPLE], metrics=["answer_relevance"])
            raise table.rows[0].error
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["E*ConfigError: unknown metric 'faithfulnes'; did you mean 'faithfulness'?"], consecutive=False
    )
    result.stdout.fnmatch_lines(
        ["E*ConfigError: unknown metric 'answer_relevance'; did you mean 'answer_relevancy'?"]
    )
    assert "registered metrics:" not in result.stdout.str()


def test_sample_mappings_take_the_same_names_and_the_old_ones_with_a_warning() -> None:
    expected = Sample(question="Why?", answer="Because.", contexts=(Chunk("c1"),), id="s1")
    assert (
        coerce_sample({"question": "Why?", "answer": "Because.", "contexts": ["c1"], "id": "s1"}) == expected
    )
    with pytest.warns(RagDeprecationWarning) as caught:
        old = coerce_sample({"prompt": "Why?", "output": "Because.", "context": ["c1"], "id": "s1"})
    assert old == expected
    assert sorted(str(w.message).split(" is deprecated")[0] for w in caught) == [
        "the input name 'context'",
        "the input name 'output'",
        "the input name 'prompt'",
    ]


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("contxts", "did you mean 'contexts'?"),
        ("response", "did you mean 'answer'?"),
        ("ground_truth", "did you mean 'reference'?"),
    ],
)
def test_an_unknown_sample_key_gets_a_did_you_mean(key: str, hint: str) -> None:
    with pytest.raises(InputError) as caught:
        coerce_sample({"answer": "x", key: "y"})
    assert (
        f"sample has an unknown key {key!r}; {hint} a sample's keys: question, answer, contexts, reference, id"
        == str(caught.value)
    )


def test_mypy_sees_the_new_names_on_all_four_forms(tmp_path: Path) -> None:
    usage = tmp_path / "usage.py"
    usage.write_text(
        inspect.cleandoc(
            """
            import asyncio
            from pytest_rag.rag_judge import RagJudge
            from pytest_rag.results import MetricResult

            def use(rag_judge: RagJudge) -> None:
                result: MetricResult = rag_judge.faithfulness(answer="a", contexts=["c"], threshold=4)
                rag_judge.assert_faithful(answer="a", contexts=["c"])
                asyncio.run(rag_judge.afaithfulness(answer="a", contexts=["c"]))
                asyncio.run(rag_judge.aassert_faithful(answer="a", contexts=["c"]))
                rag_judge.assert_relevant(answer="a", question="q")
                rag_judge.assert_faithful(output="a", contexts=["c"])
            """
        )
        + "\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(usage),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, done.stdout
    assert 'usage.py:11: error: Unexpected keyword argument "output"' in errors[0]
