"""The ``nli:PATH`` judge with tiny NLI models built here, in both supported formats.

Each model is rigged so its verdict is known in advance: every ordinary token pushes towards
entailment, and the token "not" pushes hard towards contradiction. The label columns are put in
an unusual order (contradiction first), so a judge that assumed the common order would score a
supported sentence as contradicted and the tests would catch it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_rag.errors import ConfigError
from pytest_rag.judges.nli.model import NliModelError, describe_model_dir, load_nli_model, read_label_map
from pytest_rag.judges.protocol import JudgeSpec

pytest_plugins = ["pytester"]

_WORDS_TEXT = "the eiffel tower in paris was completed 1889 is tall bananas are fruit not a it"
WORDS = _WORDS_TEXT.split()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
VOCAB = {token: i for i, token in enumerate([*SPECIALS, *WORDS])}
ID2LABEL = {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}
CONTEXT = "The Eiffel Tower in Paris was completed in 1889."


def _token_table() -> np.ndarray:
    """Per-token logit contributions, columns in ID2LABEL order: contradiction, neutral, entailment."""
    table = np.zeros((len(VOCAB), 3), dtype=np.float32)
    table[len(SPECIALS) :, 2] = 0.5  # ordinary words: entailment
    table[VOCAB["[UNK]"], 1] = 0.5  # unknown words: neutral
    table[VOCAB["not"]] = (20.0, 0.0, 0.0)  # "not": contradiction, whatever else is there
    return table


def _tiny_tokenizer() -> Any:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", VOCAB["[CLS]"]), ("[SEP]", VOCAB["[SEP]"])],
    )
    return tokenizer


def _write_tokenizer_json(directory: Path) -> None:
    _tiny_tokenizer().save(str(directory / "tokenizer.json"))


def build_onnx_model(directory: Path, id2label: dict[str, str] | None = None) -> Path:
    """logits = sum over unmasked tokens of a per-token row: an embedding lookup and a masked sum."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    directory.mkdir(parents=True, exist_ok=True)
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["rows"]),
            helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["mask_f", "last_axis"], ["mask_3d"]),
            helper.make_node("Mul", ["rows", "mask_3d"], ["kept"]),
            helper.make_node("ReduceSum", ["kept", "token_axis"], ["logits"], keepdims=0),
        ],
        "tiny_nli",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])],
        initializer=[
            numpy_helper.from_array(_token_table(), "table"),
            numpy_helper.from_array(np.array([-1], dtype=np.int64), "last_axis"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "token_axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / "model.onnx"))
    _write_tokenizer_json(directory)
    config = {"id2label": ID2LABEL if id2label is None else id2label}
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


def build_transformers_model(directory: Path) -> Path:
    """A one-layer BERT whose weights make the [CLS] state carry "is 'not' present?" to the head.

    Queries and keys are zero, so attention is a plain average over the tokens; values and the
    attention output are the identity, the feed-forward block adds nothing, and dimension 0 of
    every embedding is zero except for "not". The classifier reads dimension 0 as contradiction
    and has a bias towards entailment.
    """
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    hidden = 8
    config = transformers.BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=hidden,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=4,
        max_position_embeddings=64,
        type_vocab_size=2,
        id2label={int(k): v for k, v in ID2LABEL.items()},
        label2id={v: int(k) for k, v in ID2LABEL.items()},
    )
    model = transformers.BertForSequenceClassification(config)
    pattern = torch.tensor([0.0, 1, -1, 1, -1, 1, -1, 0])
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
        embeddings = model.bert.embeddings
        embeddings.word_embeddings.weight[:] = pattern
        embeddings.word_embeddings.weight[VOCAB["not"], 0] = 40.0
        for norm in (embeddings.LayerNorm, *(m for m in model.modules() if "LayerNorm" in type(m).__name__)):
            norm.weight.fill_(1.0)
        layer = model.bert.encoder.layer[0]
        layer.attention.self.value.weight[:] = torch.eye(hidden)
        layer.attention.output.dense.weight[:] = torch.eye(hidden)
        model.bert.pooler.dense.weight[:] = torch.eye(hidden)
        model.classifier.weight[0, 0] = 200.0  # dimension 0 -> contradiction
        model.classifier.bias[2] = 1.0  # otherwise entailment
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory))
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=_tiny_tokenizer(),
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        model_input_names=["input_ids", "token_type_ids", "attention_mask"],
    )
    tokenizer.save_pretrained(str(directory))
    return directory


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
