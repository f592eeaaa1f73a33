"""The learned entailment model (src/pytest_rag/judges/local/entailment.py) and its shipped weights.

The behaviour tests use sentences written for these tests, not taken from any dataset. Each
edit test also shows that a bag of words cannot see the edit: the averaged WordLlama vectors
score the edited sentence as close to the premise as the faithful one, while the model, which
reads order and alignment, tells them apart.
"""

from __future__ import annotations

import io
import json
import threading
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from pytest_rag.judges.local import entailment, entailment_input
from pytest_rag.judges.local.embedder import load_embedder
from pytest_rag.judges.local.entailment import (
    EntailmentModel,
    EntailmentWeightsError,
    load_entailment_model,
    read_weights,
)
from pytest_rag.judges.local.entailment_input import Tokenizer, token_flags

PARITY = Path(__file__).parent / "data" / "entailment_parity.json"


@pytest.fixture(scope="module")
def model() -> EntailmentModel:
    return load_entailment_model()


def bag_of_words(premise: str, hypothesis: str) -> float:
    """Cosine of the mean WordLlama vectors: what a reader of words without order sees."""
    a, b = load_embedder().embed([premise, hypothesis])
    return float(a @ b)


# --- the shipped file -------------------------------------------------------------------------


def test_weights_ship_in_the_package_and_are_small() -> None:
    resource = resources.files("pytest_rag.judges.local").joinpath(entailment.WEIGHTS_FILE)
    assert resource.is_file()
    assert len(resource.read_bytes()) <= 20 * 1024 * 1024
    weights, meta = read_weights(resource.read_bytes())
    assert meta["token_flags"] == list(entailment_input.TOKEN_FLAGS)
    assert set(weights) == set(entailment.PARAMETER_SHAPES)


def test_numpy_inference_matches_the_training_forward_pass(model: EntailmentModel) -> None:
    """The script stores torch's outputs on a few hundred template pairs when it writes the weights."""
    rows = json.loads(PARITY.read_text(encoding="utf-8"))
    assert len(rows) >= 200
    pairs = [(r["premise"], r["hypothesis"]) for r in rows]
    expected = np.array([r["probability"] for r in rows])
    got = model.probabilities(pairs)
    # the script's torch pass has no special case for empty texts; the model's API does
    plain = np.array([bool(p.strip()) and bool(h.strip()) for p, h in pairs])
    assert plain.sum() >= 200
    np.testing.assert_allclose(got[plain], expected[plain], atol=1e-4)


def _reference_probability(model: EntailmentModel, premise: str, hypothesis: str) -> float:
    """The forward pass for one pair, written out token by token (no padding, no batching)."""
    w = {k: v.astype(np.float64) for k, v in model._weights.items()}
    tokenizer = Tokenizer.of(load_embedder())
    matrix = load_embedder()._matrix.astype(np.float64)
    p_text = tokenizer.read([premise], entailment_input.MAX_PREMISE_TOKENS)[0]
    h_text = tokenizer.read([hypothesis], entailment_input.MAX_HYPOTHESIS_TOKENS)[0]

    def relu(x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x, 0.0)

    def conv(rows: list[np.ndarray], weight: np.ndarray, bias: np.ndarray) -> list[np.ndarray]:
        zero = np.zeros_like(rows[0])
        out = []
        for i in range(len(rows)):
            left = rows[i - 1] if i > 0 else zero
            right = rows[i + 1] if i + 1 < len(rows) else zero
            out.append(left @ weight[0] + rows[i] @ weight[1] + right @ weight[2] + bias)
        return out

    def encode(ids: np.ndarray, flags: np.ndarray) -> list[np.ndarray]:
        base = [
            relu(matrix[t] @ w["w_in"] + f @ w["w_flags"] + w["b_in"])
            for t, f in zip(ids, flags, strict=True)
        ]
        return [b + relu(c) for b, c in zip(base, conv(base, w["w_conv"], w["b_conv"]), strict=True)]

    prem = encode(p_text.ids, token_flags(p_text, None).astype(np.float64))
    h_flags = token_flags(h_text, p_text).astype(np.float64)
    hyp = encode(h_text.ids, h_flags)
    compared, previous = [], None
    for h, f in zip(hyp, h_flags, strict=True):
        scores = np.array([(h @ w["w_att"]) @ p for p in prem])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        aligned = sum(a * p for a, p in zip(weights, prem, strict=True))
        position = float(sum(a * j for j, a in enumerate(weights)))
        step = 0.0 if previous is None else float(np.tanh((position - previous) / 4.0))
        previous = position
        row = np.concatenate([h, aligned, h - aligned, h * aligned, f, [step, weights.max()]])
        compared.append(relu(relu(row @ w["w_cmp1"] + w["b_cmp1"]) @ w["w_cmp2"] + w["b_cmp2"]))
    mixed = [c + relu(m) for c, m in zip(compared, conv(compared, w["w_mix"], w["b_mix"]), strict=True)]
    stacked = np.stack(mixed)
    pooled = np.concatenate([stacked.mean(axis=0), stacked.max(axis=0)])
    logit = relu(pooled @ w["w_out1"] + w["b_out1"]) @ w["w_out2"] + w["b_out2"]
    return float(1.0 / (1.0 + np.exp(-logit)))


