"""Choose the offline judge's pass mark per kind of answer, and say how well each holds out.

    python scripts/answer_kind_cuts.py [--datasets ../shared/datasets] [--write]

A stage of its own, after the fit: it reads the sentence and answer models already stored in
``calibration.json`` (so it can be re-run after any refit, without refitting), scores every
labelled grounding record with them, and for each kind of answer (short answer, summary,
conversational reply: :func:`pytest_rag.judges.local.answer_kind.read_answer_kind` reads it from
the answer) chooses the pass mark (:func:`choose_mark`): a cut on the whole-answer probability and
a floor on the weakest sentence's support, by the smoothed balanced accuracy the fit's single cut
is chosen by, staying at the single cut and no floor unless the kind's records ask to move. A kind
with fewer than ``MIN_PER_CLASS`` records of either label keeps the single cut.

Held out, as the fit's file-out protocol: each dataset file is scored by models fitted without it
(and without any record sharing an answer with it), and each kind's mark for it is chosen on the
training records of those models only, or, for a kind the other files hold too few of, by grouped
5-fold cross-validation over the file's own records of that kind (:func:`held_out_marks`, which
``benchmarks/answer_kind_accuracy.py`` prints with intervals).

With ``--write`` the marks go into ``calibration.json`` under ``answer_kind_cuts``, with the
calibration version they were chosen for (the judge ignores marks chosen for another version),
and nothing else in the file changes. ``scripts/fit_local_judge.py --write`` runs this stage after
writing its models.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests and benchmarks

import fit_local_judge as fit  # noqa: E402

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.inputs import ANSWER_KINDS  # noqa: E402
from pytest_rag.judges.local.answer_kind import CALIBRATION_KEY, PassMark, read_answer_kind  # noqa: E402
from pytest_rag.judges.local.scorer import (  # noqa: E402
    LogisticModel,
    adds_content,
    changes_a_fact,
    sentence_logit,
)

Array = npt.NDArray[np.float64]
MIN_PER_CLASS = 20
"""Records of each label a kind needs before it gets a pass mark of its own."""
FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2)
"""Candidate floors for a kind's weakest sentence support (0.0: no floor)."""
TOLERANCE = 0.005
"""Smoothed balanced accuracy within which a pass mark nearer the single one is preferred."""
DATASETS = ("lfqa_answer", "lfqa_sentence", "begin")


def answers_in_load_order(root: Path) -> list[str]:
    """The answer of every grounding record, in the order ``fit.load_grounding`` reads them (the
    records keep the answer's claim units only, and the kind's register is read on the answer)."""
    lfqa = root / "lfqa_verification"
    files = [
        lfqa / "sentence_level.jsonl",
        lfqa / "answer_level.jsonl",
        root / "begin_grounded_dialogue" / "data.jsonl",
    ]
    return [str(row["answer"]) for path in files for row in fit.read_jsonl(path)]


def attach_kinds(records: Sequence[fit.GroundingRecord], answers: Sequence[str]) -> list[str]:
    """The kind the judge reads from each record's answer."""
    if len(answers) != len(records):
        raise SystemExit(f"{len(answers)} answers for {len(records)} records: the fit reads other files now")
    return [read_answer_kind(answer) for answer in answers]


@dataclass(frozen=True)
class Scored:
    """Records as one set of models sees them: whole-answer probability, weakest sentence support,
    whether a sentence adds content or changes a fact (what the judge's pass rule reads beside the
    two figures), label, kind and answer group."""

    probability: Array
    weakest: Array
    adds_content: npt.NDArray[np.bool_]
    changes_fact: npt.NDArray[np.bool_]
    labels: Array
    kinds: npt.NDArray[np.str_]
    groups: list[str]

    def verdicts(self, mark: PassMark, single: float) -> npt.NDArray[np.bool_]:
        """Which records pass under ``mark`` (the judge's rule), ``single`` the models' own cut."""
        return np.asarray(
            mark.passes(
                self.probability,
                self.weakest,
                single=single,
                adds_content=self.adds_content,
                changes_fact=self.changes_fact,
            ),
            dtype=bool,
        )

    def subset(self, mask: npt.NDArray[np.bool_]) -> Scored:
        return Scored(
            self.probability[mask],
            self.weakest[mask],
            self.adds_content[mask],
            self.changes_fact[mask],
            self.labels[mask],
            self.kinds[mask],
            [g for g, m in zip(self.groups, mask, strict=True) if m],
        )


