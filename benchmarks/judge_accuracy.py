"""How accurate and how fast is the offline judge? Held-out figures with bootstrap intervals.

    python benchmarks/judge_accuracy.py [--datasets ../shared/datasets] [--bootstrap 2000]
                                        [--save before.npz] [--compare before.npz]

Each grounding dataset is scored by models fitted without it (and without any record that shares
an answer with it); nq301 correctness by grouped 5-fold cross-validation, since it is the only
correctness dataset. Balanced accuracy uses the threshold chosen on the training side. Intervals
are seeded percentile bootstraps over records. The published nq301 anchors are printed beside our
figure. Load time is measured in a fresh interpreter; latency is the shipped scorer on a
5-sentence answer against 5 contexts of about 1,000 characters.

``--save`` stores the held-out labels, probabilities and thresholds; ``--compare`` reads such a
file from an earlier calibration and prints the change in balanced accuracy and AUROC with a
paired bootstrap interval (the same resampled records scored by both).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402

Array = npt.NDArray[np.float64]
SEED = 13
ANCHORS = {"nq301": "GPT-4 84.3% · text-davinci-003 85.0% · BEM 81.1% (accuracy, same 660 records)"}
TARGETS = {"lfqa_answer": 0.80, "lfqa_sentence": 0.87, "begin": 0.88, "nq301": 0.85}


def _load_fit_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_local_judge", ROOT / "scripts" / "fit_local_judge.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fit_local_judge"] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def bootstrap(
    y: Array, statistic: Callable[[npt.NDArray[np.int64]], float], n: int, seed: int
) -> tuple[float, float]:
    """Seeded percentile bootstrap 95% interval of ``statistic(indices)`` over records."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n):
        idx = rng.integers(0, len(y), len(y))
        if y[idx].min() == y[idx].max():
            continue  # a resample with one class has no balanced accuracy or AUROC
        values.append(statistic(idx))
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def paired_change(
    y: Array,
    before: tuple[Array, Array],
    after: tuple[Array, Array],
    statistic: Callable[[Array, Array, Array], float],
    n: int,
    seed: int,
) -> tuple[float, float, float]:
    """``statistic(after) - statistic(before)`` and its paired percentile bootstrap 95% interval.

    ``before`` and ``after`` are (scores, thresholds) for the same records in the same order.
    """

    def delta(idx: npt.NDArray[np.int64]) -> float:
        return statistic(y[idx], *(a[idx] for a in after)) - statistic(y[idx], *(b[idx] for b in before))

    low, high = bootstrap(y, delta, n, seed)
    return delta(np.arange(len(y))), low, high


def held_out_predictions(fit: ModuleType, root: Path) -> dict[str, tuple[Array, Array, Array]]:
    """Per dataset: labels, held-out probabilities, and the threshold each was judged by."""
    from pytest_rag.judges.local.embedder import load_embedder

    embedder = load_embedder()
    records = fit.load_grounding(root, embedder)
    out: dict[str, tuple[Array, Array, Array]] = {}
    for dataset in ("lfqa_answer", "lfqa_sentence", "begin"):
        y, p, threshold = fit.file_out_predictions(records, dataset)
        out[dataset] = (y, p, np.full(len(y), threshold))
    x, y, questions = fit.load_correctness(root, embedder)
    out["nq301"] = (y, *fit.grouped_cv_predictions(x, y, questions, fit.CORRECTNESS_FEATURES))
    return out


