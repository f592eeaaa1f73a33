"""The public dev suite of the offline judge (issue #34): which sets it has, where their records are,
and the figures every change of the judge is measured by.

Two kinds of set: the team's three in ``shared/datasets`` (found by :mod:`dev_datasets`), and the
public sets that ``benchmarks/dev_suite/<set>/convert.py`` writes from fetched repositories into
``dev_suite/<set>/data.jsonl`` beside the main checkout (``$PYTEST_RAG_DEV_SUITE`` names another
folder). Converted records are never committed: a missing folder is refused with the command that
rebuilds it.

The figures: balanced accuracy (BA) of the pass/fail verdict, AUROC of the support probability, each
with a seeded bootstrap interval of the project's own bootstrap (:mod:`pytest_rag.stats`); the
unweighted mean over the sets in :data:`MEAN_SETS` with the interval of the mean (the sets'
resampled estimates averaged resample by resample); paired changes against a saved run, per set and
for the mean, on the same resampled records; and how accurate the most confident verdicts are.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dev_datasets import main_checkout
from pytest_rag.stats import DEFAULT_SEED, Interval, percentile_interval, resampled_statistic

ENVIRONMENT = "PYTEST_RAG_DEV_SUITE"
REBUILD = "python benchmarks/dev_suite/build.py"
MIN_PER_CLASS = 20
"""Fewest records of either label a set may have: with fewer, bootstrap resamples that hold one label
only (where BA and AUROC are undefined) stop being negligible, and the intervals mean little."""

COVERAGES = (0.3, 0.5, 0.7, 1.0)

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class DevSet:
    """One dev set: ``home`` is ``"shared"`` (the team's sets, scored held-out by refitted
    calibrations) or ``"suite"`` (a public set, scored by the shipped judge as it is)."""

    name: str
    kind: str
    licence: str
    source: str
    home: str
    path: str  # relative to the home folder


SETS: tuple[DevSet, ...] = (
    DevSet(
        "lfqa_answer",
        "long-form answers vs retrieved documents (answer level)",
        "none stated (public research release)",
        "shared/datasets/lfqa_verification",
        "shared",
        "lfqa_verification/answer_level.jsonl",
    ),
    DevSet(
        "lfqa_sentence",
        "long-form answers vs retrieved documents (sentence level)",
        "none stated (public research release)",
        "shared/datasets/lfqa_verification",
        "shared",
        "lfqa_verification/sentence_level.jsonl",
    ),
    DevSet(
        "begin",
        "knowledge-grounded dialogue replies (BEGIN)",
        "CC BY 4.0",
        "shared/datasets/begin_grounded_dialogue",
        "shared",
        "begin_grounded_dialogue/data.jsonl",
    ),
    DevSet(
        "nq301",
        "short-answer correctness vs a reference (not faithfulness)",
        "MIT; questions from NQ-open, CC BY-SA 3.0",
        "shared/datasets/nq301_answer_correctness",
        "shared",
        "nq301_answer_correctness/data.jsonl",
    ),
    DevSet(
        "faithdial_audit",
        "knowledge-grounded dialogue replies (FaithDial's audit of WoW, CMU-DoG, TopicalChat)",
        "MIT",
        "McGill-NLP/FaithDial@25671c6",
        "suite",
        "faithdial_audit/data.jsonl",
    ),
    DevSet(
        "dialfact",
        "dialogue replies vs Wikipedia evidence (DialFact test sample)",
        "BSD-3-Clause",
        "salesforce/DialFact@d400b25",
        "suite",
        "dialfact/data.jsonl",
    ),
    DevSet(
        "expertqa",
        "claims of retrieval-augmented GPT-4 answers vs the web pages they cite",
        "MIT",
        "chaitanyamalaviya/ExpertQA@1aa7ba8",
        "suite",
        "expertqa/data.jsonl",
    ),
    DevSet(
        "factcheck_gpt",
        "claims of ChatGPT answers vs retrieved web evidence",
        "Apache-2.0",
        "yuxiaw/Factcheck-GPT@a9e6a04",
        "suite",
        "factcheck_gpt/data.jsonl",
    ),
    DevSet(
        "summedits",
        "summaries in 8 domains (news, podcasts, meetings, chats, sales calls and emails, science)",
        "Apache-2.0",
        "salesforce/factualNLG@0da1dfa",
        "suite",
        "summedits/data.jsonl",
    ),
    DevSet(
        "climate_fever",
        "fact verification: real-world claims vs Wikipedia sentences",
        "none stated in the repository",
        "tdiggelm/climate-fever-dataset@03de616",
        "suite",
        "climate_fever/data.jsonl",
    ),
)

MEAN_SETS = tuple(s.name for s in SETS if s.name not in ("lfqa_sentence", "nq301"))
"""The sets the suite's mean is taken over: every faithfulness set once. ``lfqa_sentence`` is the
sentences of the answers of ``lfqa_answer`` (counting both would weigh LFQA twice) and ``nq301``
asks whether an answer is correct, not whether it is supported; both are still reported."""

BY_NAME = {s.name: s for s in SETS}


def default_suite(root: Path | None = None) -> Path:
    """``$PYTEST_RAG_DEV_SUITE``, else ``dev_suite`` beside ``shared/`` (the main checkout's parent)."""
    named = os.environ.get(ENVIRONMENT)
    if named:
        return Path(named)
    return (main_checkout(root) if root else main_checkout()).parent / "dev_suite"


def suite_folder(text: str) -> Path:
    """The ``--suite`` value as a folder that exists (argparse's ``type``, applied to the default too)."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(
            f"no dev suite folder at {path}: build it with `{REBUILD}` (it converts the fetched "
            f"repositories), or pass --suite DIR or set {ENVIRONMENT} to where it was built"
        )
    return path


def set_file(dev_set: DevSet, datasets: Path, suite: Path) -> Path:
    """Where ``dev_set``'s records are."""
    return (datasets if dev_set.home == "shared" else suite) / dev_set.path


class DevSuiteError(Exception):
    """A set that cannot be read or scored; the message names the file and the fix."""


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of one converted set, each checked for the fields a faithfulness check needs."""
    if not path.is_file():
        raise DevSuiteError(f"{path} is missing: rebuild the dev suite with `{REBUILD}`")
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DevSuiteError(f"{path}:{number}: not JSON ({exc}); rebuild it with `{REBUILD}`") from None
        contexts, answer, faithful = record.get("contexts"), record.get("answer"), record.get("faithful")
        if (
            not isinstance(record.get("id"), str)
            or not isinstance(contexts, list)
            or not all(isinstance(c, str) for c in contexts)
            or not isinstance(answer, str)
            or not isinstance(faithful, bool)
        ):
            raise DevSuiteError(
                f"{path}:{number}: a record needs a string id, a list of string contexts, a string "
                f"answer and a boolean faithful; rebuild it with `{REBUILD}`"
            )
        records.append(record)
    return records


def count_rows(path: Path) -> tuple[int, int] | None:
    """(records, faithful records) of a set's file, or None when it is not there."""
    if not path.is_file():
        return None
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return len(rows), sum(1 for r in rows if r.get("faithful") is True or r.get("correct") is True)


@dataclass(frozen=True)
class SetScores:
    """What a run of the judge gave on one set, record by record, in the set's order: the human
    label (1 = faithful), the support probability, the verdict (1 = passes) and its confidence
    (larger = surer; |probability - the judge's cut|)."""

    ids: tuple[str, ...]
    y: Array
    p: Array
    verdict: Array
    confidence: Array

    def take(self, index: npt.NDArray[np.int64], ids: bool = True) -> SetScores:
        """These scores at ``index`` (positions, repeats allowed: a resample); without their ids
        when ``ids`` is false (a bootstrap resample needs none, and copying them is most of its
        cost)."""
        return SetScores(
            tuple(self.ids[i] for i in index) if ids else (),
            self.y[index],
            self.p[index],
            self.verdict[index],
            self.confidence[index],
        )


def checked(name: str, scores: SetScores) -> SetScores:
    """``scores`` once its arrays agree in length and it has :data:`MIN_PER_CLASS` of each label."""
    n = len(scores.ids)
    if not all(len(a) == n for a in (scores.y, scores.p, scores.verdict, scores.confidence)):
        raise DevSuiteError(f"{name}: ids, labels, probabilities, verdicts and confidences differ in length")
    positives = int(scores.y.sum())
    if min(positives, n - positives) < MIN_PER_CLASS:
        raise DevSuiteError(
            f"{name}: {positives} faithful and {n - positives} unfaithful records; a set needs at least "
            f"{MIN_PER_CLASS} of each for balanced accuracy and AUROC (raise --limit or leave the set out)"
        )
    return scores


def balanced_accuracy(y: Array, verdict: Array) -> float:
    """Mean of the pass rate of faithful records and the fail rate of unfaithful ones."""
    positive = y == 1
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return 0.5  # one label only (a rare resample): no skill can be shown, so chance
    passed = verdict == 1
    return float(((passed & positive).sum() / n_pos + (~passed & ~positive).sum() / n_neg) / 2)


def auroc(y: Array, scores: Array) -> float:
    """Area under the ROC curve of ``scores`` for ``y`` (ties count one half), vectorised: it runs
    once per bootstrap resample."""
    positive = y == 1
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return 0.5
    _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    ranks = ((ends - counts + 1 + ends) / 2)[inverse]
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


Statistic = Callable[[SetScores], float]
STATISTICS: dict[str, Statistic] = {
    "ba": lambda s: balanced_accuracy(s.y, s.verdict),
    "auroc": lambda s: auroc(s.y, s.p),
}


def set_seed(name: str, seed: int = DEFAULT_SEED) -> int:
    """A seed of its own per set (so the sets' resamples are independent draws), stable across runs."""
    return seed + zlib.crc32(name.encode()) % 100_000


def resampled(
    name: str, scores: Sequence[SetScores], statistic: Callable[..., float], resamples: int, seed: int
) -> Array:
    """``statistic(*resampled scores)`` on ``resamples`` seeded resamples of the records; several
    ``scores`` (of the same records, in the same order) are resampled together, for a paired change."""
    n = len(scores[0].ids)

    def on(positions: Array) -> float:
        index = positions.astype(np.int64)
        return float(statistic(*(s.take(index, ids=False) for s in scores)))

    return resampled_statistic(np.arange(n, dtype=np.float64), on, resamples, set_seed(name, seed))


@dataclass(frozen=True)
class Figure:
    value: float
    interval: Interval

    def show(self, signed: bool = False) -> str:
        form = "{:+.3f}" if signed else "{:.3f}"
        low, high = form.format(self.interval.low), form.format(self.interval.high)
        return f"{form.format(self.value)} [{low}, {high}]"


@dataclass(frozen=True)
class SuiteFigures:
    """Per statistic ("ba", "auroc"): per set its figure, and the mean over :data:`MEAN_SETS`
    present (None when none is)."""

    per_set: dict[str, dict[str, Figure]]
    mean: dict[str, Figure | None]
    mean_sets: tuple[str, ...]


def suite_figures(scores: Mapping[str, SetScores], resamples: int, seed: int = DEFAULT_SEED) -> SuiteFigures:
    """BA and AUROC per set with intervals, and their unweighted mean over the mean's sets."""
    in_mean = tuple(name for name in scores if name in MEAN_SETS)
    per_set: dict[str, dict[str, Figure]] = {name: {} for name in scores}
    mean: dict[str, Figure | None] = {}
    for key, statistic in STATISTICS.items():
        estimates = {}
        for name, s in scores.items():
            estimates[name] = resampled(name, [s], statistic, resamples, seed)
            per_set[name][key] = Figure(statistic(s), percentile_interval(estimates[name], n=len(s.ids)))
        mean[key] = _mean_figure([per_set[n][key].value for n in in_mean], [estimates[n] for n in in_mean])
    return SuiteFigures(per_set, mean, in_mean)


def _mean_figure(values: Sequence[float], estimates: Sequence[Array]) -> Figure | None:
    if not values:
        return None
    return Figure(float(np.mean(values)), percentile_interval(np.mean(np.vstack(estimates), axis=0)))


def aligned(before: SetScores, after: SetScores) -> tuple[SetScores, SetScores, int]:
    """The two runs on the records both scored, in ``after``'s order, and how many records only one
    of them scored. A record whose label differs between the runs is a different set: refused."""
    where = {identifier: i for i, identifier in enumerate(before.ids)}
    shared = [i for i, identifier in enumerate(after.ids) if identifier in where]
    unshared = len(after.ids) + len(before.ids) - 2 * len(shared)
    b = before.take(np.asarray([where[after.ids[i]] for i in shared], dtype=np.int64))
    a = after.take(np.asarray(shared, dtype=np.int64))
    if not np.array_equal(a.y, b.y):
        raise DevSuiteError(
            "the saved run labels the same records differently: it is of another version of the set"
        )
    return b, a, unshared


@dataclass(frozen=True)
class Change:
    """Paired changes (after - before) per set and for the mean, and the verdict of the suite's rule:
    kept when the mean BA rises with its interval above zero and no set's BA falls with its interval
    below zero."""

    per_set: dict[str, dict[str, Figure]]
    mean: dict[str, Figure | None]
    unshared: dict[str, int]
    kept: bool
    reasons: tuple[str, ...]


def paired_changes(
    before: Mapping[str, SetScores], after: Mapping[str, SetScores], resamples: int, seed: int = DEFAULT_SEED
) -> Change:
    """The change of every set both runs scored (paired bootstrap over the shared records)."""
    common = [name for name in after if name in before]
    per_set: dict[str, dict[str, Figure]] = {name: {} for name in common}
    mean: dict[str, Figure | None] = {}
    unshared: dict[str, int] = {}
    pairs = {}
    for name in common:
        b, a, unshared[name] = aligned(before[name], after[name])
        if len(a.ids) < 2 * MIN_PER_CLASS:
            raise DevSuiteError(
                f"{name}: only {len(a.ids)} records shared with the saved run; no paired change"
            )
        pairs[name] = (b, a)
    in_mean = [name for name in common if name in MEAN_SETS]
    for key, statistic in STATISTICS.items():
        estimates = {}
        for name, (b, a) in pairs.items():
            estimates[name] = resampled(name, [b, a], lambda x, y, f=statistic: f(y) - f(x), resamples, seed)
            delta = statistic(a) - statistic(b)
            per_set[name][key] = Figure(delta, percentile_interval(estimates[name], n=len(a.ids)))
        mean[key] = _mean_figure([per_set[n][key].value for n in in_mean], [estimates[n] for n in in_mean])
    reasons = []
    mean_ba = mean.get("ba")
    if mean_ba is None or mean_ba.interval.low <= 0:
        reasons.append("the mean BA does not rise with its paired interval above zero")
    for name in common:
        figure = per_set[name]["ba"]
        if figure.interval.high < 0:
            reasons.append(f"{name} BA falls beyond its interval ({figure.show(signed=True)})")
    return Change(per_set, mean, unshared, not reasons, tuple(reasons))


@dataclass(frozen=True)
class CoveragePoint:
    """The ``kept`` most confident verdicts: their accuracy, and their BA (None when they hold one
    label only, where BA is undefined)."""

    kept: int
    accuracy: float
    ba: float | None

    def show(self) -> str:
        return f"{self.accuracy:.3f}/" + ("  -  " if self.ba is None else f"{self.ba:.3f}")


def coverage_curve(scores: SetScores, coverages: Iterable[float] = COVERAGES) -> dict[float, CoveragePoint]:
    """Per coverage c: the ``ceil(c * n)`` most confident verdicts (ties kept in the set's order). A
    confidence that means something makes accuracy fall as coverage grows; a flat curve says the
    judge is as sure where it is wrong as where it is right."""
    order = np.argsort(-scores.confidence, kind="stable")
    curve = {}
    for coverage in coverages:
        keep = order[: max(1, math.ceil(coverage * len(order)))]
        y, verdict = scores.y[keep], scores.verdict[keep]
        both = 0 < y.sum() < len(y)
        curve[coverage] = CoveragePoint(
            len(keep), float((y == verdict).mean()), balanced_accuracy(y, verdict) if both else None
        )
    return curve


def save_scores(path: Path, scores: Mapping[str, SetScores], note: str) -> None:
    """Store a run for a later ``--compare`` (``.npz``; ``note`` says what was run)."""
    arrays: dict[str, Any] = {"__note__": np.array(note)}
    for name, s in scores.items():
        arrays[f"{name}__ids"] = np.array(s.ids, dtype=str)
        for part in ("y", "p", "verdict", "confidence"):
            arrays[f"{name}__{part}"] = getattr(s, part)
    np.savez_compressed(path, **arrays)


def load_scores(path: Path) -> tuple[dict[str, SetScores], str]:
    """A run stored by :func:`save_scores`, and its note; refused when it is not one."""
    try:
        saved = np.load(path)
    except (OSError, ValueError) as exc:
        raise DevSuiteError(
            f"cannot read {path} as a saved run ({exc}): pass a file written by --save"
        ) from None
    names = sorted({key.rsplit("__", 1)[0] for key in saved.files if key.endswith("__ids")})
    if not names:
        raise DevSuiteError(f"{path} holds no saved sets: pass a file written by --save of this benchmark")
    out = {
        name: checked(
            name,
            SetScores(
                tuple(str(i) for i in saved[f"{name}__ids"]),
                *(
                    saved[f"{name}__{part}"].astype(np.float64)
                    for part in ("y", "p", "verdict", "confidence")
                ),
            ),
        )
        for name in names
    }
    return out, str(saved["__note__"]) if "__note__" in saved.files else ""
