"""How the offline judge's cost grows with the context: one faithfulness check, several sizes.

    python benchmarks/offline_speed.py [--datasets ../shared/datasets] [--repeats 20]

The text is real: passages and answers of the LFQA verification set (read from ``--datasets`` at
run time, never copied), so the vocabulary, sentence lengths and overlaps are those of a real
retrieval corpus. Each sample is one LFQA answer (about six sentences) with its own passages,
topped up to the wanted count with passages of other questions. Printed per size: the median time
of ``support()`` (the call behind ``assert_faithful``) per sample, its time per 1,000 context words,
and the ratio to the 5 x 100 words case, so the figures read the same on a slower machine. The
1 MB case is every distinct LFQA and BEGIN passage, repeated until the contexts hold 1,000,000
characters; it is also timed as the very first call of the process, before any word of the corpus
has been embedded (word vectors are cached per process). Every timed call builds the context index
anew: the indexes the judge keeps for large contexts (``context_index.shared_index``) are dropped
before each, so these are first checks; ``benchmarks/long_page_speed.py`` times later ones.

``--json`` prints the figures as one JSON object instead. ``OFFLINE_SPEED_SRC`` names another
checkout's ``src`` to time instead of this one's (``benchmarks/offline_speed_paired.py`` runs the two
alternately and prints their ratios); code older than the kept indexes and tokens has nothing to
drop, so for it the drops are skipped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("OFFLINE_SPEED_SRC") or str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402


def _judge_module(name: str) -> Any:
    """A module of the offline judge: in ``judges/local/`` since issue 17, in ``offline/`` before
    (so an older checkout can be timed through ``OFFLINE_SPEED_SRC``); None if it has none."""
    for package in ("pytest_rag.judges.local", "pytest_rag.offline"):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name not in (package, f"{package}.{name}"):
                raise  # the module is there but needs something missing: say so, do not hide it
    return None


def _nothing_kept() -> None:
    """The drop of a judge that keeps nothing between calls (code older than the kept indexes)."""


_scorer = _judge_module("scorer")
if _scorer is None:
    raise SystemExit(f"no offline judge scorer under {sys.path[0]}: name a pytest-rag checkout's src")
LocalScorer = _scorer.LocalScorer
forget_shared_indexes = getattr(_judge_module("context_index"), "forget_shared_indexes", _nothing_kept)
forget_kept_tokens = getattr(
    _judge_module("entailment_input") or _judge_module("entailment"), "forget_kept_tokens", _nothing_kept
)

SEED = 13


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def samples(
    rows: list[dict[str, Any]], passages: list[str], count: int, n: int
) -> list[tuple[str, list[str]]]:
    """``n`` (answer, contexts) pairs with ``count`` passages each: the record's own passages first."""
    rng = np.random.default_rng(SEED)
    out = []
    for row in rng.choice(len(rows), size=n, replace=False):
        own = list(dict.fromkeys(rows[int(row)]["contexts"]))[:count]
        others = [passages[int(i)] for i in rng.choice(len(passages), size=count, replace=False)]
        contexts = own + [p for p in others if p not in own][: count - len(own)]
        out.append((rows[int(row)]["answer"], contexts))
    return out


def median_ms(scorer: Any, cases: Sequence[tuple[str, list[str]]], repeats: int) -> float:
    times = []
    for answer, contexts in cases:
        scorer.support(answer, contexts)
        for _ in range(repeats):
            forget_shared_indexes()
            forget_kept_tokens()
            start = time.perf_counter()
            scorer.support(answer, contexts)
            times.append(time.perf_counter() - start)
    return float(np.median(times) * 1000)


def corpus(datasets: Path) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """The LFQA answer records, their distinct passages, and the 1 MB context (every distinct
    LFQA and BEGIN passage, repeated until it holds 1,000,000 characters)."""
    lfqa = read_jsonl(datasets / "lfqa_verification" / "answer_level.jsonl")
    begin = read_jsonl(datasets / "begin_grounded_dialogue" / "data.jsonl")
    passages = list(dict.fromkeys(c for r in lfqa for c in r["contexts"]))
    everything = list(dict.fromkeys(passages + [c for r in begin for c in r["contexts"]]))
    megabyte: list[str] = []
    while sum(len(c) + 1 for c in megabyte) < 1_000_000:
        megabyte.extend(everything)
    return lfqa, passages, megabyte


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_datasets_option(parser)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    figures = measure(args.datasets, args.repeats)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"calibration: {figures['calibration']}")
    print(
        f"{'contexts per sample':<26} {'words':>8} {'median ms':>10} {'ms / 1k words':>14} {'x 5 passages':>13}"
    )
    base = figures["cases"][0]["ms"]
    for case in figures["cases"]:
        ms, words = case["ms"], case["words"]
        print(f"{case['label']:<26} {words:>8.0f} {ms:>10.1f} {ms / words * 1000:>14.2f} {ms / base:>13.1f}")
    print(
        f"{'1 MB, first call':<26} {figures['megabyte_words']:>8} {figures['first_call_ms']:>10.1f}   "
        "(a fresh process embeds the corpus vocabulary once; later calls reuse it)"
    )
    return 0


def measure(datasets: Path, repeats: int) -> dict[str, Any]:
    """The calibration version, the first 1 MB call, and the median ms and mean words of each case."""
    lfqa, passages, megabyte = corpus(datasets)
    scorer = LocalScorer.load()
    start = time.perf_counter()
    scorer.support(lfqa[0]["answer"], megabyte)
    cold = (time.perf_counter() - start) * 1000
    cases = []
    for count, n in ((5, 20), (50, 5)):
        chosen = samples(lfqa, passages, count, n)
        words = float(np.mean([sum(len(c.split()) for c in contexts) for _, contexts in chosen]))
        cases.append(
            {
                "label": f"{count} passages (~100 words)",
                "words": words,
                "ms": median_ms(scorer, chosen, repeats),
            }
        )
    megabyte_words = sum(len(c.split()) for c in megabyte)
    ms = median_ms(scorer, [(lfqa[0]["answer"], megabyte)], 2)
    cases.append({"label": f"1 MB ({len(megabyte)} passages)", "words": float(megabyte_words), "ms": ms})
    return {
        "calibration": scorer.version,
        "cases": cases,
        "megabyte_words": megabyte_words,
        "first_call_ms": cold,
    }


if __name__ == "__main__":
    raise SystemExit(main())
