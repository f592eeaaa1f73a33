"""How often does each edit check of the offline judge fire on labelled answers? A false-alarm count.

    python benchmarks/edit_flags.py [--datasets ../shared/datasets]

Each check that caps a sentence (an unbacked number, a reversed negation or comparison, a replaced
name, a swapped noun or opposite, an added claim) should fire on unsupported sentences and not on
supported ones. This scores every sentence of the LFQA sentence-level file and every BEGIN reply
(as one unit each, the way the datasets label them) and prints, per dataset, label and flag, how
many sentences carry it. Run it on two commits to see what a change to a check does on real
answers: a flag that starts firing on supported sentences is a false alarm the held-out figures
may hide in their noise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.judges.local.scorer import LocalScorer  # noqa: E402

FLAGS = (
    "unsupported_numbers",
    "negation_flip",
    "comparison_flip",
    "swapped_name",
    "swapped_words",
    "added_words",
)
DATASETS = {
    "lfqa_sentence": ("lfqa_verification/sentence_level.jsonl", "label"),
    "begin": ("begin_grounded_dialogue/data.jsonl", "label"),
}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_datasets_option(parser)
    args = parser.parse_args()
    scorer = LocalScorer.load()
    print(f"calibration: {scorer.version}")
    print(f"{'dataset':<15}{'label':<26}{'units':>6}  " + "  ".join(f"{f:>19}" for f in FLAGS))
    for name, (relative, label_key) in DATASETS.items():
        units: Counter[str] = Counter()
        flagged: Counter[tuple[str, str]] = Counter()
        for record in read_jsonl(args.datasets / relative):
            label = str(record.get(label_key))
            for sentence in scorer.support(str(record["answer"]), list(record["contexts"])).sentences:
                units[label] += 1
                for flag in FLAGS:
                    if getattr(sentence, flag):
                        flagged[(label, flag)] += 1
        for label in sorted(units):
            counts = "  ".join(f"{flagged[(label, f)]:>19}" for f in FLAGS)
            print(f"{name:<15}{label:<26}{units[label]:>6}  {counts}")


if __name__ == "__main__":
    main()
