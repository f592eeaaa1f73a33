"""Tiny NLI models in both formats the ``nli`` judge reads, built here so no weights are downloaded.

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