def scored(
    models: tuple[LogisticModel, LogisticModel], records: Sequence[fit.GroundingRecord], kinds: Sequence[str]
) -> Scored:
    sentence_model = models[0]
    per_unit = [[sentence_logit(sentence_model, u) for u in r.units] for r in records]
    weakest = [min(z for z, _ in units) if units else 30.0 for units in per_unit]
    return Scored(
        probability=fit.predict_grounding(models, records),
        weakest=1 / (1 + np.exp(-np.array(weakest))),
        adds_content=np.array([any(adds_content(e) for _, e in units) for units in per_unit], dtype=bool),
        changes_fact=np.array([any(changes_a_fact(e) for _, e in units) for units in per_unit], dtype=bool),
        labels=np.array([r.label for r in records], dtype=np.float64),
        kinds=np.array(kinds),
        groups=[r.group for r in records],
    )


def choose_mark(data: Scored, single: float) -> PassMark:
    """The pass mark with the best smoothed balanced accuracy on ``data`` (one kind's records):
    candidate cuts are the 2nd to 98th percentiles of the probabilities and ``single``, each rated with its
    ``fit.SMOOTHING`` neighbours on either side, as the fit's single cut is. Among marks within
    ``TOLERANCE`` of the best, the lowest floor and then the cut nearest ``single`` win: a kind moves
    from the single pass mark only as far as its records ask."""
    y = data.labels
    # the single cut is a candidate itself, so a kind whose records do not ask to move keeps it exactly
    candidates = np.sort(np.append(np.quantile(data.probability, np.linspace(0.02, 0.98, 97)), single))
    k = fit.SMOOTHING
    options: list[tuple[float, float, float]] = []  # (smoothed balanced accuracy, floor, cut)
    for floor in FLOORS:
        rated = np.array(
            [fit.balanced_accuracy(y, data.verdicts(PassMark(c, floor), single)) for c in candidates]
        )
        smoothed = np.convolve(rated, np.ones(2 * k + 1) / (2 * k + 1), mode="valid")
        options += [(float(v), floor, float(c)) for v, c in zip(smoothed, candidates[k:-k], strict=True)]
    best = max(v for v, _, _ in options)
    near = [(floor, abs(cut - single), cut) for v, floor, cut in options if v >= best - TOLERANCE]
    floor, _, cut = min(near)
    return PassMark(cut, floor)


def enough(data: Scored) -> bool:
    return min(int((data.labels == 1).sum()), int((data.labels == 0).sum())) >= MIN_PER_CLASS


def kind_marks(data: Scored, single: float) -> dict[str, PassMark]:
    """The pass mark of each kind with at least ``MIN_PER_CLASS`` records of either label."""
    marks = {}
    for kind in ANSWER_KINDS:
        records = data.subset(data.kinds == kind)
        if enough(records):
            marks[kind] = choose_mark(records, single)
    return marks


@dataclass
class HeldOut:
    """One dataset file scored held out, with whether each record passes under the single cut
    (before) and under its kind's pass mark chosen without the record's file (after), and how that
    mark was chosen for each kind."""

    dataset: str
    data: Scored
    before: npt.NDArray[np.bool_]
    after: npt.NDArray[np.bool_]
    protocols: dict[str, str]


def held_out_marks(records: Sequence[fit.GroundingRecord], kinds: Sequence[str]) -> list[HeldOut]:
    """Each dataset file's held-out verdicts under the single cut and the per-kind pass marks.

    A file is scored by models fitted without it; a kind's mark for it is chosen on those models'
    training records of that kind (``file-out``). A kind too rare there (summaries outside LFQA's
    long answers) gets its mark by grouped 5-fold cross-validation over the file's own records of
    the kind, each fold's mark chosen on the other folds (``5-fold in file``)."""
    out = []
    for dataset in DATASETS:
        groups = {r.group for r in records if r.dataset == dataset}
        test = [i for i, r in enumerate(records) if r.dataset == dataset]
        train = [i for i, r in enumerate(records) if r.dataset != dataset and r.group not in groups]
        models = fit.fit_grounding([records[i] for i in train])
        single = models[1].threshold
        data = scored(models, [records[i] for i in test], [kinds[i] for i in test])
        marks = kind_marks(scored(models, [records[i] for i in train], [kinds[i] for i in train]), single)
        before = data.verdicts(PassMark(single), single)
        after = before.copy()
        protocols = {}
        for kind in ANSWER_KINDS:
            mask = data.kinds == kind
            if not mask.any():
                continue
            if kind in marks:
                after[mask] = data.subset(mask).verdicts(marks[kind], single)
                protocols[kind] = "file-out"
            elif enough(data.subset(mask)):
                after[mask] = in_file_folds(data.subset(mask), single)
                protocols[kind] = "5-fold in file"
            else:
                protocols[kind] = "single cut (too few records)"
        out.append(HeldOut(dataset, data, before, after, protocols))
    return out


