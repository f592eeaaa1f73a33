"""Train the offline judge's entailment model (``src/pytest_rag/judges/local/entailment.npz``).

    python scripts/train_entailment.py --data DATA_DIR [--datasets ../shared/datasets]
                                       [--epochs 6] [--seed 13] [--quick] [--write]

Reads the public NLI sets below from ``DATA_DIR`` plus synthetic edits (``entailment_edits.py``)
of passages, holds out a tenth of every source (split by premise, so no held-out premise is ever
trained on), trains the model of :mod:`pytest_rag.judges.local.entailment` with torch on CPU, prints
held-out accuracy and AUROC per source and per kind of edit, and with ``--write`` stores the
weights (float16) and the parity fixture ``tests/data/entailment_parity.json`` (torch's outputs
on template sentences, which the numpy inference must reproduce). Same data and seed give the
same weights file byte for byte on the same machine (one torch thread, deterministic kernels).

Torch is needed here only: ``pip install torch==2.13.0`` (CPU). The package runs the model in numpy.

Data (``DATA_DIR`` layout; nothing of it enters the repository or the package):

=========  ============================================  ==================================  =============================
folder     source                                        licence                             read as
=========  ============================================  ==================================  =============================
snli/      SNLI 1.0 dev and test, as the ``s1`` / ``s2``  SNLI: CC BY-SA 4.0 (repository:    premise = s1, hypothesis = s2,
           / ``labels`` files of github.com/              MIT)                                entailed = label "entailment";
           OanaMariaCamburu/e-SNLI ``dataset/eSNLI/``                                         PTB spacing undone
           (commit 7b585a3f077fdea899780eb0473940522ae44a2e)
anli/      ANLI rounds 1-3 dev sets, the                 CC BY-NC 4.0 (non-commercial:       premise = context, hypothesis =
           ``anlizinganli/anli_annot_v0.2/                see the note below)                 statement, entailed = "e"
           ANLI_analysis_r{1,2,3}_dev.csv`` files of
           github.com/facebookresearch/anli
           (commit b5ce27af54a53bd495af7260fdc485000eed15f8)
sick/      SICK, ``SICK.txt`` of github.com/kkalouli/    CC BY-NC-SA 3.0 (non-commercial:    premise = sentence_A,
           SICK-processing (commit                       see the note below)                 hypothesis = sentence_B,
           0848f4aec60870122a4ca18de08ba0e25f6f9a75)                                         entailed = "ENTAILMENT"
rte/       GLUE RTE train and dev, ``glue_data/RTE/``    RTE (PASCAL challenges): no         premise = sentence1,
           of github.com/footprinthere/AttAttr-Cutoff    licence stated; distributed with    hypothesis = sentence2,
           (commit 2ac92f2fdee447af8e66689945003deff461b106)  GLUE for research               entailed = "entailment"
=========  ============================================  ==================================  =============================

Licence note: ANLI and SICK are licensed for non-commercial use and RTE states no licence. The
weights are a model trained on them, not the data, but whoever redistributes pytest-rag
commercially should know; ``--sources snli`` (plus the synthetic edits) trains without them.

Synthetic edits are made from the passages of the project's dev sets (``--datasets``:
lfqa_verification contexts and begin_grounded_dialogue knowledge snippets; their answers and
labels are never read here) and from the premises of the training side of every public set.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import random
import re
import sys
import time
import zipfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests and benchmarks

from entailment_edits import edit_pairs, name_spans  # noqa: E402

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.judges.local.embedder import load_embedder  # noqa: E402
from pytest_rag.judges.local.entailment import FORMAT_VERSION, PARAMETER_SHAPES, WEIGHTS_FILE  # noqa: E402
from pytest_rag.judges.local.entailment_input import (  # noqa: E402
    MAX_HYPOTHESIS_TOKENS,
    MAX_PREMISE_TOKENS,
    TOKEN_FLAGS,
    PairBatch,
    TextTokens,
    Tokenizer,
    assemble_batch,
    batch_pairs,
)
from pytest_rag.scoring.text import split_sentences  # noqa: E402

SEED = 13
HELD_OUT = 0.1
PUBLIC_SOURCES = ("snli", "anli", "sick", "rte")
WEIGHTS_PATH = ROOT / "src" / "pytest_rag" / "judges" / "local" / WEIGHTS_FILE
PARITY_PATH = ROOT / "tests" / "data" / "entailment_parity.json"


@dataclass(frozen=True)
class Example:
    premise: str
    hypothesis: str
    entailed: bool
    source: str  # snli, anli, sick, rte, edits_dev, edits_public
    group: str  # what the held-out split is drawn by (the premise or the passage)
    kind: str = ""  # for synthetic edits: which edit


# ---------------------------------------------------------------------------------------------
# Reading the public sets


def _detokenize(text: str) -> str:
    """Undo PTB-style spacing ("packages ." -> "packages.", "is n't" -> "isn't")."""
    text = re.sub(r" ([.,!?;:%)])", r"\1", text.strip())
    text = re.sub(r"([($]) ", r"\1", text)
    return re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)


def read_snli(folder: Path) -> list[Example]:
    out = []
    for split in ("dev", "test"):
        premises = (folder / f"s1.{split}").read_text(encoding="utf-8").splitlines()
        hypotheses = (folder / f"s2.{split}").read_text(encoding="utf-8").splitlines()
        labels = (folder / f"labels.{split}").read_text(encoding="utf-8").splitlines()
        for p, h, label in zip(premises, hypotheses, labels, strict=True):
            if label.strip() in {"entailment", "neutral", "contradiction"}:
                premise = _detokenize(p)
                out.append(Example(premise, _detokenize(h), label.strip() == "entailment", "snli", premise))
    return out


def read_anli(folder: Path) -> list[Example]:
    out = []
    for path in sorted(folder.glob("ANLI_analysis_r*_dev.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if row["gold_label"] in {"e", "n", "c"}:
                    out.append(
                        Example(
                            row["context"], row["statement"], row["gold_label"] == "e", "anli", row["context"]
                        )
                    )
    return out


def read_sick(folder: Path) -> list[Example]:
    out = []
    with (folder / "SICK.txt").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            a, b = row["sentence_A"], row["sentence_B"]
            out.append(Example(a, b, row["entailment_label"] == "ENTAILMENT", "sick", min(a, b)))
    return out


def read_rte(folder: Path) -> list[Example]:
    out = []
    for split in ("train", "dev"):
        with (folder / f"{split}.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                p, h = row["sentence1"], row["sentence2"]
                out.append(Example(p, h, row["label"] == "entailment", "rte", p))
    return out


READERS = {"snli": read_snli, "anli": read_anli, "sick": read_sick, "rte": read_rte}


def held_out(source: str, group: str, seed: int) -> bool:
    """Whether ``group`` of ``source`` is in the held-out tenth (a seeded hash, stable across runs)."""
    digest = hashlib.sha256(f"{seed}:{source}:{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < HELD_OUT


# ---------------------------------------------------------------------------------------------
# Synthetic edits


def dev_passages(datasets: Path) -> list[str]:
    """The context passages of the dev sets (never their answers or labels)."""
    passages: list[str] = []
    for path in (
        datasets / "lfqa_verification" / "answer_level.jsonl",
        datasets / "lfqa_verification" / "sentence_level.jsonl",
        datasets / "begin_grounded_dialogue" / "data.jsonl",
    ):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                passages.extend(json.loads(line)["contexts"])
    return list(dict.fromkeys(p.strip() for p in passages if p.strip()))


def synthetic(passages: Sequence[str], source: str, rng: random.Random) -> list[Example]:
    """Edit pairs from every passage (a window per sentence: at least two, at most sixteen)."""
    sentences = [s for p in passages for s in split_sentences(p) if 6 <= len(s.split()) <= 40]
    names = sorted({p[a:b] for p in passages for a, b in name_spans(p)})
    out: list[Example] = []
    for passage in passages:
        count = min(16, max(2, len(split_sentences(passage))))
        for pair in edit_pairs(passage, rng, lambda: rng.choice(sentences), names, windows=count):
            out.append(Example(pair.premise, pair.hypothesis, pair.entailed, source, passage, pair.kind))
    return out


def load_examples(data: Path, datasets: Path, sources: Sequence[str], seed: int) -> list[Example]:
    examples: list[Example] = []
    for source in sources:
        found = READERS[source](data / source)
        print(
            f"{source:<13} {len(found):>6} pairs, {sum(e.entailed for e in found) / len(found):.0%} entailed"
        )
        examples.extend(found)
    rng = random.Random(seed)
    # premises of the training side only: a held-out premise is never trained on, edited or not
    public_premises = sorted({e.premise for e in examples if not held_out(e.source, e.group, seed)})
    for source, passages in (("edits_dev", dev_passages(datasets)), ("edits_public", public_premises)):
        made = synthetic(passages, source, rng)
        if made:
            print(f"{source:<13} {len(made):>6} pairs from {len(passages)} passages")
        examples.extend(made)
    return examples


# ---------------------------------------------------------------------------------------------
# The model in torch (the same arithmetic as pytest_rag.judges.local.entailment.forward)


def build_model(torch: Any, matrix: np.ndarray, d: int) -> Any:
    nn = torch.nn
    sizes = {"d": d, "3": 3, "embed": matrix.shape[1], "flags": len(TOKEN_FLAGS)}
    sizes["compare"] = 4 * d + len(TOKEN_FLAGS) + 2
    sizes["pooled"] = 2 * d

    class Aligner(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer(
                "vocabulary", torch.from_numpy(np.ascontiguousarray(matrix, dtype=np.float32))
            )
            for name, axes in PARAMETER_SHAPES.items():
                shape = tuple(sizes[a] for a in axes)
                if name.startswith("b_"):
                    value = torch.zeros(shape)
                else:
                    fan_in = shape[-2] * (3 if len(shape) == 3 else 1) if len(shape) >= 2 else shape[0]
                    value = torch.randn(shape) * (2.0 / fan_in) ** 0.5
                setattr(self, name, nn.Parameter(value))

        def conv3(self, x: Any, weight: Any, bias: Any, mask: Any) -> Any:
            padded = torch.nn.functional.pad(x * mask[..., None], (0, 0, 1, 1))
            return padded[:, :-2] @ weight[0] + padded[:, 1:-1] @ weight[1] + padded[:, 2:] @ weight[2] + bias

        def encode(self, ids: Any, flags: Any, mask: Any) -> Any:
            projected = self.vocabulary[ids] @ self.w_in
            base = torch.relu(projected + flags @ self.w_flags + self.b_in) * mask[..., None]
            return (base + torch.relu(self.conv3(base, self.w_conv, self.b_conv, mask))) * mask[..., None]

        def forward(self, b: dict[str, Any]) -> Any:
            prem = self.encode(b["premise_ids"], b["premise_flags"], b["premise_mask"])[b["premise_of"]]
            prem_mask = b["premise_mask"][b["premise_of"]]
            hyp_mask = b["hypothesis_mask"]
            hyp = self.encode(b["hypothesis_ids"], b["hypothesis_flags"], hyp_mask)
            scores = (hyp @ self.w_att) @ prem.transpose(1, 2)
            scores = torch.where(prem_mask[:, None, :] > 0, scores, torch.full_like(scores, -1e9))
            attention = torch.softmax(scores, dim=-1)
            aligned = attention @ prem
            position = attention @ torch.arange(prem.shape[1], dtype=torch.float32)
            step = torch.cat(
                [torch.zeros_like(position[:, :1]), torch.tanh((position[:, 1:] - position[:, :-1]) / 4.0)],
                dim=1,
            )
            peak = attention.max(dim=-1).values
            compared = torch.cat(
                [
                    hyp,
                    aligned,
                    hyp - aligned,
                    hyp * aligned,
                    b["hypothesis_flags"],
                    step[..., None],
                    peak[..., None],
                ],
                dim=-1,
            )
            local = torch.relu(compared @ self.w_cmp1 + self.b_cmp1)
            local = torch.relu(local @ self.w_cmp2 + self.b_cmp2) * hyp_mask[..., None]
            local = (local + torch.relu(self.conv3(local, self.w_mix, self.b_mix, hyp_mask))) * hyp_mask[
                ..., None
            ]
            counts = hyp_mask.sum(dim=1, keepdim=True).clamp(min=1.0)
            pooled = torch.cat([local.sum(dim=1) / counts, local.max(dim=1).values], dim=-1)
            hidden = torch.relu(pooled @ self.w_out1 + self.b_out1)
            return hidden @ self.w_out2 + self.b_out2

    return Aligner()


def to_tensors(torch: Any, batch: PairBatch) -> dict[str, Any]:
    return {name: torch.from_numpy(getattr(batch, name)) for name in PairBatch.__dataclass_fields__}


# ---------------------------------------------------------------------------------------------
# Training and evaluation


@dataclass(frozen=True)
class Encoded:
    premise: TextTokens
    hypothesis: TextTokens
    label: float


def encode_all(tokenizer: Tokenizer, examples: Sequence[Example]) -> list[Encoded]:
    premises = {
        p: t
        for p, t in zip(
            *_read_distinct(tokenizer, [e.premise for e in examples], MAX_PREMISE_TOKENS), strict=True
        )
    }
    hypotheses = tokenizer.read([e.hypothesis for e in examples], MAX_HYPOTHESIS_TOKENS)
    return [
        Encoded(premises[e.premise], h, float(e.entailed)) for e, h in zip(examples, hypotheses, strict=True)
    ]


def _read_distinct(
    tokenizer: Tokenizer, texts: Sequence[str], limit: int
) -> tuple[list[str], list[TextTokens]]:
    distinct = list(dict.fromkeys(texts))
    return distinct, tokenizer.read(distinct, limit)


def batches(encoded: Sequence[Encoded], size: int, rng: np.random.Generator | None) -> Iterator[list[int]]:
    """Index batches of similar premise length (shuffled when ``rng`` is given)."""
    order = np.arange(len(encoded)) if rng is None else rng.permutation(len(encoded))
    chunk = size * 50
    found: list[list[int]] = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk].tolist(), key=lambda i: len(encoded[i].premise.ids))
        found.extend(part[k : k + size] for k in range(0, len(part), size))
    if rng is not None:
        found = [found[i] for i in rng.permutation(len(found))]
    yield from found


def make_batch(torch: Any, encoded: Sequence[Encoded], rows: Sequence[int]) -> tuple[dict[str, Any], Any]:
    picked = [encoded[i] for i in rows]
    batch = assemble_batch(
        [e.premise for e in picked], [e.hypothesis for e in picked], np.arange(len(picked))
    )
    return to_tensors(torch, batch), torch.tensor([e.label for e in picked], dtype=torch.float32)


def predict(torch: Any, model: Any, encoded: Sequence[Encoded]) -> np.ndarray:
    out = np.zeros(len(encoded), dtype=np.float64)
    model.eval()
    with torch.no_grad():
        for rows in batches(encoded, 256, None):
            tensors, _ = make_batch(torch, encoded, rows)
            out[rows] = torch.sigmoid(model(tensors)).numpy()
    return out


def auroc(y: np.ndarray, p: np.ndarray) -> float:
    """Area under the ROC curve (ties count half)."""
    pos, neg = p[y == 1], p[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order))
    values = np.concatenate([pos, neg])[order]
    i = 0
    while i < len(values):  # average ranks over ties
        j = i
        while j + 1 < len(values) and values[j + 1] == values[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def report(examples: Sequence[Example], p: np.ndarray) -> dict[str, dict[str, float]]:
    """Held-out accuracy (at 0.5) and AUROC per source, and accuracy per kind of edit."""
    y = np.array([e.entailed for e in examples], dtype=np.float64)
    rows: dict[str, dict[str, float]] = {}
    groups: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(examples):
        groups[e.source].append(i)
        if e.kind:
            groups[f"  {e.source}:{e.kind}"].append(i)
    groups["all"] = list(range(len(examples)))
    print(f"\n{'held out':<32} {'n':>6} {'entailed':>9} {'accuracy':>9} {'AUROC':>7}")
    for name in sorted(groups, key=lambda g: (g.strip().split(":")[0], g.startswith(" "), g)):
        idx = np.array(groups[name])
        accuracy = float(((p[idx] >= 0.5) == (y[idx] == 1)).mean())
        area = auroc(y[idx], p[idx])
        rows[name.strip()] = {"n": len(idx), "accuracy": accuracy, "auroc": area}
        shown = "" if np.isnan(area) else f"{area:.3f}"
        print(f"{name:<32} {len(idx):>6} {y[idx].mean():>9.2f} {accuracy:>9.3f} {shown:>7}")
    return rows


def train(args: argparse.Namespace) -> int:
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    started = time.perf_counter()
    examples = load_examples(args.data, args.datasets, args.sources, args.seed)
    training = [e for e in examples if not held_out(e.source, e.group, args.seed)]
    testing = [e for e in examples if held_out(e.source, e.group, args.seed)]
    if args.quick:
        training = random.Random(args.seed).sample(training, min(len(training), 12000))
    print(f"\n{len(training)} training pairs, {len(testing)} held out")

    embedder = load_embedder()
    tokenizer = Tokenizer.of(embedder)
    matrix = embedder.token_matrix
    encoded_train = encode_all(tokenizer, training)
    encoded_test = encode_all(tokenizer, testing)
    print(f"read in {time.perf_counter() - started:.0f} s")

    model = build_model(torch, matrix, args.dim)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    steps = args.epochs * ((len(encoded_train) + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, total_steps=steps, pct_start=0.1
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    rng = np.random.default_rng(args.seed)
    for epoch in range(args.epochs):
        model.train()
        total, count = 0.0, 0
        for rows in batches(encoded_train, args.batch, rng):
            tensors, labels = make_batch(torch, encoded_train, rows)
            loss = loss_fn(model(tensors), labels)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            schedule.step()
            total += float(loss.detach()) * len(rows)
            count += len(rows)
        p = predict(torch, model, encoded_test)
        y = np.array([e.label for e in encoded_test])
        print(
            f"epoch {epoch + 1}: train loss {total / count:.4f}, held-out accuracy "
            f"{((p >= 0.5) == (y == 1)).mean():.3f}, AUROC {auroc(y, p):.3f} ({time.perf_counter() - started:.0f} s)"
        )

    weights = {name: getattr(model, name).detach().numpy().astype(np.float16) for name in PARAMETER_SHAPES}
    # judge the model the package will run: float16 weights, read back as float32
    with torch.no_grad():
        for name, value in weights.items():
            getattr(model, name).copy_(torch.from_numpy(value.astype(np.float32)))
    figures = report(testing, predict(torch, model, encoded_test))
    meta = {
        "format": FORMAT_VERSION,
        "token_flags": list(TOKEN_FLAGS),
        "embedder": "wordllama l2_supercat 256",
        "seed": args.seed,
        "epochs": args.epochs,
        "sources": list(args.sources),
        "training_pairs": len(training),
        "held_out": {k: v for k, v in figures.items() if ":" not in k},
    }
    data = weights_bytes(weights, meta)
    print(f"\nweights: {len(data) / 1e6:.2f} MB, sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.write:
        WEIGHTS_PATH.write_bytes(data)
        write_parity_fixture(torch, model, tokenizer)
        print(f"wrote {WEIGHTS_PATH.relative_to(ROOT)} and {PARITY_PATH.relative_to(ROOT)}")
    return 0


def weights_bytes(weights: dict[str, np.ndarray], meta: dict[str, Any]) -> bytes:
    """An .npz archive whose bytes depend only on the arrays (fixed entry dates and order)."""
    arrays = {**weights, "meta": np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arrays[name], order="C"), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# The parity fixture: torch's outputs on sentences made from templates here (no dataset text)

_PEOPLE = ["Mara Quint", "Tobias Wren", "Ilse Varga", "Joran Pike", "the council", "the museum", "a baker"]
_VERBS = ["hired", "thanked", "visited", "sued", "replaced", "praised"]
_PLACES = ["Lisbon", "Oslo", "a harbour town", "the old mill", "Kraków"]
_THINGS = ["the bridge", "a red kite", "the archive", "twelve lanterns", "the 1904 charter"]


def parity_pairs(count: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        a, b = rng.sample(_PEOPLE, 2)
        verb, place, thing = rng.choice(_VERBS), rng.choice(_PLACES), rng.choice(_THINGS)
        year = rng.randrange(1850, 2020)
        premise = f"In {year}, {a} {verb} {b} in {place}. Later {b} moved {thing} to {rng.choice(_PLACES)}."
        hypothesis = rng.choice(
            [
                f"{a} {verb} {b}.",
                f"{b} {verb} {a}.",
                f"In {year + rng.choice([-3, 0, 2])}, {a} {verb} {b}.",
                f"{a} did not {verb.removesuffix('ed')} {b} in {place}.",
                f"{b} moved {thing}.",
                f"{rng.choice(_PEOPLE)} moved {rng.choice(_THINGS)}.",
                "",
            ]
        )
        pairs.append((premise if rng.random() > 0.02 else "", hypothesis))
    return pairs


def write_parity_fixture(torch: Any, model: Any, tokenizer: Tokenizer) -> None:
    pairs = parity_pairs(300, SEED)
    model.eval()
    with torch.no_grad():
        logits = model(to_tensors(torch, batch_pairs(tokenizer, pairs)))
    probabilities = torch.sigmoid(logits).numpy().astype(np.float64)
    rows = [
        {"premise": p, "hypothesis": h, "probability": float(round(v, 7))}
        for (p, h), v in zip(pairs, probabilities, strict=True)
    ]
    PARITY_PATH.parent.mkdir(parents=True, exist_ok=True)
    PARITY_PATH.write_text(json.dumps(rows, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of the public sets (see the table)")
    add_datasets_option(parser)
    parser.add_argument("--sources", nargs="+", default=list(PUBLIC_SOURCES), choices=PUBLIC_SOURCES)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--quick", action="store_true", help="train on 12,000 pairs (for trying changes)")
    parser.add_argument("--write", action="store_true", help="write the weights and the parity fixture")
    return train(parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
