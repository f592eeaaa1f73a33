"""The fixture's combined forms accept the short metric names users write (relevancy=3)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_assert_rag_accepts_short_names_and_reports_canonical_metrics(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        SAMPLE = {"question": "How long do refunds take?", "answer": "Refunds take 5 business days.",
                  "contexts": ["Refunds are processed within 5 business days."],
                  "reference": "Refunds take 5 business days."}

        def test_short_names(rag_judge):
            results = rag_judge.assert_rag(SAMPLE, faithful=4, relevancy=3, recall=3)
            assert [r.metric for r in results] == ["faithfulness", "answer_relevancy", "context_recall"]

        def test_unknown_name_is_a_clear_error(rag_judge):
            rag_judge.assert_rag(SAMPLE, faithfullness=4)
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*unknown metric 'faithfullness'; did you mean 'faithfulness'?"])


def test_an_unknown_offline_model_is_a_set_up_error_not_a_silent_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_grounded(rag_judge):
            rag_judge.assert_faithful("Refunds take 5 days.", ["Refunds take 5 days."])
        """
    )
    result = pytester.runpytest("--rag-judge=local:minlm", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*'local:minlm' names a model 'local' does not have; write local (or local:wordllama)"]
    )
    assert pytester.runpytest("--rag-judge=local:wordllama", "-p", "no:cacheprovider").ret == 0


