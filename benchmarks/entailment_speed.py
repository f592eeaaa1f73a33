"""What the learned entailment model costs: per pair, per typical check, and beside the judge.

    python benchmarks/entailment_speed.py [--datasets ../shared/datasets] [--repeats 30]

The text is real (LFQA answers and their passages, read at run time, never copied). A typical
check is an answer of three units, each compared with its top three candidate spans (spans of one
to three sentences, cut at 120 tokens by the model): nine pairs in one call. Printed: the model's
load time once the embedder is loaded (the judge loads it anyway), the
median ms of one typical check, the median ms per pair in batches of 9 and of 64, and the offline
judge's ``support()`` on 5 passages of about 100 words and on a 1 MB context, with and without
the nine pairs added, which is what the whole check will cost once the model is a feature.
On a machine shared with other work, wall-clock times mostly measure the others;
``--cpu-time`` (with ``OPENBLAS_NUM_THREADS=1``) measures the work itself.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from offline_speed import corpus, samples  # noqa: E402

from dev_datasets import add_datasets_option  # noqa: E402
from pytest_rag.judges.local.alignment import index_contexts, top_spans  # noqa: E402
from pytest_rag.judges.local.context_index import forget_shared_indexes  # noqa: E402
from pytest_rag.judges.local.embedder import load_embedder  # noqa: E402
from pytest_rag.judges.local.entailment import load_entailment_model  # noqa: E402
from pytest_rag.judges.local.entailment_input import forget_kept_tokens  # noqa: E402
from pytest_rag.judges.local.scorer import LocalScorer, answer_units  # noqa: E402

CLOCK = time.perf_counter


def median_ms(call: Callable[[], object], repeats: int) -> float:
    call()
    times = []
    for _ in range(repeats):
        start = CLOCK()
        call()
        times.append(CLOCK() - start)
    return float(np.median(times) * 1000)


def check_pairs(answer: str, contexts: Sequence[str]) -> list[tuple[str, str]]:
    """The nine (span, unit) pairs of a typical check: three units, three spans each."""
    embedder = load_embedder()
    index = index_contexts(embedder, contexts)
    units = answer_units(answer)[:3]
    return [(span, unit) for unit in units for span in top_spans(embedder, index, unit, 3)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with the process's CPU clock: the cost itself, on a machine other work shares "
        "(run with OPENBLAS_NUM_THREADS=1, or BLAS threads count twice)",
    )
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    lfqa, passages, megabyte = corpus(args.datasets)
    scorer = LocalScorer.load()  # loads the embedder, which the model shares
    start = time.perf_counter()
    model = load_entailment_model()
    print(f"loading the model (the embedder already loaded): {time.perf_counter() - start:.2f} s")
    cases = [case for case in samples(lfqa, passages, 5, 40) if len(answer_units(case[0])) >= 3][:20]
    checks = [check_pairs(answer, contexts) for answer, contexts in cases]
    checks = [c for c in checks if len(c) == 9]
    check_ms = float(np.median([median_ms(lambda c=c: model.probabilities(c), args.repeats) for c in checks]))
    tokens = model._tokenizer.read([p for c in checks for p, _ in c], 10**6)
    print(
        f"typical check, 9 pairs (3 units x top-3 spans; spans {np.median([len(t.ids) for t in tokens]):.0f} "
        f"tokens median, {max(len(t.ids) for t in tokens)} max): median {check_ms:.2f} ms over {len(checks)} answers"
    )
    pool = [pair for c in checks for pair in c]
    for size in (9, 64):
        batch = (pool * (size // len(pool) + 1))[:size]
        ms = median_ms(lambda b=batch: model.probabilities(b, batch_size=64), args.repeats)
        print(f"batch of {size:>2} pairs: {ms:.2f} ms, {ms / size:.3f} ms per pair")

    small = [(a, c) for a, c in cases[: len(checks)]]
    judge_ms = float(
        np.median([median_ms(lambda a=a, c=c: scorer.support(a, c), args.repeats) for a, c in small])
    )
    both_ms = float(
        np.median(
            [
                median_ms(lambda a=a, c=c, p=p: (scorer.support(a, c), model.probabilities(p)), args.repeats)
                for (a, c), p in zip(small, checks, strict=False)
            ]
        )
    )
    print(f"support(), 5 passages of ~100 words: {judge_ms:.1f} ms; with the 9 pairs: {both_ms:.1f} ms")

    answer = cases[0][0]
    scorer.support(answer, megabyte)
    # a first check each time: the judge keeps a large context's index for the next check
    big_judge = median_ms(
        lambda: (forget_shared_indexes(), forget_kept_tokens(), scorer.support(answer, megabyte)), 3
    )
    big_pairs = check_pairs(answer, megabyte)
    big_model = median_ms(lambda: model.probabilities(big_pairs), args.repeats)
    print(
        f"support(), 1 MB context: {big_judge:.0f} ms; the model on its {len(big_pairs)} pairs adds "
        f"{big_model:.2f} ms (its cost does not grow with the context)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
