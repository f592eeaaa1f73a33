"""What building an answer's mutants costs, on a short passage and on a 1 MB page, side by side.

    python benchmarks/mutant_build.py [--runs 15]

``--rag-mutants`` builds up to six mutants per passing answer-level check at the end of the run, from
the answer and the texts it was judged against (:func:`pytest_rag.mutants.build.mutants_of`). The
texts may be a whole page: this script times the build of one answer's mutants against a 300-character
passage and against a page of about 1 MB, interleaved, the memo of the build cleared before each run,
and prints the medians and their ratio. No judge is asked: this is the build alone.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from pytest_rag.mutants.build import _material, mutants_of

ANSWER = (
    "The museum opens at 9 am and closes at 5 pm. Entry is free for children under 12 if they come "
    "with an adult. Ada Lovelace is not the curator."
)
PASSAGE = (
    "The museum opens at 9 am and closes at 5 pm every day except Monday. Entry is free for children "
    "under 12 if they come with an adult; adults pay 15 euros. The curator is Charles Babbage."
)


def page(size: int, seed: int = 0) -> str:
    """About ``size`` characters of sentences made of the passage's words, the passage first."""
    rng = random.Random(seed)
    words = PASSAGE.replace(".", "").replace(";", "").split()
    sentences = [PASSAGE]
    while sum(len(s) + 1 for s in sentences) < size:
        sentences.append(" ".join(rng.choice(words) for _ in range(18)).capitalize() + ".")
    return " ".join(sentences)


def timed(sources: list[str]) -> float:
    _material.cache_clear()
    start = time.perf_counter()
    mutants_of(ANSWER, sources)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    long_page = page(1_000_000)
    short, long = [], []
    for _ in range(args.runs):
        short.append(timed([PASSAGE]))
        long.append(timed([long_page]))
    made = sum(m is not None for m in mutants_of(ANSWER, [long_page]).values())
    print(f"mutants of one answer ({made} of 6 classes), median of {args.runs} runs:")
    print(f"  passage of {len(PASSAGE):,} characters: {statistics.median(short) * 1000:.2f} ms")
    print(f"  page of {len(long_page):,} characters: {statistics.median(long) * 1000:.2f} ms")
    print(f"  ratio page / passage: {statistics.median(long) / statistics.median(short):.1f}x")


if __name__ == "__main__":
    main()
