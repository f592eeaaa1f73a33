"""Evidence anywhere on a long page: is it found, and how does the cost grow with the page?

    python benchmarks/long_page_speed.py [--datasets ../shared/datasets] [--repeats 5]

A page is one context string (a scraped web page, not a list of passages) of about 2,000, 20,000
and 200,000 words, made of distinct LFQA and BEGIN passages (real text, read at run time, never
copied) joined in a seeded order. The answers are sentences of the page itself, taken at 10%, 50%
and 90% of its length, lightly reworded (their first word dropped), so the evidence sits at a known
depth. Printed per size: whether the best span the judge reports contains the sentence at each
depth; the median time of a first check against the page (its index built: every kept index is
dropped before each timed call) and of a later check against the same page (the index kept, as
``context_index.shared_index`` keeps it), over the three answers and the repeats; and each per
1,000 words and as a ratio to the 2,000-word page: a cost linear in the page grows tenfold per
row. Word vectors are warmed by one untimed call per answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.judges.local.context_index import forget_shared_indexes  # noqa: E402
from pytest_rag.judges.local.entailment_input import forget_kept_tokens  # noqa: E402
from pytest_rag.judges.local.scorer import LocalScorer  # noqa: E402
from pytest_rag.scoring.text import split_sentences  # noqa: E402

SEED = 13
SIZES = (2_000, 20_000, 200_000)
DEPTHS = (0.1, 0.5, 0.9)


def passages(datasets: Path) -> list[str]:
    texts: list[str] = []
    for path in (
        datasets / "lfqa_verification" / "answer_level.jsonl",
        datasets / "begin_grounded_dialogue" / "data.jsonl",
    ):
        with path.open(encoding="utf-8") as handle:
            texts += [c for line in handle if line.strip() for c in json.loads(line)["contexts"]]
    return list(dict.fromkeys(texts))


def page(pool: Sequence[str], words: int) -> str:
    """Distinct passages in a seeded order, repeated only when the pool runs out, up to ``words``."""
    rng = np.random.default_rng(SEED)
    order = [pool[int(i)] for i in rng.permutation(len(pool))]
    chosen: list[str] = []
    count = 0
    while count < words:
        text = order[len(chosen) % len(order)]
        chosen.append(text)
        count += len(text.split())
    return "\n\n".join(chosen)


def deep_answers(text: str) -> list[tuple[str, str]]:
    """(answer, the page sentence it restates) at each depth: a sentence of 8 to 40 words."""
    sentences = split_sentences(text)
    out = []
    for depth in DEPTHS:
        i = int(len(sentences) * depth)
        while not 8 <= len(sentences[i].split()) <= 40:
            i += 1
        source = sentences[i]
        out.append((" ".join(source.split()[1:]), source))
    return out


def timed(scorer: LocalScorer, answer: str, text: str) -> float:
    start = time.perf_counter()
    scorer.support(answer, [text])
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    pool = passages(args.datasets)
    scorer = LocalScorer.load()
    print(f"calibration: {scorer.version}")
    print(
        f"{'page':>8} {'words':>8} {'found 10/50/90%':>16} {'first ms':>9} {'per 1k':>7} {'x 2k':>6} "
        f"{'later ms':>9} {'per 1k':>7} {'x 2k':>6}"
    )
    bases: list[float] = []
    for size in SIZES:
        text = page(pool, size)
        words = len(text.split())
        found, first, later = [], [], []
        for answer, source in deep_answers(text):
            report = scorer.support(answer, [text])  # warms the word vectors of the page
            found.append("y" if source in report.sentences[0].span else "n")
            for _ in range(args.repeats):
                forget_shared_indexes()
                forget_kept_tokens()
                first.append(timed(scorer, answer, text))
                later.append(timed(scorer, answer, text))
        row = [float(np.median(first) * 1000), float(np.median(later) * 1000)]
        bases = bases or row
        cells = "".join(
            f" {ms:>9.1f} {ms / words * 1000:>7.2f} {ms / base:>6.1f}"
            for ms, base in zip(row, bases, strict=True)
        )
        print(f"{size:>8} {words:>8} {'/'.join(found):>16}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
