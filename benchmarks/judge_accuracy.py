"""How accurate is the offline judge on its dev suite? BA and AUROC per set, with bootstrap intervals.

    python benchmarks/judge_accuracy.py --list
    python benchmarks/judge_accuracy.py [--sets a,b] [--limit N] [--bootstrap 2000] [--coverage]
                                        [--save run.npz] [--compare before.npz] [--speed]
                                        [--datasets ../shared/datasets] [--suite ../dev_suite]

The suite (testkit/dev_suite.py) is the team's three sets in ``shared/datasets`` and the public sets
that ``benchmarks/dev_suite/build.py`` converts into ``dev_suite/``. The team's sets are scored
held-out, as before: LFQA and BEGIN by models fitted without the file scored (and without any record
that shares an answer with it), at the threshold chosen on the training side; nq301 correctness by
grouped 5-fold cross-validation. The public sets are never fitted on, so they are scored by the
shipped judge as it is used: the verdict is ``assert_faithful`` at its default pass mark (grade 4 of
5), the score is the whole-answer support probability.

Per set: balanced accuracy (BA) of the verdict and AUROC of the probability, with seeded percentile
bootstrap 95% intervals (pytest_rag.stats), then the unweighted mean over the faithfulness sets with
the interval of the mean. ``--coverage`` adds the BA of the 30/50/70/100% most confident verdicts
(confidence = |probability - the judge's cut|). ``--save`` stores every record's label, probability,
verdict and confidence; ``--compare`` pairs this run with a stored one record by record and prints
the change per set and for the mean with paired bootstrap intervals, and whether the change is kept
by the suite's rule (the mean BA up with its interval above zero, no set's BA down beyond its
interval).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402
from dev_suite import (  # noqa: E402
    BY_NAME,
    COVERAGES,
    REBUILD,
    SETS,
    DevSuiteError,
    SetScores,
    checked,
    count_rows,
    coverage_curve,
    default_suite,
    load_scores,
    paired_changes,
    read_records,
    save_scores,
    set_file,
    suite_figures,
    suite_folder,
)
from script_loader import load_script  # noqa: E402

SEED = 13
ANCHORS = {"nq301": "GPT-4 84.3% · text-davinci-003 85.0% · BEM 81.1% (accuracy, same 660 records)"}
HELD_OUT = ("lfqa_answer", "lfqa_sentence", "begin", "nq301")
PASS_MARK = 4  # the faithfulness metric's default threshold on its 1-5 scale
Array = npt.NDArray[np.float64]


def _load_fit_module() -> ModuleType:
    """scripts/fit_local_judge.py (also for benchmarks/entailment_dev_sets.py)."""
    return load_script("fit_local_judge")


def bootstrap(
    y: Array, statistic: Callable[[npt.NDArray[np.int64]], float], n: int, seed: int
) -> tuple[float, float]:
    """Seeded percentile bootstrap 95% interval of ``statistic(indices)`` over records, skipping
    one-label resamples. Kept for benchmarks/answer_kind_accuracy.py and entailment_dev_sets.py, whose
    printed figures rest on it; the suite's figures use pytest_rag.stats (testkit/dev_suite.py)."""
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
    """``statistic(after) - statistic(before)`` and its paired percentile bootstrap 95% interval
    (``before``, ``after``: scores and thresholds of the same records); for answer_kind_accuracy.py."""

    def delta(idx: npt.NDArray[np.int64]) -> float:
        return statistic(y[idx], *(a[idx] for a in after)) - statistic(y[idx], *(b[idx] for b in before))

    low, high = bootstrap(y, delta, n, seed)
    return delta(np.arange(len(y))), low, high


def held_out_predictions(fit: ModuleType, root: Path) -> dict[str, tuple[Array, Array, Array]]:
    """Per team set: labels, held-out probabilities, and the threshold each was judged by."""
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