def in_file_folds(data: Scored, single: float) -> npt.NDArray[np.bool_]:
    """Each record's verdict under a mark chosen on the other folds (grouped by answer)."""
    passed = np.zeros(len(data.labels), dtype=bool)
    for fold in fit.grouped_folds(data.groups, fit.FOLDS, fit.SEED):
        test = np.array([g in fold for g in data.groups])
        mark = choose_mark(data.subset(~test), single)
        passed[test] = data.subset(test).verdicts(mark, single)
    return passed


def shipped_models(calibration: dict[str, Any]) -> tuple[LogisticModel, LogisticModel]:
    models = calibration["models"]
    return (
        LogisticModel.from_json("sentence", models["sentence"]),
        LogisticModel.from_json("answer", models["answer"]),
    )


def cuts_entry(
    records: Sequence[fit.GroundingRecord], kinds: Sequence[str], calibration: dict[str, Any]
) -> dict[str, Any]:
    """The ``answer_kind_cuts`` entry for ``calibration``: pass marks chosen with its own models."""
    models = shipped_models(calibration)
    data = scored(models, records, kinds)
    marks = kind_marks(data, models[1].threshold)
    return {
        "calibration_version": calibration["version"],
        "min_per_class": MIN_PER_CLASS,
        "records": {kind: int((data.kinds == kind).sum()) for kind in ANSWER_KINDS},
        "cuts": {kind: round(mark.cut, 6) for kind, mark in marks.items()},
        "weakest_sentence_floors": {kind: mark.floor for kind, mark in marks.items() if mark.floor > 0},
    }


def write_stage(
    records: Sequence[fit.GroundingRecord], root: Path, path: Path = fit.CALIBRATION_PATH
) -> dict[str, Any]:
    """Add (or replace) the per-kind pass marks in the calibration file at ``path``, for the
    records ``fit.load_grounding`` read from ``root``; nothing else in the file changes."""
    calibration = json.loads(path.read_text(encoding="utf-8"))
    entry = cuts_entry(records, attach_kinds(records, answers_in_load_order(root)), calibration)
    calibration[CALIBRATION_KEY] = entry
    path.write_text(json.dumps(calibration, indent=1) + "\n", encoding="utf-8")
    return entry


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--write", action="store_true", help="store the cuts in calibration.json")
    args = parser.parse_args(argv)
    if not (args.datasets / "lfqa_verification").is_dir():
        parser.error(f"no datasets under {args.datasets}; pass --datasets PATH/TO/shared/datasets")
    from pytest_rag.judges.local.embedder import load_embedder

    records = fit.load_grounding(args.datasets, load_embedder())
    print(f"{'file (held out)':<15} {'kind':<15} {'n':>4}  {'bal.acc single -> kind':<24} protocol")
    kinds = attach_kinds(records, answers_in_load_order(args.datasets))
    for held in held_out_marks(records, kinds):
        for kind, protocol in held.protocols.items():
            mask = held.data.kinds == kind
            y = held.data.labels[mask]
            if len(set(y.tolist())) < 2:
                continue
            before = fit.balanced_accuracy(y, held.before[mask])
            after = fit.balanced_accuracy(y, held.after[mask])
            print(
                f"{held.dataset:<15} {kind:<15} {mask.sum():>4}  {before:.3f} -> {after:.3f}           {protocol}"
            )
    calibration = json.loads(fit.CALIBRATION_PATH.read_text(encoding="utf-8"))
    entry = write_stage(records, args.datasets) if args.write else cuts_entry(records, kinds, calibration)
    print(f"\ncuts for {entry['calibration_version']} (records per kind {entry['records']}):")
    for kind, cut in entry["cuts"].items():
        floor = entry["weakest_sentence_floors"].get(kind)
        print(f"  {kind}: {cut:.3f}" + (f", weakest sentence at least {floor}" if floor else ""))
    single = calibration["models"]["answer"]["threshold"]
    print(f"  single cut (kinds without their own): {single:.3f}")
    if args.write:
        print(f"\nwrote {CALIBRATION_KEY} into {fit.CALIBRATION_PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