@pytest.mark.parametrize(
    ("ini_line", "message"),
    [
        (
            "rag_threshold_faithfulness = 4\nrag_thresholds =\n    faithfulnes = 4",
            "*rag_thresholds (ini file tox.ini): faithfulnes = 4: 'faithfulnes' is not a registered metric; "
            "did you mean 'faithfulness'?",
        ),
        (
            "rag_thresholds =\n    relevancy = 4",
            "*thresholds are keyed by metric name: write 'answer_relevancy', not 'relevancy'",
        ),
        (
            "rag_threshold_faithfulnes = 4",
            "*rag_threshold_faithfulnes (ini file tox.ini)*did you mean rag_threshold_faithfulness?",
        ),
    ],
)
def test_a_threshold_for_an_unknown_metric_is_a_set_up_error(
    pytester: pytest.Pytester, ini_line: str, message: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini_line}\n")
    pytester.makepyfile(
        """
        def test_grounded(rag_judge):
            rag_judge.assert_faithful("Refunds take 5 days.", ["Refunds take 5 days."])
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert len([line for line in result.stderr.lines if line.startswith("ERROR:")]) == 1


def test_a_bug_in_one_metric_of_a_batch_keeps_the_other_records(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_rag.metrics.base import Metric, Scale, Scored

        class Broken(Metric):
            name = "broken"
            scale = Scale(0, 1)
            default_threshold = 0.5
            required = ("answer",)

            async def score(self, ask, sample, options):
                raise TypeError("a bug in a plugin metric")

        def pytest_rag_metrics():
            return [Broken]
        """
    )
    pytester.makepyfile(
        """
        import pytest

        SAMPLE = {"question": "How long do refunds take?", "answer": "Refunds take 5 business days.",
                  "contexts": ["Refunds are processed within 5 business days."]}

        def test_batch(rag_judge):
            with pytest.raises(TypeError, match="a bug in a plugin metric"):
                rag_judge.evaluate([SAMPLE, SAMPLE], metrics=["faithfulness", "broken"])
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider", "--rag-no-summary", "-s")
    result.assert_outcomes(passed=1)
    pytester.makepyfile(
        test_count="""
        def test_records_survive(rag_judge, request):
            import pytest
            from pytest_rag.plugin import rag_session
            SAMPLE = {"question": "Q?", "answer": "Refunds take 5 business days.",
                      "contexts": ["Refunds are processed within 5 business days."]}
            with pytest.raises(TypeError):
                rag_judge.evaluate([SAMPLE, SAMPLE], metrics=["faithfulness", "broken"])
            records = rag_session(request.config).results.for_test(request.node.nodeid)
            assert [r.metric for r in records] == ["faithfulness", "faithfulness"]
        """
    )
    assert pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider", "test_count.py").ret == 0


def test_an_ensemble_members_failure_is_an_error_of_the_ensemble_check(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fake_llm import FakeLLMServer, RecordedRequest, Reply

    def responder(request: RecordedRequest) -> Reply:
        if request.body["model"] == "judge-b":
            return Reply.text("no JSON from this judge")
        return Reply.json({"reasoning": "fine", "unsupported_statements": [], "score": 5})

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-ensemble")
    pytester.makepyfile(
        """
        def test_grounded(rag_judge):
            rag_judge.assert_faithful("Refunds take 5 days.", ["Refunds take 5 days."])
        """
    )
    with FakeLLMServer(responder) as server:
        result = pytester.runpytest(
            "--rag-judge=openai:judge-a,openai:judge-b",
            f"--rag-judge-base-url={server.openai_base_url}",
            "--rag-cache=off",
            "-p",
            "no:cacheprovider",
        )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*JudgeError*faithfulness by openai:judge-b*",  # the message names the member that failed
            "faithfulness*ensemble(openai:judge-a,openai:judge-b)*1-5*0*-*1",  # the ensemble's row counts it
        ]
    )


def test_evaluate_reads_one_metric_name_alone_and_numbered_ids_and_names_a_metric_that_is_no_string(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        from pytest_rag import Sample

        ROW = {"answer": "Refunds take 5 business days.", "id": 7,
               "contexts": ["Refunds are processed within 5 business days."]}

        def test_one_name(rag_judge):
            table = rag_judge.evaluate([ROW, Sample(**{**ROW, "id": 8})], metrics="faithfulness")
            assert [(row.metric, row.sample_id, row.error) for row in table] == [
                ("faithfulness", "7", None), ("faithfulness", "8", None)]

        def test_metric_not_a_string(rag_judge):
            rag_judge.score(5, answer="a")
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*a metric is named by a string, got int (5)*"])


def test_evaluate_and_assert_rag_refuse_a_bar_for_no_metric_a_metric_named_twice_and_a_lone_sample(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        ROW = {"question": "How long do refunds take?", "answer": "Refunds take 5 business days.",
               "contexts": ["Refunds are processed within 5 business days."]}

        def test_a_bar_under_another_name_of_the_metric_holds_it(rag_judge):
            table = rag_judge.evaluate([ROW], metrics=["faithful"], thresholds={"faithfulness": 5})
            assert [(row.metric, row.result.threshold) for row in table] == [("faithful", 5.0)]

        def test_a_misspelt_bar(rag_judge):
            rag_judge.evaluate([ROW], metrics=["faithfulness"], thresholds={"faithfulnes": 5})

        def test_a_bar_for_a_metric_not_asked_for(rag_judge):
            rag_judge.evaluate([ROW], metrics=["faithfulness"], thresholds={"answer_relevancy": 3})

        def test_twice(rag_judge):
            rag_judge.evaluate([ROW], metrics=["faithfulness", "faithfulness"])

        def test_one_sample_not_in_a_list(rag_judge):
            rag_judge.evaluate(ROW, metrics=["faithfulness"])

        def test_two_names_of_one_metric(rag_judge):
            rag_judge.evaluate([ROW], metrics=["faithful", "faithfulness"])

        def test_two_bars_of_one_metric(rag_judge):
            rag_judge.assert_rag(ROW, faithfulness=4, relevancy=3, faithful=2)
        """
    )
    result = pytester.runpytest("--rag-judge=local", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=6)  # no verdict: never a pass
    result.stdout.fnmatch_lines_random(
        [
            "*thresholds names 'faithfulnes', which is not one of the metrics evaluated (faithfulness)*"
            "did you mean 'faithfulness'?*",
            "*thresholds names 'answer_relevancy', which is not one of the metrics evaluated*",
            "*evaluate() names faithfulness twice in metrics ('faithfulness' twice); name each metric once*",
            "*evaluate() names faithfulness twice in metrics ('faithful' and 'faithfulness')*",
            "*assert_rag() names faithfulness twice ('faithfulness' and 'faithful'); name each metric once*",
            "*evaluate() takes a list of samples, got one dict; write evaluate([[]sample], ...)*",
        ]
    )