def held_out_scores(datasets: Path, names: list[str]) -> dict[str, SetScores]:
    """The team's sets, scored by calibrations fitted without them (scripts/fit_local_judge.py)."""
    if not names:
        return {}
    out: dict[str, SetScores] = {}
    for name, (y, p, threshold) in held_out_predictions(_load_fit_module(), datasets).items():
        if name in names:
            path = datasets / BY_NAME[name].path
            ids = [json.loads(line)["id"] for line in path.open(encoding="utf-8") if line.strip()]
            out[name] = _scores(ids, y, p, p >= threshold, np.abs(p - threshold))
    return out


def shipped_scores(suite: Path, names: list[str], limit: int | None) -> dict[str, SetScores]:
    """The public sets, scored by the shipped judge as ``assert_faithful`` uses it."""
    from pytest_rag.judges.local.scorer import LocalScorer
    from pytest_rag.judges.local.tasks import grade_for_kind

    scorer = LocalScorer.load()
    out: dict[str, SetScores] = {}
    for name in names:
        records = read_records(set_file(BY_NAME[name], Path(), suite))[:limit]
        p, verdict, confidence = [], [], []
        start = time.perf_counter()
        for record in records:
            report = scorer.support(record["answer"], record["contexts"], record.get("question") or None)
            p.append(report.probability)
            verdict.append(grade_for_kind(scorer, report, record["answer"])[0] >= PASS_MARK)
            confidence.append(abs(report.probability - report.cut))
        y = [r["faithful"] for r in records]
        out[name] = _scores(
            [r["id"] for r in records], np.array(y), np.array(p), np.array(verdict), np.array(confidence)
        )
        print(
            f"  scored {name}: {len(records)} records in {time.perf_counter() - start:.0f} s", file=sys.stderr
        )
    return out


def _scores(
    ids: list[str], y: np.ndarray, p: np.ndarray, verdict: np.ndarray, confidence: np.ndarray
) -> SetScores:
    as_float = [np.asarray(a, dtype=np.float64) for a in (y, p, verdict, confidence)]
    if len(ids) != len(as_float[0]):
        raise DevSuiteError(
            f"{len(ids)} ids for {len(as_float[0])} scored records: the set file changed under the run"
        )
    return SetScores(tuple(ids), *as_float)


def list_sets(datasets: Path, suite: Path) -> None:
    print(f"{'set':<16} {'rows':>5} {'faithful':>8}  {'licence':<38} kind")
    for dev_set in SETS:
        counted = count_rows(set_file(dev_set, datasets, suite))
        rows, faithful = (f"{counted[0]:>5}", f"{counted[1]:>8}") if counted else ("    -", "       -")
        print(f"{dev_set.name:<16} {rows} {faithful}  {dev_set.licence:<38} {dev_set.kind}")
    missing = [s.name for s in SETS if count_rows(set_file(s, datasets, suite)) is None]
    if missing:
        print(f"\nnot built: {', '.join(missing)} (`{REBUILD}`, or --datasets / --suite)")
    print(
        f"\nteam sets: {datasets}\npublic sets: {suite}  (sources and commits: benchmarks/dev_suite/README.md)"
    )


def report(scores: dict[str, SetScores], resamples: int, coverage: bool) -> None:
    figures = suite_figures(scores, resamples)
    print("Offline judge on the dev suite (95% seeded percentile bootstrap intervals)\n")
    print(f"{'set':<16} {'n':>4}  {'balanced accuracy':<24} {'AUROC':<24} scored")
    for name, s in scores.items():
        how = "held out" if name in HELD_OUT else "shipped judge, grade >= 4"
        ba, au = figures.per_set[name]["ba"], figures.per_set[name]["auroc"]
        print(f"{name:<16} {len(s.ids):>4}  {ba.show():<24} {au.show():<24} {how}")
    ba_mean, au_mean = figures.mean["ba"], figures.mean["auroc"]
    if ba_mean is not None and au_mean is not None:
        print(
            f"{'mean':<16} {len(figures.mean_sets):>4}  {ba_mean.show():<24} {au_mean.show():<24} unweighted, sets:"
        )
        print(f"{'':<23}{', '.join(figures.mean_sets)}")
    if coverage:
        print("\nThe most confident verdicts (confidence = |probability - cut|): accuracy/BA by coverage")
        print(f"{'set':<16} " + " ".join(f"{f'{c:.0%}':>12}" for c in COVERAGES))
        for name, s in scores.items():
            curve = coverage_curve(s)
            print(f"{name:<16} " + " ".join(f"{curve[c].show():>12}" for c in COVERAGES))


