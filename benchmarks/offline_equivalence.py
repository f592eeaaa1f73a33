"""Does a speed change leave every number of the offline judge where it was? Saves and compares.

    python benchmarks/offline_equivalence.py --datasets ../shared/datasets --save before.pkl
    python benchmarks/offline_equivalence.py --datasets ../shared/datasets --compare before.pkl [--save after.pkl]
    python benchmarks/offline_equivalence.py --compare before.pkl --against after.pkl

A speed-up of the offline judge must not move a verdict, so this records, for a fixed set of
checks, every number the judge derives: per answer unit and per claim the feature vector the
sentence model reads (the learned entailment probability included, as its log-odds) and the
check flags, every sentence's support probability and the answer's probability; and, for the
correctness model, its probability. The checks are every LFQA answer with its passages, every
BEGIN reply with its knowledge (and question), 200 nq301 answers (correctness, and grounding
against the references), and the 50-passage and 1 MB cases of ``offline_speed.py``. Context
indexes and kept entailment tokens are dropped before every check, so the cold path is the one
compared. ``--compare`` prints the largest difference per kind of number and the checks whose
flags, spans or texts differ; it exits 1 when any number moved by more than ``--tolerance``.

Run both sides with ``PYTHONHASHSEED=0`` and the same BLAS thread count: the judge itself varies
below 1e-5 with them (the correctness model's word similarities follow set order into BLAS, and
OpenBLAS rounds a product split across threads differently; a claim's log-odds that near-tie can
then name another weakest claim). ``--against after.pkl`` compares two saved runs without a new one.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from offline_speed import corpus, read_jsonl, samples  # noqa: E402

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.judges.local.alignment import claims_evidence, index_contexts  # noqa: E402
from pytest_rag.judges.local.context_index import forget_shared_indexes  # noqa: E402
from pytest_rag.judges.local.entailment_input import forget_kept_tokens  # noqa: E402
from pytest_rag.judges.local.scorer import LocalScorer, answer_units  # noqa: E402

Check = tuple[str, str, list[str], str | None]  # (name, answer, contexts, question)


def checks(datasets: Path) -> tuple[list[Check], list[tuple[str, str, str, list[str]]]]:
    """The grounding checks and the correctness checks compared (see the module docstring)."""
    lfqa, passages, megabyte = corpus(datasets)
    begin = read_jsonl(datasets / "begin_grounded_dialogue" / "data.jsonl")
    nq = read_jsonl(datasets / "nq301_answer_correctness" / "data.jsonl")[:200]
    grounding: list[Check] = [(r["id"], r["answer"], list(r["contexts"]), None) for r in lfqa]
    grounding += [(r["id"], r["answer"], list(r["contexts"]), r["question"]) for r in begin]
    grounding += [(r["id"], r["answer"], list(r["references"]), r["question"]) for r in nq]
    grounding += [(f"50-passages-{i}", a, c, None) for i, (a, c) in enumerate(samples(lfqa, passages, 50, 5))]
    grounding.append(("1MB", lfqa[0]["answer"], megabyte, None))
    correctness = [(r["id"], r["question"], r["answer"], list(r["references"])) for r in nq]
    return grounding, correctness


def _evidence(e: Any) -> dict[str, Any]:
    fields = dict(vars(e))
    fields["features"] = tuple(float(x) for x in fields["features"])
    return fields


def record(scorer: LocalScorer, datasets: Path) -> dict[str, Any]:
    """Every number the judge derives for the compared checks, by check name."""
    grounding, correctness = checks(datasets)
    out: dict[str, Any] = {}
    for name, answer, contexts, question in grounding:
        forget_shared_indexes()
        forget_kept_tokens()
        report = scorer.support(answer, contexts, question)
        forget_shared_indexes()
        forget_kept_tokens()
        units = answer_units(answer)
        index = index_contexts(scorer.embedder, contexts)
        per_unit = claims_evidence(scorer.embedder, index, scorer.entailment, units) if units else []
        out[name] = {
            "probability": report.probability,
            "sentences": [vars(s) for s in report.sentences],
            "units": [(_evidence(u.whole), [_evidence(c) for c in u.claims]) for u in per_unit],
        }
    for name, question, answer, references in correctness:
        out[f"correctness-{name}"] = {"probability": scorer.correctness(question, answer, references)}
    return out


def differences(
    before: Any, after: Any, path: str, found: dict[str, tuple[float, str]], odd: list[str]
) -> None:
    """Largest absolute difference of the numbers under each key, and where (into ``found``),
    and the paths where anything that is not a float differs (into ``odd``)."""
    if isinstance(before, float) and isinstance(after, float):
        key = path.rsplit("/", 1)[-1].split("[")[0]
        if abs(before - after) > found.get(key, (0.0, ""))[0]:
            found[key] = (abs(before - after), path)
    elif isinstance(before, dict) and isinstance(after, dict):
        if before.keys() != after.keys():
            odd.append(f"{path}: keys differ")
            return
        for key in before:
            differences(before[key], after[key], f"{path}/{key}", found, odd)
    elif isinstance(before, list | tuple) and isinstance(after, list | tuple):
        if len(before) != len(after):
            odd.append(f"{path}: {len(before)} items before, {len(after)} after")
            return
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            differences(b, a, f"{path}[{i}]", found, odd)
    elif before != after:
        odd.append(f"{path}: {before!r} before, {after!r} after")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", type=Path)
    parser.add_argument("--tolerance", type=float, default=1e-9)
    parser.add_argument("--against", type=Path, help="compare with this saved file, not a new run")
    args = parser.parse_args(argv)
    if args.save is None and args.compare is None:
        parser.error("give --save FILE, --compare FILE, or both")
    if args.against is not None:
        now = pickle.loads(args.against.read_bytes())
    else:
        now = record(LocalScorer.load(), args.datasets)
    if args.save is not None:
        args.save.write_bytes(pickle.dumps(now))
        print(f"saved {len(now)} checks to {args.save}")
    if args.compare is None:
        return 0
    before = pickle.loads(args.compare.read_bytes())
    found: dict[str, tuple[float, str]] = {}
    odd: list[str] = []
    differences(before, now, "", found, odd)
    print(f"{len(now)} checks compared with {args.compare}")
    for key, (largest, where) in sorted(found.items()):
        print(f"  largest difference in {key:<12} {largest:.3g} ({where})")
    for line in odd[:20]:
        print(f"  differs: {line}")
    if len(odd) > 20:
        print(f"  ... and {len(odd) - 20} more")
    moved = max((largest for largest, _ in found.values()), default=0.0) > args.tolerance
    print("identical" if not (moved or odd) else "NOT identical")
    return 1 if moved or odd else 0


if __name__ == "__main__":
    raise SystemExit(main())
