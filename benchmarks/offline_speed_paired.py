"""The offline judge's cost as a ratio to another version, both timed alternately in one run.

    python benchmarks/offline_speed_paired.py --against OTHER_CHECKOUT [--rounds 3]
                                              [--datasets ../shared/datasets] [--repeats 5]

This 2-core machine is shared and its speed changes from day to day by several times, so an
absolute figure from one day says little about another day's. A ratio taken in one run does: each
round runs ``benchmarks/offline_speed.py --json`` (this checkout's script) once on this checkout's
``src`` and once on ``OTHER_CHECKOUT/src`` (through ``OFFLINE_SPEED_SRC``), in fresh processes, the
order alternating from round to round; a figure's ratio is the median of the rounds' ratios. Give
``--against`` a checkout of a version whose absolute figures are known from a quieter day (a
``git worktree add --detach DIR COMMIT`` will do) and the ratio carries those figures to this
version. Run it with ``OPENBLAS_NUM_THREADS=1``, as the speed figures in docs/ are.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "offline_speed.py"
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402


def timed(src: Path, datasets: Path, repeats: int) -> dict[str, Any]:
    """One run of the speed benchmark on the code under ``src``, in a fresh process."""
    env = {**os.environ, "OFFLINE_SPEED_SRC": str(src)}
    command = [sys.executable, str(SCRIPT), "--json", "--datasets", str(datasets), "--repeats", str(repeats)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the speed benchmark failed on {src}:\n{done.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def by_label(figures: dict[str, Any]) -> dict[str, float]:
    """Each timed figure of one run by its label, the first 1 MB call included."""
    found = {case["label"]: float(case["ms"]) for case in figures["cases"]}
    found["1 MB, first call"] = float(figures["first_call_ms"])
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout (its src/ is timed)")
    parser.add_argument("--rounds", type=int, default=3)
    add_datasets_option(parser)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    other_src = args.against.resolve() / "src"
    if not (other_src / "pytest_rag").is_dir():
        parser.error(f"--against {args.against}: no src/pytest_rag there; name a checkout of pytest-rag")
    sides = {"this": ROOT / "src", "other": other_src}
    runs: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
    versions: dict[str, str] = {}
    for round_ in range(args.rounds):
        order = ("this", "other") if round_ % 2 == 0 else ("other", "this")
        for side in order:
            figures = timed(sides[side], args.datasets, args.repeats)
            versions[side] = str(figures["calibration"])
            runs[side].append(by_label(figures))
    print(
        f"this: {ROOT} ({versions['this']}); other: {args.against} ({versions['other']}); {args.rounds} rounds"
    )
    print(f"{'case':<26} {'this ms':>18} {'other ms':>18} {'ratio (median)':>15}")
    for label in runs["this"][0]:
        mine = [run[label] for run in runs["this"]]
        theirs = [run[label] for run in runs["other"]]
        ratio = float(np.median([m / t for m, t in zip(mine, theirs, strict=True)]))
        print(
            f"{label:<26} {min(mine):>8.1f} to {max(mine):>6.1f} {min(theirs):>8.1f} to {max(theirs):>6.1f} "
            f"{ratio:>15.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