def compare(path: Path, scores: dict[str, SetScores], resamples: int) -> None:
    before, note = load_scores(path)
    change = paired_changes(before, scores, resamples)
    print(f"\nchange against {path}{f' ({note})' if note else ''} (paired bootstrap 95% intervals)")
    for name in change.per_set:
        ba, au = change.per_set[name]["ba"], change.per_set[name]["auroc"]
        extra = f"  ({change.unshared[name]} records in one run only)" if change.unshared[name] else ""
        print(f"{name:<16} BA {ba.show(signed=True):<26} AUROC {au.show(signed=True)}{extra}")
    for name in scores:
        if name not in change.per_set:
            print(f"{name:<16} not in the saved run")
    ba_mean, au_mean = change.mean["ba"], change.mean["auroc"]
    if ba_mean is not None and au_mean is not None:
        print(f"{'mean':<16} BA {ba_mean.show(signed=True):<26} AUROC {au_mean.show(signed=True)}")
    print("kept by the suite's rule" if change.kept else "not kept: " + "; ".join(change.reasons))


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


def selected(text: str | None) -> list[str]:
    if not text:
        return [s.name for s in SETS]
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"no dev set named {', '.join(unknown)}; the sets: {', '.join(BY_NAME)}"
        )
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument(
        "--suite", type=Path, default=default_suite(), help="folder of the converted public sets"
    )
    parser.add_argument(
        "--list", action="store_true", help="name every dev set with its kind, rows and licence"
    )
    parser.add_argument(
        "--sets", type=selected, default=selected(None), help="comma-separated sets (default all)"
    )
    parser.add_argument(
        "--limit", type=int, help="score only the first N records of each public set (a quick look)"
    )
    parser.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--coverage", action="store_true", help="BA of the most confident verdicts")
    parser.add_argument("--save", type=Path, help="store this run's per-record scores (.npz)")
    parser.add_argument("--compare", type=Path, help="paired changes against a --save file")
    parser.add_argument("--speed", action="store_true", help="also time loading and a 5-passage check")
    args = parser.parse_args(argv)
    if args.list:
        list_sets(args.datasets, args.suite)
        return 0
    public = [name for name in args.sets if name not in HELD_OUT]
    if public:
        try:
            suite_folder(str(args.suite))
        except argparse.ArgumentTypeError as exc:
            parser.error(str(exc))
    if args.compare and not args.compare.is_file():
        parser.error(f"no saved run at {args.compare}: write one first with --save")
    try:
        scores = held_out_scores(args.datasets, [n for n in args.sets if n in HELD_OUT])
        scores.update(shipped_scores(args.suite, public, args.limit))
        scores = {name: checked(name, scores[name]) for name in args.sets}
        if args.save:
            note = f"limit {args.limit}" if args.limit else "full sets"
            save_scores(args.save, scores, note)
        report(scores, args.bootstrap, args.coverage)
        if args.compare:
            compare(args.compare, scores, args.bootstrap)
    except DevSuiteError as exc:
        print(f"judge_accuracy: {exc}", file=sys.stderr)
        return 2
    if "nq301" in scores:
        print("\nnq301 anchors:", ANCHORS["nq301"])
    if args.speed:
        print(f"\nload (fresh interpreter, best of 3): {load_seconds():.3f} s")
        print(f"support(): 5 sentences x 5 contexts of ~1000 chars, median {latency_ms():.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
