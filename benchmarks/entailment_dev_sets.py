"""The learned entailment model on its own, against the dev sets, beside the offline judge.

    python benchmarks/entailment_dev_sets.py [--datasets ../shared/datasets] [--bootstrap 1000]

Every answer is cut into the judge's units (``scorer.answer_units``); each unit is compared with
its best one and best three context spans, ranked as the judge's alignment ranks them (lexical
precision plus embedding cosine, narrower spans preferred); a unit's score is its best span's
P(entailed) and an answer's score is its weakest unit's. Printed per dataset, with seeded
bootstrap 95% intervals: AUROC, and balanced accuracy at P = 0.5 (the model's own cut, nothing
fitted on these sets), for the model with 1 and 3 spans; the offline judge's held-out support
probability on the same records (``benchmarks/judge_accuracy.py``: models fitted without the
dataset); and both joined in a logistic model by grouped 5-fold cross-validation, a first look
at what the model adds as a feature (the integration step fits this for real).

The hand-written probes of ``benchmarks/rag_probes*.jsonl`` are scored too, beside the shipped
judge, which was never fitted on them.

nq301 has no contexts: there the premise is "question? reference" (best over the references)
and the hypothesis "question? answer", which asks whether the answer restates a reference.

The dev sets' passages (never their answers or labels) were among the passages the training
script edited synthetically, so these figures are in-domain for the premises.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.judges.local.alignment import index_contexts, top_spans  # noqa: E402
from pytest_rag.judges.local.embedder import StaticEmbedder, load_embedder  # noqa: E402
from pytest_rag.judges.local.entailment import EntailmentModel, load_entailment_model  # noqa: E402
from pytest_rag.judges.local.scorer import answer_units  # noqa: E402

Array = npt.NDArray[np.float64]
SEED = 13
SPAN_COUNTS = (1, 3)


@dataclass(frozen=True)
class Record:
    answer: str
    contexts: tuple[str, ...]
    label: float
    group: str


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def grounding_sets(root: Path) -> dict[str, list[Record]]:
    """The grounding records in the order ``fit_local_judge.load_grounding`` reads them."""
    lfqa = root / "lfqa_verification"
    out: dict[str, list[Record]] = {}
    for name, path in (("lfqa_sentence", "sentence_level.jsonl"), ("lfqa_answer", "answer_level.jsonl")):
        out[name] = [
            Record(
                r["answer"],
                tuple(r["contexts"]),
                float(r["faithful"]),
                f"lfqa:{r['setting']}:{r['question_id']}",
            )
            for r in read_jsonl(lfqa / path)
        ]
    out["begin"] = [
        Record(r["answer"], tuple(r["contexts"]), float(r["faithful"]), f"begin:{r['id']}")
        for r in read_jsonl(root / "begin_grounded_dialogue" / "data.jsonl")
    ]
    return out


def grounding_scores(
    model: EntailmentModel, embedder: StaticEmbedder, records: Sequence[Record]
) -> tuple[dict[int, Array], float]:
    """Per span count: each answer's weakest unit's best P(entailed); and seconds spent in the model."""
    scores = {k: np.zeros(len(records)) for k in SPAN_COUNTS}
    model_seconds = 0.0
    for row, record in enumerate(records):
        index = index_contexts(embedder, record.contexts)
        units = answer_units(record.answer) or [record.answer]
        ranked = [top_spans(embedder, index, unit, max(SPAN_COUNTS)) for unit in units]
        pairs = [(span, unit) for unit, spans in zip(units, ranked, strict=True) for span in spans]
        start = time.perf_counter()
        probabilities = model.probabilities(pairs) if pairs else np.zeros(0)
        model_seconds += time.perf_counter() - start
        for k in SPAN_COUNTS:
            per_unit, position = [], 0
            for spans in ranked:
                chunk = probabilities[position : position + len(spans)]
                per_unit.append(float(chunk[:k].max()) if len(chunk) else 0.0)
                position += len(spans)
            scores[k][row] = min(per_unit)
    return scores, model_seconds


def probe_rows(
    embedder: StaticEmbedder, model: EntailmentModel
) -> tuple[Array, dict[str, tuple[Array, Array]]]:
    """The hand-written probes of ``benchmarks/rag_probes*.jsonl`` (never fitted on): the model
    as on the grounding sets, and the shipped judge's probability with its calibrated cut."""
    from pytest_rag.judges.local import LocalScorer

    rows = [r for path in sorted((ROOT / "benchmarks").glob("rag_probes*.jsonl")) for r in read_jsonl(path)]
    records = [Record(r["answer"], tuple(r["contexts"]), float(r["faithful"]), r["id"]) for r in rows]
    scores, _ = grounding_scores(model, embedder, records)
    scorer = LocalScorer.load()
    reports = [scorer.support(r["answer"], r["contexts"], question=r.get("question")) for r in rows]
    judged = np.array([report.probability for report in reports])
    cuts = np.array([report.cut for report in reports])
    y = np.array([r.label for r in records])
    return y, {
        "entailment, 3 spans": (scores[3], np.full(len(y), 0.5)),
        "offline judge (shipped; never fitted on these)": (judged, cuts),
    }


