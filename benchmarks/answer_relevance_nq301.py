"""How the offline judge grades the relevance of short answers: nq301's answers to their own question
against another question's answer.

    python benchmarks/answer_relevance_nq301.py [--datasets ../shared/datasets] [--src OTHER/src]

nq301 holds 660 answers of open-domain QA systems to Natural Questions, most of them a few words
("Judi Dench.", "2014", "over 1,100"). Right or wrong, each is an answer to its question, so it
should pass ``answer_relevancy`` at the metric's default bar (3 of 5): relevance asks whether the
answer addresses the question, correctness whether it is right. Paired with it, a seeded draw of
another question's answer should mostly fail. That pairing is only a rough negative: another
question's "Judi Dench." to a "who" question is an answer of the asked kind, and the judge cannot
tell it from a right one without the contexts.

Printed: the grades of both, the pass rates, their balanced accuracy, and per question word the
pass counts. ``--src`` measures another source tree (say, a checkout from before a change) with
the same draw.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402

SEED = 13
BAR = 3
"""``answer_relevancy``'s default bar on its 1-5 scale."""

WH_WORDS = ("who", "when", "where", "what", "which", "how")


def opener(question: str) -> str:
    """The question word a question opens with (within its first three words), else "other"."""
    words = question.lower().split()[:3]
    return next((w for w in words if w in WH_WORDS), "other")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the source tree to measure")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    from pytest_rag.judges.local.scorer import LocalScorer
    from pytest_rag.judges.local.tasks import answer_relevancy_single

    path = args.datasets / "nq301_answer_correctness" / "data.jsonl"
    rows: list[dict[str, Any]] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    scorer = LocalScorer.load()
    draw = random.Random(SEED)

    def grade(question: str, answer: str) -> int:
        score: int = answer_relevancy_single(scorer, {"question": question, "answer": answer})["score"]
        return score

    own, other = collections.Counter[int](), collections.Counter[int]()
    by_opener: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for row in rows:
        stranger = draw.choice([r for r in rows if r["question"] != row["question"]])
        mine, theirs = grade(row["question"], row["answer"]), grade(row["question"], stranger["answer"])
        own[mine] += 1
        other[theirs] += 1
        counts = by_opener[opener(row["question"])]
        counts[0] += mine >= BAR
        counts[1] += theirs >= BAR
        counts[2] += 1

    def passing(grades: collections.Counter[int]) -> float:
        return sum(n for g, n in grades.items() if g >= BAR) / sum(grades.values())

    print(f"source: {args.src}")
    print(f"own answers:     grades {dict(sorted(own.items()))}, pass {passing(own):.3f}")
    print(f"another's answer: grades {dict(sorted(other.items()))}, pass {passing(other):.3f}")
    print(f"balanced accuracy: {(passing(own) + 1 - passing(other)) / 2:.3f}")
    print("question word: own answers passing, another's passing (of n)")
    for word, (mine, theirs, n) in sorted(by_opener.items()):
        print(f"  {word:6} {mine:4} {theirs:4} of {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