def load_seconds() -> float:
    """LocalScorer.load() in a fresh interpreter (imports of the judge included)."""
    code = (
        "import time; t=time.perf_counter(); from pytest_rag.judges.local.scorer import LocalScorer; "
        "LocalScorer.load(); print(time.perf_counter()-t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    ]
    return min(runs)


def latency_ms() -> float:
    """Median ms of support() for a 5-sentence answer against 5 contexts of ~1,000 characters."""
    from pytest_rag.judges.local.scorer import LocalScorer

    scorer = LocalScorer.load()
    rng = np.random.default_rng(SEED)
    words = (  # noqa: SIM905
        "river bridge council budget engine winter harvest museum protein orbit voltage "
        "treaty glacier vaccine tariff opera canal satellite enzyme drought"
    ).split()

    def sentence(k: int) -> str:
        picked = rng.choice(words, size=8)
        objects = " and ".join(picked[3:6])
        place, subject, thing = picked[0], picked[1], picked[2]
        return f"In {1900 + k} the {place} near the {subject} changed the {thing} of {objects}."

    contexts = [" ".join(sentence(i * 20 + j) for j in range(11))[:1000] for i in range(5)]
    answer = " ".join(sentence(k) for k in range(5))
    scorer.support(answer, contexts)
    times = []
    for _ in range(30):
        start = time.perf_counter()
        scorer.support(answer, contexts)
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--bootstrap", type=int, default=2000)
    parser.add_argument("--save", type=Path, help="store held-out predictions (.npz)")
    parser.add_argument("--compare", type=Path, help="paired changes against a --save file")
    args = parser.parse_args()
    fit = _load_fit_module()
    predictions = held_out_predictions(fit, args.datasets)
    if args.save:
        arrays: dict[str, Any] = {
            f"{name}_{part}": a for name, v in predictions.items() for part, a in zip("ypt", v, strict=True)
        }
        np.savez(args.save, **arrays)

    print("Offline judge, held-out accuracy (95% seeded percentile bootstrap intervals)\n")
    print(f"{'dataset':<15} {'n':>4}  {'balanced accuracy':<24} {'AUROC':<24} target")
    for name, (y, p, thr) in predictions.items():
        predicted = p >= thr
        ba = fit.balanced_accuracy(y, predicted)
        au = fit.auroc(y, p)
        predicted_all = predicted
        ba_ci = bootstrap(
            y,
            lambda i: fit.balanced_accuracy(y[i], predicted_all[i]),  # noqa: B023
            args.bootstrap,
            SEED,
        )
        au_ci = bootstrap(y, lambda i: fit.auroc(y[i], p[i]), args.bootstrap, SEED)  # noqa: B023
        met = "met" if ba >= TARGETS[name] else "not met"
        print(
            f"{name:<15} {len(y):>4}  {ba:.3f} [{ba_ci[0]:.3f}, {ba_ci[1]:.3f}]     "
            f"{au:.3f} [{au_ci[0]:.3f}, {au_ci[1]:.3f}]     >= {TARGETS[name]:.2f} ({met})"
        )
    if args.compare:
        saved = np.load(args.compare)
        print(f"\nchange against {args.compare} (paired bootstrap 95% intervals)")
        for name, (y, p, thr) in predictions.items():
            if not np.array_equal(saved[f"{name}_y"], y):
                print(f"{name:<15} records differ from the saved run; no paired comparison")
                continue
            old = (saved[f"{name}_p"], saved[f"{name}_t"])
            ba = paired_change(
                y, old, (p, thr), lambda yy, pp, tt: fit.balanced_accuracy(yy, pp >= tt), args.bootstrap, SEED
            )
            au = paired_change(y, old, (p, thr), lambda yy, pp, _: fit.auroc(yy, pp), args.bootstrap, SEED)
            print(
                f"{name:<15} balanced accuracy {ba[0]:+.3f} [{ba[1]:+.3f}, {ba[2]:+.3f}]   "
                f"AUROC {au[0]:+.3f} [{au[1]:+.3f}, {au[2]:+.3f}]"
            )
    print("\nnq301 anchors:", ANCHORS["nq301"])
    print(f"\nload (fresh interpreter, best of 3): {load_seconds():.3f} s")
    print(f"support(): 5 sentences x 5 contexts of ~1000 chars, median {latency_ms():.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