def test_batched_inference_matches_a_token_by_token_reference(model: EntailmentModel) -> None:
    """Padding, shared premises and batching change nothing: each pair scores as it would alone."""
    pairs = [
        ("The library opens at nine on weekdays.", "The library opens at nine."),
        ("The library opens at nine on weekdays.", "The library opens at ten."),
        (
            "Nadia Brandt founded the choir in 1971 and led it for twenty years.",
            "Nadia Brandt led the choir.",
        ),
        (
            "A short premise.",
            "A considerably longer hypothesis that keeps going well past the premise's end.",
        ),
    ]
    got = model.probabilities(pairs)
    for (premise, hypothesis), value in zip(pairs, got, strict=True):
        assert value == pytest.approx(_reference_probability(model, premise, hypothesis), abs=1e-5)


# --- behaviour on fresh sentences ------------------------------------------------------------

PREMISE_FERRY = "The ferry to Vessel Island leaves at 7:40 every morning and costs 12 euros."
PREMISE_PRIZE = "In 2011 the Orlin Foundation gave its annual prize to the painter Ruth Halloway."
PREMISE_PHARMACY = "The pharmacy on Elm Road is open on Sundays until noon."
PREMISE_HOTEL = "Guests can bring small dogs into the hotel lobby."
PREMISE_CAT = "The grey cat chased the small dog out of the garden."
PREMISE_TEACHER = "In 2011 the Orlin Foundation gave its annual prize to the painter Ruth Halloway, who had studied under Dora Fennick."
PREMISE_BAKERY = "The bakery on Mill Street does not sell bread on Mondays."
PREMISE_HIRE = "Clara Monti hired Peter Sandoval as the new conductor of the city orchestra."
PREMISE_COUNCIL = "The council fined the developer after the flood."

ENTAILED = [
    (PREMISE_FERRY, "The ferry to Vessel Island costs 12 euros."),
    (PREMISE_PRIZE, "The Orlin Foundation gave its prize to Ruth Halloway."),
    (PREMISE_PHARMACY, "The pharmacy on Elm Road is open on Sundays."),
    (PREMISE_BAKERY, "The bakery on Mill Street does not sell bread on Mondays."),
    (PREMISE_HIRE, "Clara Monti hired Peter Sandoval."),
    (PREMISE_CAT, "The grey cat chased the small dog."),
]

# (premise, faithful hypothesis, edited hypothesis, what changed): edits the model catches
EDITS = [
    (
        PREMISE_FERRY,
        "The ferry to Vessel Island costs 12 euros.",
        "The ferry to Vessel Island costs 21 euros.",
        "number",
    ),
    (
        PREMISE_PRIZE,
        "In 2011 the Orlin Foundation gave its prize to Ruth Halloway.",
        "In 2014 the Orlin Foundation gave its prize to Ruth Halloway.",
        "date",
    ),
    (
        PREMISE_PRIZE,
        "The Orlin Foundation gave its prize to Ruth Halloway.",
        "The Orlin Foundation gave its prize to Dora Fennick.",
        "name",
    ),
    (
        PREMISE_PHARMACY,
        "The pharmacy on Elm Road is open on Sundays.",
        "The pharmacy on Elm Road is not open on Sundays.",
        "negation added",
    ),
    (
        PREMISE_HOTEL,
        "Guests can bring small dogs into the lobby.",
        "Guests cannot bring small dogs into the lobby.",
        "negation added",
    ),
    (
        PREMISE_CAT,
        "The grey cat chased the small dog.",
        "The small dog chased the grey cat.",
        "agent and patient",
    ),
]

# Edits this model misses (see docs/learned-entailment.md): strict, so a model that learns them
# shows up here and the documentation gets updated.
MISSES = [
    (  # a name the premise gives elsewhere, moved into the prize winner's slot
        PREMISE_TEACHER,
        "The Orlin Foundation gave its prize to Ruth Halloway.",
        "The Orlin Foundation gave its prize to Dora Fennick.",
        "name moved from elsewhere in the premise",
    ),
    (
        PREMISE_BAKERY,
        "The bakery on Mill Street does not sell bread on Mondays.",
        "The bakery on Mill Street sells bread on Mondays.",
        "negation removed",
    ),
    (
        PREMISE_HIRE,
        "Clara Monti hired Peter Sandoval.",
        "Peter Sandoval hired Clara Monti.",
        "named roles swapped",
    ),
    (
        PREMISE_COUNCIL,
        "The council fined the developer.",
        "The developer fined the council.",
        "roles swapped",
    ),
]


