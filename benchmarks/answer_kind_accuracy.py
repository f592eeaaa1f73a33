"""Does a pass mark per kind of answer judge better than one cut? Held-out figures with intervals.

    python benchmarks/answer_kind_accuracy.py [--datasets ../shared/datasets] [--bootstrap 2000]

Every record is scored by models fitted without its dataset file, and judged twice: by those
models' single cut ("single") and by its kind's pass mark ("per kind"), chosen without the file
where the other files hold enough records of the kind, else by grouped 5-fold cross-validation over
the file's own records of the kind (``scripts/answer_kind_cuts.py`` says which, per row). Printed
per file and kind, then per kind over all files: balanced accuracy of both with seeded percentile
bootstrap 95% intervals, and the paired change (the same resampled records judged both ways).
Rows with one label only have no balanced accuracy and are left out.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

import answer_kind_cuts as stage  # noqa: E402
import fit_local_judge as fit  # noqa: E402

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.inputs import ANSWER_KINDS  # noqa: E402

SEED = 13


def _judge_accuracy() -> ModuleType:
    """benchmarks/judge_accuracy.py, for its bootstrap helpers."""
    spec = importlib.util.spec_from_file_location("judge_accuracy", ROOT / "benchmarks" / "judge_accuracy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(
    label: str,
    y: npt.NDArray[np.float64],
    before: npt.NDArray[np.bool_],
    after: npt.NDArray[np.bool_],
    n: int,
    helpers: ModuleType,
) -> str:
    def ba_of(passed: npt.NDArray[np.bool_]) -> tuple[float, float, float]:
        low, high = helpers.bootstrap(y, lambda i: fit.balanced_accuracy(y[i], passed[i]), n, SEED)
        return fit.balanced_accuracy(y, passed), low, high

    old, new = ba_of(before), ba_of(after)
    as_scores = (
        (before.astype(np.float64), np.full(len(y), 0.5)),
        (after.astype(np.float64), np.full(len(y), 0.5)),
    )
    change = helpers.paired_change(
        y, *as_scores, lambda yy, pp, tt: fit.balanced_accuracy(yy, pp >= tt), n, SEED
    )
    return (
        f"{label:<42} {len(y):>4}  {old[0]:.3f} [{old[1]:.3f}, {old[2]:.3f}]  "
        f"{new[0]:.3f} [{new[1]:.3f}, {new[2]:.3f}]  {change[0]:+.3f} [{change[1]:+.3f}, {change[2]:+.3f}]"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--bootstrap", type=int, default=2000)
    args = parser.parse_args()
    from pytest_rag.judges.local.embedder import load_embedder

    helpers = _judge_accuracy()
    records = fit.load_grounding(args.datasets, load_embedder())
    kinds = stage.attach_kinds(records, stage.answers_in_load_order(args.datasets))
    held = stage.held_out_marks(records, kinds)
    print("Held-out balanced accuracy, single cut vs per-kind pass mark (95% bootstrap intervals)\n")
    print(f"{'file / kind (protocol)':<42} {'n':>4}  {'single':<22} {'per kind':<22} change (paired)")
    for h in held:
        for kind, protocol in h.protocols.items():
            mask = h.data.kinds == kind
            y = h.data.labels[mask]
            if len(set(y.tolist())) > 1:
                label = f"{h.dataset} / {kind} ({protocol.split(' (')[0]})"
                print(row(label, y, h.before[mask], h.after[mask], args.bootstrap, helpers))
    print()
    for kind in ANSWER_KINDS:
        y = np.concatenate([h.data.labels[h.data.kinds == kind] for h in held])
        before = np.concatenate([h.before[h.data.kinds == kind] for h in held])
        after = np.concatenate([h.after[h.data.kinds == kind] for h in held])
        print(row(f"all files / {kind}", y, before, after, args.bootstrap, helpers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
