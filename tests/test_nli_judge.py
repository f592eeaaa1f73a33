"""The ``nli:PATH`` judge with the tiny NLI models of :mod:`nli_models`, in both supported formats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nli_models import CONTEXT, build_onnx_model, build_transformers_model
from pytest_rag.errors import ConfigError
from pytest_rag.judges.nli.model import NliModelError, describe_model_dir, load_nli_model, read_label_map
from pytest_rag.judges.protocol import JudgeSpec

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def onnx_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_onnx_model(tmp_path_factory.mktemp("onnx_nli"))


@pytest.fixture(scope="module")
def transformers_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_transformers_model(tmp_path_factory.mktemp("hf_nli"))


@pytest.mark.parametrize("fixture", ["onnx_dir", "transformers_dir"])
def test_model_maps_labels_from_config(fixture: str, request: pytest.FixtureRequest) -> None:
    model = load_nli_model(request.getfixturevalue(fixture))
    assert (model.labels.entailment, model.labels.neutral, model.labels.contradiction) == (2, 1, 0)
    probabilities = model.probabilities([CONTEXT, CONTEXT], ["The tower is tall.", "The tower is not tall."])
    assert probabilities.shape == (2, 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-6)
    assert probabilities[0].argmax() == 2  # entailment column
    assert probabilities[1].argmax() == 0  # contradiction column, rigged by "not"
    entailment = model.entailment([CONTEXT, CONTEXT], ["The tower is tall.", "The tower is not tall."])
    assert entailment[0] > 0.5 > entailment[1]


def test_batches_larger_than_one_chunk_keep_their_order(onnx_dir: Path) -> None:
    model = load_nli_model(onnx_dir)
    hypotheses = ["it is not tall." if i % 3 == 0 else "it is tall." for i in range(40)]
    entailment = model.entailment([CONTEXT] * 40, hypotheses)
    assert [bool(p < 0.5) for p in entailment] == [i % 3 == 0 for i in range(40)]


@pytest.mark.parametrize("fixture", ["onnx_dir", "transformers_dir"])
def test_judge_grounding_uses_the_model(fixture: str, request: pytest.FixtureRequest) -> None:
    from pytest_rag.judges.nli.judge import NliJudge

    judge = NliJudge(JudgeSpec("nli", str(request.getfixturevalue(fixture))))
    scorer = judge._get_scorer()
    report = scorer.support("The Eiffel Tower was completed in 1889. It is not in Paris.", [CONTEXT])
    first, second = report.sentences
    assert first.probability > 0.5 > second.probability
    assert report.probability == pytest.approx(second.probability)  # the weakest sentence decides
    assert first.context_index == 0 and "1889" in first.span
    empty = scorer.support("The tower is tall.", [""])
    assert empty.probability == 0.0 and empty.sentences[0].probability == 0.0
    # Non-grounding tasks still come from the offline scorer.
    assert 0.0 <= scorer.answer_relevance("When was the tower completed?", "In 1889.") <= 1.0
    assert judge.identity()["provider"] == "nli"


def test_contradicting_sentence_scores_lower_than_with_the_local_judge(onnx_dir: Path) -> None:
    from pytest_rag.judges.local.scorer import LocalScorer
    from pytest_rag.judges.nli.judge import NliJudge

    sentence = "The Eiffel Tower in Paris was not completed in 1889."
    local = LocalScorer.load().support(sentence, [CONTEXT]).sentences[0].probability
    nli = NliJudge(JudgeSpec("nli", str(onnx_dir)))._get_scorer().support(sentence, [CONTEXT])
    assert nli.sentences[0].probability < 0.01 < local  # lexical overlap alone cannot see the "not"


def test_missing_directory_is_a_config_error(tmp_path: Path) -> None:
    from pytest_rag.judges.nli.judge import NliJudge

    with pytest.raises(ConfigError, match="does not exist"):
        NliJudge(JudgeSpec("nli", str(tmp_path / "nowhere")))
    with pytest.raises(ConfigError, match="nli:/path/to/model_dir"):
        NliJudge(JudgeSpec("nli", ""))
    with pytest.raises(NliModelError, match=r"neither model\.onnx"):
        describe_model_dir(tmp_path)


def test_unreadable_label_map_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NliModelError, match="no 'id2label'"):
        read_label_map({}, tmp_path / "config.json")
    with pytest.raises(NliModelError, match="no entailment label"):
        read_label_map({"id2label": {"0": "LABEL_0", "1": "LABEL_1"}}, tmp_path / "config.json")
    with pytest.raises(NliModelError, match="id2label key 'one' is not an integer index"):
        read_label_map({"id2label": {"0": "entailment", "one": "neutral"}}, tmp_path / "config.json")
    two_way = read_label_map({"id2label": {"0": "not_entailment", "1": "entailment"}}, tmp_path)
    assert (two_way.entailment, two_way.contradiction, two_way.size) == (1, None, 2)
    directory = build_onnx_model(tmp_path / "generic", id2label={"0": "LABEL_0", "1": "LABEL_1", "2": "X"})
    with pytest.raises(NliModelError, match="no entailment label"):
        describe_model_dir(directory)


def test_missing_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    directory = build_onnx_model(tmp_path / "m")
    real = importlib.util.find_spec

    def without_onnxruntime(name: str, *args: Any) -> Any:
        return None if name == "onnxruntime" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_onnxruntime)
    with pytest.raises(NliModelError, match=r"pip install pytest-rag\[onnx\]"):
        describe_model_dir(directory)


def test_rag_judge_nli_option_drives_faithfulness(pytester: pytest.Pytester, onnx_dir: Path) -> None:
    pytester.makepyfile(
        f"""
        CONTEXT = {CONTEXT!r}

        def test_supported(rag_judge):
            result = rag_judge.faithfulness("The Eiffel Tower was completed in 1889.", [CONTEXT])
            assert result.judge.startswith("nli:"), result.judge
            assert result.score == 5, result.reasons

        def test_contradicted(rag_judge):
            # Word for word from the context except "not": the offline judge's overlap would pass it.
            result = rag_judge.faithfulness("The Eiffel Tower in Paris was not completed in 1889.", [CONTEXT])
            assert result.score == 1, result.reasons
        """
    )
    result = pytester.runpytest_subprocess(f"--rag-judge=nli:{onnx_dir}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_rag_judge_nli_with_bad_path_fails_setup(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(
        """
        def test_it(rag_judge):
            rag_judge.faithfulness("The tower is tall.", ["The tower is tall."])
        """
    )
    result = pytester.runpytest_subprocess(f"--rag-judge=nli:{tmp_path / 'missing'}")
    result.stdout.fnmatch_lines(["*does not exist*"])
    assert result.ret != 0


class WordEntailment:
    """A stand-in NLI model, so the NLI scorer's grounding runs without the nli extra: a hypothesis
    is entailed (1.0) when its premise holds every one of its words. It keeps the pairs it was asked."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def entailment(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        from pytest_rag.scoring.text import tokenize

        self.pairs += zip(premises, hypotheses, strict=True)
        return [
            float(set(tokenize(h)) <= set(tokenize(p))) for p, h in zip(premises, hypotheses, strict=True)
        ]


def test_support_claims_and_coverage_are_grounded_by_the_nli_model_alone() -> None:
    from pytest_rag.judges.local.scorer import LocalScorer
    from pytest_rag.judges.nli.judge import NliScorer

    model = WordEntailment()
    scorer = NliScorer(LocalScorer.load(), model)  # type: ignore[arg-type]
    contexts = ["The tower is tall and grey.", "The river is long."]
    report = scorer.support("The tower is tall. The river is wide.", contexts)
    assert [s.probability for s in report.sentences] == [1.0, 0.0]
    assert report.probability == 0.0  # the weakest sentence decides
    assert {premise for premise, _ in model.pairs} >= set(contexts)  # each whole context is a premise
    assert {hypothesis for _, hypothesis in model.pairs} == {"The tower is tall.", "The river is wide."}
    assert scorer.claims_support(["The river is long."], contexts).probability == 1.0
    coverage = scorer.coverage("The river is long. The sky is blue.", contexts)
    assert [s.probability for s in coverage.sentences] == [1.0, 0.0]
    assert scorer.support("The tower is tall.", [" "]).probability == 0.0  # no words to ground in