def _ids(rows: list[tuple[str, str, str, str]]) -> list[str]:
    return [row[3] for row in rows]


@pytest.mark.parametrize(("premise", "hypothesis"), ENTAILED)
def test_clear_entailments_score_high(model: EntailmentModel, premise: str, hypothesis: str) -> None:
    assert model.probability(premise, hypothesis) > 0.5


def _edit_is_caught(model: EntailmentModel, premise: str, faithful: str, edited: str) -> bool:
    faithful_p, edited_p = model.probabilities([(premise, faithful), (premise, edited)])
    return bool(edited_p < 0.5 and faithful_p - edited_p > 0.3)


@pytest.mark.parametrize(("premise", "faithful", "edited", "change"), EDITS, ids=_ids(EDITS))
def test_an_edited_fact_scores_low_and_below_the_faithful_sentence(
    model: EntailmentModel, premise: str, faithful: str, edited: str, change: str
) -> None:
    assert _edit_is_caught(model, premise, faithful, edited), change


@pytest.mark.xfail(strict=True, reason="known miss of this model; see docs/learned-entailment.md")
@pytest.mark.parametrize(("premise", "faithful", "edited", "change"), MISSES, ids=_ids(MISSES))
def test_edits_the_model_misses(
    model: EntailmentModel, premise: str, faithful: str, edited: str, change: str
) -> None:
    assert _edit_is_caught(model, premise, faithful, edited), change


BLIND_TO_BAG_OF_WORDS = [e for e in EDITS + MISSES if e[3] != "name"]


@pytest.mark.parametrize(
    ("premise", "faithful", "edited", "change"), BLIND_TO_BAG_OF_WORDS, ids=_ids(BLIND_TO_BAG_OF_WORDS)
)
def test_a_bag_of_words_cannot_tell_these_edits_apart(
    premise: str, faithful: str, edited: str, change: str
) -> None:
    """The baseline the model must beat: averaged word vectors score the edit within a few
    hundredths of the faithful sentence (a swap of roles not at all). A name the premise lacks
    is left out: its new word vectors move the average, so a bag of words half sees it."""
    faithful_cos, edited_cos = bag_of_words(premise, faithful), bag_of_words(premise, edited)
    assert edited_cos > 0.75
    assert abs(faithful_cos - edited_cos) < 0.06, change
    if "roles" in change or change == "agent and patient":
        assert edited_cos == pytest.approx(faithful_cos, abs=1e-6)


def test_a_bag_of_words_half_sees_a_name_the_premise_lacks() -> None:
    premise, faithful, edited, _ = EDITS[2]
    assert bag_of_words(premise, faithful) - bag_of_words(premise, edited) > 0.2


# --- edges, errors and concurrency -----------------------------------------------------------


def test_empty_texts_have_fixed_answers(model: EntailmentModel) -> None:
    got = model.probabilities(
        [("The museum opens at nine.", ""), ("", "The museum opens at nine."), ("", "")]
    )
    assert got.tolist() == [1.0, 0.0, 1.0]
    assert model.probabilities([]).shape == (0,)


def test_the_same_pairs_give_the_same_numbers_from_many_threads(model: EntailmentModel) -> None:
    pairs = [(premise, edited) for premise, _, edited, _ in EDITS] + ENTAILED
    expected = model.probabilities(pairs)
    results: list[np.ndarray] = []

    def work() -> None:
        results.append(model.probabilities(pairs, batch_size=3))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for got in results:
        np.testing.assert_allclose(got, expected, atol=1e-6)


def test_missing_weights_file_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(entailment, "WEIGHTS_FILE", "no-such-weights.npz")
    monkeypatch.setattr(entailment, "_INSTANCE", None)
    with pytest.raises(EntailmentWeightsError, match=r"no-such-weights\.npz.*never downloads"):
        load_entailment_model()


def _weights_with(meta_change: dict[str, object], drop: str = "") -> bytes:
    data = resources.files("pytest_rag.judges.local").joinpath(entailment.WEIGHTS_FILE).read_bytes()
    with np.load(io.BytesIO(data)) as archive:
        arrays = {name: archive[name] for name in archive.files if name != drop}
    meta = json.loads(bytes(arrays.pop("meta")).decode())
    meta.update(meta_change)
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    return buffer.getvalue()


def test_weights_for_another_version_are_refused() -> None:
    with pytest.raises(EntailmentWeightsError, match="another version"):
        read_weights(_weights_with({"format": 999}))
    with pytest.raises(EntailmentWeightsError, match="another version"):
        read_weights(_weights_with({"token_flags": ["in_premise"]}))
    with pytest.raises(EntailmentWeightsError, match="lacks w_att"):
        read_weights(_weights_with({}, drop="w_att"))