def correctness_scores(model: EntailmentModel, root: Path) -> tuple[Array, Array, list[str]]:
    rows = read_jsonl(root / "nq301_answer_correctness" / "data.jsonl")
    pairs, owner = [], []
    for i, r in enumerate(rows):
        question = r["question"].rstrip("?").strip()
        for reference in r["references"]:
            pairs.append((f"{question}? {reference}.", f"{question}? {r['answer']}."))
            owner.append(i)
    probabilities = model.probabilities(pairs)
    best = np.zeros(len(rows))
    for i, p in zip(owner, probabilities, strict=True):
        best[i] = max(best[i], p)
    y = np.array([1.0 if r["correct"] else 0.0 for r in rows])
    return y, best, [r["question"] for r in rows]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def logit(p: Array) -> Array:
    clipped = np.clip(p, 1e-4, 1 - 1e-4)
    result: Array = np.log(clipped / (1 - clipped))
    return result


def joined_cv(
    fit: ModuleType, y: Array, columns: Sequence[Array], groups: Sequence[str]
) -> tuple[Array, Array]:
    """Grouped 5-fold out-of-fold probabilities of a logistic model on the given columns' log-odds."""
    x = np.column_stack([logit(c) for c in columns])
    features = [f"x{i}" for i in range(x.shape[1])]
    oof, thr = np.zeros(len(y)), np.zeros(len(y))
    for fold in fit.grouped_folds(groups, fit.FOLDS, SEED):
        test = np.array([g in fold for g in groups])
        model = fit.fit_one_source(x[~test], y[~test], features)
        oof[test] = [model.probability(row) for row in x[test]]
        thr[test] = model.threshold
    return oof, thr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()
    accuracy = _load("judge_accuracy", ROOT / "benchmarks" / "judge_accuracy.py")
    fit = accuracy._load_fit_module()
    embedder = load_embedder()
    model = load_entailment_model()

    judge = accuracy.held_out_predictions(fit, args.datasets)
    sets = grounding_sets(args.datasets)
    results: dict[str, tuple[Array, dict[str, tuple[Array, Array]]]] = {}
    pairs_timed = 0.0
    for name, records in sets.items():
        y = np.array([r.label for r in records])
        judge_y, judge_p, judge_t = judge[name]
        assert np.array_equal(judge_y, y), f"{name}: records differ from the judge's"
        scores, seconds = grounding_scores(model, embedder, records)
        pairs_timed += seconds
        groups = [r.group for r in records]
        rows = {
            f"entailment, {k} span{'s' if k > 1 else ''}": (scores[k], np.full(len(y), 0.5))
            for k in SPAN_COUNTS
        }
        rows["offline judge (held out)"] = (judge_p, judge_t)
        rows["judge + entailment (5-fold)"] = joined_cv(fit, y, [judge_p, scores[3]], groups)
        results[name] = (y, rows)
    y, best, questions = correctness_scores(model, args.datasets)
    judge_y, judge_p, judge_t = judge["nq301"]
    assert np.array_equal(judge_y, y)
    results["nq301"] = (
        y,
        {
            "entailment (restates a reference)": (best, np.full(len(y), 0.5)),
            "offline judge (5-fold)": (judge_p, judge_t),
            "judge + entailment (5-fold)": joined_cv(fit, y, [judge_p, best], questions),
        },
    )

    results["probes (rag_probes*.jsonl)"] = probe_rows(embedder, model)

    print("Learned entailment model on the dev sets (95% seeded percentile bootstrap intervals)\n")
    for name, (y, rows) in results.items():
        print(f"{name} (n={len(y)})")
        for label, (p, thr) in rows.items():
            ba = fit.balanced_accuracy(y, p >= thr)
            au = fit.auroc(y, p)
            ba_ci = accuracy.bootstrap(
                y, lambda i, y=y, p=p, t=thr: fit.balanced_accuracy(y[i], p[i] >= t[i]), args.bootstrap, SEED
            )
            au_ci = accuracy.bootstrap(y, lambda i, y=y, p=p: fit.auroc(y[i], p[i]), args.bootstrap, SEED)
            print(
                f"  {label:<36} balanced accuracy {ba:.3f} [{ba_ci[0]:.3f}, {ba_ci[1]:.3f}]   "
                f"AUROC {au:.3f} [{au_ci[0]:.3f}, {au_ci[1]:.3f}]"
            )
        print()
    print(f"time inside the entailment model for the grounding sets: {pairs_timed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
